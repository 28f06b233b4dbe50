package spec

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Wrong implementations that the spec must catch. Each is a complete store
// with one mistake a learner makes; if an edit to the spec lets one of them
// pass, this test fails.

// mistakes switches on one mistake each; the zero value is a right store.
type mistakes struct {
	intDivision    bool // QPS divides whole numbers: count / seconds
	missNotCounted bool // a Get on a missing key is not counted
	keepStale      bool // a gap of a whole ring or more empties nothing
	weekOfSeconds  bool // one ring of 604,800 seconds answers every window
	unsynced       bool // the map is locked, the counters are not
	oneTooMany     bool // counts one bucket more than the window covers
	hourAtMost     bool // windows beyond an hour read only the hour ring
	perBucket      bool // divides by the buckets counted, not the window
	wallClock      bool // reads time.Now, not the clock it was given
	weekNotEmptied bool // the minute ring is never emptied

	// A store written for the first parts only has what the later parts
	// add switched off (see parts_test.go).
	fiveMinutes bool // part 1's: one ring of 300 seconds, and a panic for a window over 5m
	noLock      bool // parts 1 and 2's: no mutex; a call made while another is under way panics
}

// flawed is a store with a ring of seconds for the hour and a ring of
// minutes for the week, one pair per op, moved forward under one mutex.
type flawed struct {
	m     mistakes
	clock clock.Clock

	mu      sync.Mutex
	busy    atomic.Bool // with noLock, a call is under way
	data    map[string]string
	latest  int64 // the newest second the rings have moved to
	seconds [2][]uint64
	minutes [2][]uint64
}

func newFlawed(m mistakes) func(clock.Clock) Store {
	return func(c clock.Clock) Store {
		if m.wallClock {
			c = clock.System{}
		}
		f := &flawed{m: m, clock: c, data: map[string]string{}, latest: c.Now().Unix()}
		secondSlots := 3600
		switch {
		case m.weekOfSeconds:
			secondSlots = int(week / sec)
		case m.fiveMinutes:
			secondSlots = int(5 * minute / sec)
		}
		for o := range f.seconds {
			f.seconds[o] = make([]uint64, secondSlots)
			if !m.weekOfSeconds && !m.fiveMinutes {
				f.minutes[o] = make([]uint64, int(week/minute))
			}
		}
		return f
	}
}

func (f *flawed) Get(key string) (string, bool) {
	now := f.clock.Now().Unix()
	f.lock()
	defer f.unlock()
	v, ok := f.data[key]
	if ok || !f.m.missNotCounted {
		f.count(get, now)
	}
	return v, ok
}

func (f *flawed) Put(key, value string) {
	now := f.clock.Now().Unix()
	f.lock()
	defer f.unlock()
	f.count(put, now)
	f.data[key] = value
}

// lock and unlock guard the counters; with unsynced, only the map is
// guarded, and the counting happens outside the lock. With noLock nothing
// is guarded, and a call that starts while another is under way panics:
// a store of parts 1 and 2 must never see one, so no case of theirs may
// call from two goroutines.
func (f *flawed) lock() {
	if !f.m.noLock {
		f.mu.Lock()
	} else if !f.busy.CompareAndSwap(false, true) {
		panic("two calls at once on a store with no lock")
	}
}

func (f *flawed) unlock() {
	if !f.m.noLock {
		f.mu.Unlock()
	} else {
		f.busy.Store(false)
	}
}

func (f *flawed) count(o op, now int64) {
	if f.m.unsynced {
		f.mu.Unlock()
		defer f.mu.Lock()
	}
	s := f.advance(now)
	f.seconds[o][mod(s, len(f.seconds[o]))]++
	if f.minutes[o] != nil {
		f.minutes[o][mod(div(s, 60), len(f.minutes[o]))]++
	}
}

func (f *flawed) advance(now int64) int64 {
	if now <= f.latest {
		return f.latest
	}
	for o := range f.seconds {
		f.empty(f.seconds[o], f.latest, now)
		if f.minutes[o] != nil && !f.m.weekNotEmptied {
			f.empty(f.minutes[o], div(f.latest, 60), div(now, 60))
		}
	}
	f.latest = now
	return now
}

func (f *flawed) empty(ring []uint64, from, to int64) {
	if to-from >= int64(len(ring)) {
		if !f.m.keepStale {
			clear(ring)
		}
		return
	}
	for b := from + 1; b <= to; b++ {
		ring[mod(b, len(ring))] = 0
	}
}

func (f *flawed) QPS(o op, window time.Duration) float64 {
	if window < sec || window > week {
		panic(fmt.Sprintf("bad window %v", window))
	}
	if f.m.fiveMinutes && window > 5*minute {
		panic(fmt.Sprintf("window %v is over 5m", window))
	}
	now := f.clock.Now().Unix()
	if !f.m.unsynced {
		f.lock()
		defer f.unlock()
	}
	s := f.advance(now)
	ring, newest, unit := f.seconds[o], s, sec
	if window > hour && !f.m.weekOfSeconds {
		if f.m.hourAtMost {
			window = hour
		} else {
			ring, newest, unit = f.minutes[o], div(s, 60), minute
		}
	}
	k := int64((window + unit - 1) / unit)
	if f.m.oneTooMany {
		k++
	}
	var n uint64
	for b := newest - k + 1; b <= newest; b++ {
		n += ring[mod(b, len(ring))]
	}
	switch {
	case f.m.intDivision:
		return float64(n / uint64(window/sec))
	case f.m.perBucket:
		return float64(n) / (float64(k) * unit.Seconds())
	}
	return float64(n) / window.Seconds()
}

func mod(b int64, n int) int {
	i := int(b % int64(n))
	if i < 0 {
		i += n
	}
	return i
}

func div(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// TestRightImplementationPasses plays every case against the flawed store
// with no mistake, so that each mutant is wrong in its mistake alone.
func TestRightImplementationPasses(t *testing.T) {
	mutation.Passes(t, "the mutants' store with no mistake", 0, cases(newFlawed(mistakes{})))
}

// suite is the spec as its own tests check it: its cases, and its fuzz
// target's seeds, each built with the store that has the mistakes given.
var suite = mutation.SpecOf(
	func(m mistakes) []timeline.Case[Store] { return cases(newFlawed(m)) },
	fuzzSeeds,
	func(m mistakes, data []byte) timeline.Case[Store] { return fuzzCase(newFlawed(m), data) })

// mutants are the spec's wrong implementations, each with the part meant
// to catch it. TestSpecCatchesMutants checks that it does, and keeps
// testdata/mistakes.json, what each fails: after a change to the spec or
// the mutants, LADDER_UPDATE_MISTAKES=1 go test -run TestSpecCatchesMutants .
// in this folder writes it again.
var mutants = []mutation.Impl[mistakes]{
	{Name: "integer division: 150 calls over 300s is 0 per second", Part: 1, New: mistakes{intDivision: true}},
	{Name: "a Get on a missing key is not counted", Part: 1, New: mistakes{missNotCounted: true}},
	{Name: "stale buckets are still counted after an idle gap", Part: 1, New: mistakes{keepStale: true}},
	{Name: "one bucket too many: the second before the window counts too", Part: 1, New: mistakes{oneTooMany: true}},
	{Name: "divides by the seconds counted, not by the window", Part: 1, New: mistakes{perBucket: true}},
	{Name: "reads time.Now instead of the clock it was given", Part: 1, New: mistakes{wallClock: true}},
	{Name: "a ring of seconds for the whole week", Part: 2, New: mistakes{weekOfSeconds: true}},
	{Name: "windows beyond an hour count only the last hour", Part: 2, New: mistakes{hourAtMost: true}},
	{Name: "the week's ring of minutes is never emptied", Part: 2, New: mistakes{weekNotEmptied: true}},
	// The unsynchronised counter is checked under the race detector, by
	// TestSpecCatchesRaces below.
}

func TestSpecCatchesMutants(t *testing.T) { suite.CatchesMutants(t, mutants) }

// TestSpecCatchesRaces checks that part 3 catches a store whose map is
// locked but whose counters are not, the way make test-level-7 runs it:
// under -race.
//
// The exact totals of the concurrent probes cannot be relied on for this
// without -race. A lost update needs two cores to run the same increment
// within a nanosecond or so of each other, and here the increment is one
// instruction between two lock operations: on a busy two-core machine,
// 8 × 20,000 Puts and Gets lost no update in any trial. So the part 3
// cases run against that store in a child process built with -race, and
// the race detector must report it.
func TestSpecCatchesRaces(t *testing.T) {
	mutation.CaughtUnderRace(t, "an unsynchronised counter", func(t *testing.T) {
		for _, c := range cases(newFlawed(mistakes{unsynced: true})) {
			if c.Part == 3 {
				timeline.Play(c)
			}
		}
	})
}

// TestOpPrintsAsGetAndPut checks package qpsop's String, which every
// report of a QPS call uses to write its op.
func TestOpPrintsAsGetAndPut(t *testing.T) {
	for o, want := range map[op]string{get: "Get", put: "Put", op(2): "Op(2)"} {
		if got := o.String(); got != want {
			t.Errorf("Op(%d).String() = %q, want %q", int(o), got, want)
		}
	}
}

// TestFuzzModelAgrees checks the fuzz target's seeds against the right
// store, and that the fuzz target catches a mistake the tables also catch,
// so that its model is known to bite.
func TestFuzzModelAgrees(t *testing.T) {
	for i, data := range fuzzSeeds {
		if o := timeline.Play(fuzzCase(newFlawed(mistakes{}), data)); o.Verdict != protocol.Pass {
			t.Errorf("seed %d against the right store: %s", i, o.Report)
		}
	}
	// A Put at 0s, then QPS(Put, 5m) at 0s: 1 call / 300s.
	data := []byte{0, 0, 0, 0, 0, 2, 1, 3}
	if o := timeline.Play(fuzzCase(newFlawed(mistakes{intDivision: true}), data)); o.Verdict != protocol.Fail {
		t.Errorf("fuzz case %v against integer division = %v, want fail", data, o.Verdict)
	}
}
