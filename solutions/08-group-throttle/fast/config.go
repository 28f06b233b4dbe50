package fast

import "math"

// maxInstant is the last instant a Throttler can tell apart:
// 2262-04-11T23:47:16.854775807Z, the top of time.Time.UnixNano.
const maxInstant = math.MaxInt64

// rule is what every algorithm shares: a Limit's numbers, in nanoseconds.
type rule struct {
	requests int64
	per      int64
	// lag is how many spans after the span of its latest charge a state
	// may still differ from a fresh one: 1 for a fixed window, which
	// starts over with the next span; 2 for a sliding window, whose ring
	// empties within Per plus a bucket, and for a bucket, which refills
	// within Per.
	lag int64
}

// dropAfter returns the instant after which a state whose latest charge
// was in the span holding stamp is equal to a fresh one, and may be
// dropped. It is never later than two Per after that charge, which is
// what Len promises.
func (r rule) dropAfter(stamp int64) int64 {
	return addSat(lastOf(stamp, r.per), (r.lag-1)*r.per)
}

// algorithm is a Limit compiled for exact integer arithmetic, working on
// its own state type S. Instants are Unix nanoseconds, and the instant a
// state is asked about never goes back.
type algorithm[S any] interface {
	// fresh returns the state of a client that has made no request, at now.
	fresh(now int64) S
	// room returns the largest m for which AllowN(m) would be allowed at now.
	room(st *S, now int64) int64
	// charge counts n <= room(st, now) requests at now.
	charge(st *S, now, n int64)
	// take is room and, if n fits, charge, in one call, at the later of
	// now and from(st), without asking from when now is later: it returns
	// the room before the charge and the instant it decided at.
	take(st *S, now, n int64) (room, at int64)
	// wait returns the shortest wait from now after which n requests
	// would be allowed, if nothing else is charged; room(st, now) < n <=
	// requests. It is at most Per plus a bucket.
	wait(st *S, now, n int64) int64
	// stamp returns an instant in the span [k·Per, (k+1)·Per) of the
	// state's latest charge.
	stamp(st *S) int64
	// from returns the earliest instant at which st may be asked about:
	// the instant of its latest charge, or the start of that charge's
	// window or bucket, where every instant decides the same. Calls reach
	// a known client's state in the order they take its slot, not in the
	// order they read the clock, so each decides at the later of its
	// reading and from.
	from(st *S) int64
}

// kind is a compiled Limit that can make the client table or a group.
type kind interface {
	clients(time *clockTime) clientTable
	group() group
}

// kindOf is the kind of an algorithm whose state is S.
type kindOf[S any] struct {
	alg  algorithm[S]
	rule rule
}

func (k kindOf[S]) clients(time *clockTime) clientTable {
	return newTable(k.alg, k.rule, time)
}
func (k kindOf[S]) group() group { return newGroup(k.alg, k.rule) }

// compile picks a valid Limit's algorithm: New has checked it. It is the
// only place that looks at Limit.Algorithm: everything after works through
// the kind it returns.
func compile(l Limit) kind {
	r := rule{requests: int64(l.Requests), per: int64(l.Per), lag: 2}
	switch l.Algorithm {
	case FixedWindow:
		r.lag = 1
		return kindOf[fixedState]{&fixed{r}, r}
	case SlidingWindow:
		b := int64(max(l.Buckets, 2)) // 0 means 2
		w := window{rule: r, buckets: b, width: r.per / (b - 1)}
		switch {
		case b == 2 && r.requests <= math.MaxInt32:
			return kindOf[sliding2State[int32]]{&sliding2[int32]{w}, r}
		case b == 2:
			return kindOf[sliding2State[int64]]{&sliding2[int64]{w}, r}
		}
		return kindOf[ringState]{&slidingRing{w}, r}
	default:
		g := gcd(r.requests, r.per)
		a := &bucket{rule: r, unit: r.per / g, refill: r.requests / g}
		a.full = r.requests * a.unit // fits: New has checked
		a.byUnit, a.byRefill = newDivider(uint64(a.unit)), newDivider(uint64(a.refill))
		return kindOf[bucketState]{a, r}
	}
}

// Each algorithm is an algorithm of its own state.
var (
	_ algorithm[fixedState]           = (*fixed)(nil)
	_ algorithm[sliding2State[int32]] = (*sliding2[int32])(nil)
	_ algorithm[sliding2State[int64]] = (*sliding2[int64])(nil)
	_ algorithm[ringState]            = (*slidingRing)(nil)
	_ algorithm[bucketState]          = (*bucket)(nil)
)
