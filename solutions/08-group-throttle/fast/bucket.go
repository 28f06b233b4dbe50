package fast

import "math/bits"

// bucket holds up to Requests tokens, gains Requests per Per, and starts
// full. With g = gcd(Requests, Per in ns), one token is unit = Per/g units
// and the bucket gains refill = Requests/g units a nanosecond, so every
// quantity is a whole number and RetryAfter can be exact.
type bucket struct {
	rule
	unit   int64 // units in one token
	refill int64 // units gained per nanosecond
	full   int64 // capacity in units: requests·unit
	// byUnit and byRefill divide by unit and refill without a DIV
	// instruction: a bucket neither full nor empty divides on every call.
	byUnit, byRefill divider
}

// bucketState is one client's or group's bucket.
type bucketState struct {
	at    int64 // the instant of the latest charge
	level int64 // the units left after it
}

func (a *bucket) fresh(now int64) bucketState { return bucketState{at: now, level: a.full} }

// levelAt returns the units in the bucket at now: the level after the
// latest charge plus the refill since, at most full. The product is taken
// in 128 bits, so a bucket left alone for centuries is simply full.
func (a *bucket) levelAt(st *bucketState, now int64) int64 {
	hi, lo := bits.Mul64(since(st.at, now), uint64(a.refill))
	if hi != 0 || lo >= uint64(a.full-st.level) {
		return a.full
	}
	return st.level + int64(lo)
}

func (a *bucket) room(st *bucketState, now int64) int64 { return a.tokens(a.levelAt(st, now)) }

// tokens is the whole tokens in lv units.
func (a *bucket) tokens(lv int64) int64 {
	switch {
	case lv == a.full:
		return a.requests
	case lv < a.unit:
		return 0
	}
	return int64(a.byUnit.div(uint64(lv)))
}

func (a *bucket) take(st *bucketState, now, n int64) (room, at int64) {
	now = max(now, st.at)
	lv := a.levelAt(st, now)
	if room = a.tokens(lv); n <= room {
		st.level, st.at = lv-n*a.unit, now
	}
	return room, now
}

func (a *bucket) charge(st *bucketState, now, n int64) {
	st.level = a.levelAt(st, now) - n*a.unit
	st.at = now
}

// wait is the time the missing units take to refill, rounded up; more
// than 0 units are missing.
func (a *bucket) wait(st *bucketState, now, n int64) int64 {
	return int64(a.byRefill.div(uint64(n*a.unit-a.levelAt(st, now)-1))) + 1
}

func (a *bucket) stamp(st *bucketState) int64 { return st.at }
func (a *bucket) from(st *bucketState) int64  { return st.at }
