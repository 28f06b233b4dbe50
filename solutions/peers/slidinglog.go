package peers

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"
)

// SlidingLog is an exact sliding-window limiter: it remembers the time of
// every allowed request, and allows a request if fewer than limit were
// allowed in the half-open window (now-per, now]. It is the truth that a
// sliding window's estimate is measured against. It costs memory in
// proportion to the allowed requests, which is why nobody runs it at scale.
//
// Times must not go backwards for a client. A SlidingLog is not safe for
// concurrent use.
type SlidingLog struct {
	limit int
	per   time.Duration
	logs  [][]time.Duration // per client: the allowed requests still in the window, oldest first
}

// NewSlidingLog returns a log for clients numbered 0 to clients-1 that
// allows limit requests per per.
func NewSlidingLog(clients, limit int, per time.Duration) *SlidingLog {
	return &SlidingLog{limit: limit, per: per, logs: make([][]time.Duration, clients)}
}

// Count returns how many of client's allowed requests lie in
// (now-per, now], forgetting the older ones.
func (l *SlidingLog) Count(client int, now time.Duration) int {
	log := l.logs[client]
	i := 0
	for i < len(log) && log[i] <= now-l.per {
		i++
	}
	if i > 0 {
		// Shift rather than reslice, so that the backing array is reused
		// instead of growing without end.
		log = log[:copy(log, log[i:])]
		l.logs[client] = log
	}
	return len(log)
}

// Allow reports whether a request from client at now is within the limit,
// and records it if so.
func (l *SlidingLog) Allow(client int, now time.Duration) bool {
	if l.Count(client, now) >= l.limit {
		return false
	}
	l.logs[client] = append(l.logs[client], now)
	return true
}

// Record adds a request from client at now to the log without asking
// whether it is within the limit: the log then follows another limiter's
// decisions, and Count tells the exact number that limiter allowed.
func (l *SlidingLog) Record(client int, now time.Duration) {
	l.logs[client] = append(l.logs[client], now)
}

// Request is one request of a trace: which client, and when, as an offset
// from the trace's start.
type Request struct {
	At     time.Duration
	Client int
}

// BurstyTrace returns n requests from the given number of clients, in time
// order, the same for the same seed. Traffic comes in bursts: a client is
// picked by a Zipf law (s = 1.1, v = 50: client k has weight
// (50+k)^-1.1), so a few hundred clients send most of the requests; it
// sends a burst of 1 + Exp(20) requests spaced by one gap of 1
// to 500 ms; bursts start on average every 30 ms. All times are whole
// milliseconds.
func BurstyTrace(n, clients int, seed uint64) []Request {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	zipf := rand.NewZipf(r, 1.1, 50, uint64(clients-1))
	trace := make([]Request, 0, n)
	var start time.Duration
	for len(trace) < n {
		start += time.Duration(r.ExpFloat64()*30) * time.Millisecond
		client := int(zipf.Uint64())
		size := 1 + int(r.ExpFloat64()*20)
		gap := time.Duration(1+r.IntN(500)) * time.Millisecond
		for j := 0; j < size && len(trace) < n; j++ {
			trace = append(trace, Request{At: start + time.Duration(j)*gap, Client: client})
		}
	}
	// Bursts overlap: put the requests in time order, keeping each
	// client's own order.
	slices.SortStableFunc(trace, func(a, b Request) int { return cmp.Compare(a.At, b.At) })
	return trace
}
