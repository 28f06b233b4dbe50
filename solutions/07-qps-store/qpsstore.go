// Package qpsstore is the reference solution of level 7: a key-value store
// that also tells how many Gets and Puts it served per second, over any
// window from one second to one week.
package qpsstore

import (
	"fmt"
	"sync"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/07-qps-store/qpsop"
)

// The windows QPS accepts.
const (
	minWindow = time.Second
	maxWindow = 7 * 24 * time.Hour
)

// The two rings of every op. Windows up to secondSpan are counted in whole
// seconds, longer ones in whole minutes.
const (
	secondSpan  = time.Hour
	secondSlots = int64(secondSpan / time.Second) // 3,600
	minuteSlots = int64(maxWindow / time.Minute)  // 10,080
)

// Op is a kind of call that the store counts: Get or Put. It is defined
// once, in package qpsop, and shared with the spec; these aliases let
// callers write qpsstore.Op, qpsstore.Get and qpsstore.Put.
type Op = qpsop.Op

// The ops, in the order of Store.counts.
const (
	Get    = qpsop.Get
	Put    = qpsop.Put
	numOps = Put + 1
)

// counters are the calls of one op: per second for the last hour, and per
// minute for the last week. Slot b % len holds bucket b, counted from the
// Unix epoch, for as long as b is among the newest len buckets.
type counters struct {
	seconds [secondSlots]uint64
	minutes [minuteSlots]uint64
}

// Store is a map from string keys to string values that counts its calls.
// It is safe for concurrent use.
//
// One mutex guards both the map and the counters. Every call, a Get too,
// changes a counter, so a read-write mutex would buy nothing; and the work
// under the lock is a map operation plus two increments, so the lock is held
// about as long as a plain locked map holds it. The counters are a fixed
// 218,880 bytes, whatever the traffic.
type Store struct {
	clock clock.Clock

	mu     sync.Mutex
	data   map[string]string
	latest int64 // the newest second (Unix time) the counters have moved to
	counts [numOps]counters
}

// New returns an empty Store that reads the time from c.
func New(c clock.Clock) *Store {
	return &Store{clock: c, data: make(map[string]string), latest: c.Now().Unix()}
}

// Get returns the value stored under key, and whether there is one. It
// counts as a Get call either way.
func (s *Store) Get(key string) (value string, ok bool) {
	// Read the clock before taking the lock: it may take its own lock, and
	// the store's critical section stays as short as a plain map's.
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count(Get, now)
	value, ok = s.data[key]
	return value, ok
}

// Put stores value under key, replacing any value there, and counts as a
// Put call.
func (s *Store) Put(key, value string) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count(Put, now)
	s.data[key] = value
}

// QPS returns the calls of op per second over the window that ends now:
// the calls counted in the window, divided by the window in seconds.
//
// A window up to one hour is counted in whole seconds: the current second
// and the ones before it, as many as the window covers, rounded up. A
// longer window is counted the same way in whole minutes. So the count lies
// between the exact counts of window-1s and window+1s (window-1min and
// window+1min beyond an hour).
//
// QPS panics unless 1s <= window <= 168h (a week), or if op is not Get or
// Put.
func (s *Store) QPS(op Op, window time.Duration) float64 {
	if window < minWindow || window > maxWindow {
		panic(fmt.Sprintf("qpsstore: QPS window must be between %v and %v, got %v", minWindow, maxWindow, window))
	}
	if op < 0 || op >= numOps {
		panic(fmt.Sprintf("qpsstore: QPS of unknown op %d", int(op)))
	}
	now := s.clock.Now()
	s.mu.Lock()
	sec := s.advance(now.Unix())
	c := &s.counts[op]
	var n uint64
	if window <= secondSpan {
		n = sumNewest(c.seconds[:], sec, ceilDiv(window, time.Second))
	} else {
		n = sumNewest(c.minutes[:], floorDiv(sec, 60), ceilDiv(window, time.Minute))
	}
	s.mu.Unlock()
	return float64(n) / window.Seconds()
}

// count records one call of op at now. s.mu must be held.
func (s *Store) count(op Op, now time.Time) {
	sec := s.advance(now.Unix())
	c := &s.counts[op]
	c.seconds[slot(sec, secondSlots)]++
	c.minutes[slot(floorDiv(sec, 60), minuteSlots)]++
}

// advance moves the counters to second sec, emptying the slots of the
// buckets that left their ring, and returns the second to count in. Calls
// that read the clock at the same time may take the lock in the other
// order; a reading older than the newest one counts in the newest second,
// so no call is lost and no bucket is emptied twice. s.mu must be held.
func (s *Store) advance(sec int64) int64 {
	if sec <= s.latest {
		return s.latest
	}
	for op := range s.counts {
		c := &s.counts[op]
		empty(c.seconds[:], s.latest, sec)
		empty(c.minutes[:], floorDiv(s.latest, 60), floorDiv(sec, 60))
	}
	s.latest = sec
	return sec
}

// empty zeroes the slots of buckets from+1 to to: they still hold buckets
// one ring older. A gap of a whole ring or more empties all of it at once,
// so a month of silence costs no more than one ring.
func empty(ring []uint64, from, to int64) {
	n := int64(len(ring))
	if to-from >= n {
		clear(ring)
		return
	}
	for b := from + 1; b <= to; b++ {
		ring[slot(b, n)] = 0
	}
}

// sumNewest adds up the k newest buckets of ring, newest being the last of
// them, in at most two contiguous runs. k is at most len(ring).
func sumNewest(ring []uint64, newest, k int64) uint64 {
	n := int64(len(ring))
	first := slot(newest-k+1, n)
	var sum uint64
	if first+k <= n {
		for _, v := range ring[first : first+k] {
			sum += v
		}
		return sum
	}
	for _, v := range ring[first:] {
		sum += v
	}
	for _, v := range ring[:first+k-n] {
		sum += v
	}
	return sum
}

// slot is the index of bucket b in a ring of n slots. Times before 1970
// have negative buckets, hence the floored remainder.
func slot(b, n int64) int64 {
	i := b % n
	if i < 0 {
		i += n
	}
	return i
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ceilDiv returns how many whole units cover d; d is positive.
func ceilDiv(d, unit time.Duration) int64 {
	return int64((d + unit - 1) / unit)
}
