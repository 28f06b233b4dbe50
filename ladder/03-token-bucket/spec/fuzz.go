package spec

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// fuzzSeeds are the fuzz target's seed inputs. The spec's own tests play
// them too, to check the part each is labelled with.
var fuzzSeeds = [][]byte{
	{0, 0, 0, 0, 3, 1, 0, 2, 1, 4, 2, 1, 3, 2, 5, 0, 6},
	{2, 5, 0, 1, 2, 3, 9, 4, 1, 6, 3, 2, 1, 7, 0, 2, 3, 1, 1},
	{4, 1, 1, 3, 3, 4, 1, 0, 0, 3, 0, 7, 2, 1, 3, 1, 6, 0, 1},
	{6, 18, 2, 1, 0, 3, 2, 5, 3, 7, 2, 1, 1, 0, 1, 0, 2, 2},
	{7, 25, 3, 0, 1, 14, 2, 3, 0, 13, 3, 1, 1, 15, 1, 2},
	{5, 22, 4, 200, 17, 90, 3, 1, 0, 16, 0, 3, 3, 1, 1, 9, 2},
	// Longer timelines of parts 1 to 3, found by a search for ones with a
	// denial, two allowed requests and three kinds of call.
	{26, 0, 8, 21, 25, 1, 16, 25, 10, 25, 10, 25, 2, 8, 20, 2, 19, 29, 21, 12, 2, 3, 21, 12, 9, 26},
	{25, 4, 2, 7, 2, 28, 13, 24, 27, 0, 29, 2, 15, 7, 22, 29, 12, 19, 12, 12, 29, 2, 0, 4, 0, 16},
	{2, 24, 19, 16, 27, 2, 18, 9, 6, 20, 4, 16, 27, 12, 16, 18, 13, 16, 7, 25, 1, 7, 4, 8, 17, 19, 5},
	{9, 21, 25, 2, 11, 1, 21, 26, 4, 24, 28, 2, 22, 21, 17, 1, 3, 8, 25, 13, 20, 24, 28, 11, 8, 16},
	{16, 21, 10, 27, 13, 26, 0, 6, 5, 19, 16, 5, 12, 26, 25, 31, 1, 9, 19, 30, 3, 5, 16, 24},
}

// Fuzz checks the buckets newBucket builds against a model that counts
// tokens in exact fractions (math/big.Rat), on random timelines. Every rate
// is exact in a float64, and is the very fraction an exact bucket reads, so
// the exact answers are the ones a careful bucket gives too.
//
// Times run over the whole range of UnixNano, 1677 to 2262: a timeline
// starts near 1970, near today, at either end of the range or anywhere in
// it, and moves by anything from a nanosecond to 290 years, now and then
// backwards. Capacities go up to the largest, 2^53, and rates from a token
// every 272 years to a thousand a nanosecond.
//
// A timeline is of part 1, 2 or 3 only while it stays at the scale of
// those parts (see interviewScale); anything else is part 4's.
func Fuzz[B Bucket](f *testing.F, newBucket func(capacity int, rate float64) B) {
	timeline.Fuzz(f, fuzzSeeds, func(capacity int, rate float64) Bucket { return newBucket(capacity, rate) }, fuzzCase)
}

var (
	fuzzCapacities = []int{1, 2, 3, 5, 10, 1000, 10_000_000_000, maxCapacity}
	// fuzzRates are tokens a second. Each is exact in a float64, and no
	// shorter fraction converts to the same float64, so it is the rate a
	// bucket that reads the shortest fraction reads too. (3 * 2^-33 is
	// not one: 1/2863311530666666666 of a token a nanosecond is shorter
	// and converts to the same float64.) They run from a token every 2^33
	// seconds, about 272 years, to a thousand a nanosecond; 0 gives none.
	fuzzRates = []float64{
		1000, 500, 250, 200, 125, 100, 40, 25, 10, 8, 5, 4, 3, 2, 1, 0.5, 0.25, 0.125, 0,
		1.5, 0.375, 333.25, 2.5e5, 1e6, 7e6, 1e9, 1e12, 0x1p-10, 0x1p-20, 0x3p-20, 0x1p-33,
	}
)

// maxOffset and minOffset are the ends of the fuzz's time range, as offsets
// from clock.Epoch: UnixNano from -(2^63-1) to 2^63-1.
const (
	maxOffset = maxWait
	minOffset = -maxWait
	year      = 365 * day
)

// Parts 1 to 3 are at the scale of an interview, where a bucket that
// counts in a float64 gives every answer right. A timeline stays there
// while its capacity is at most interviewCapacity, its times are within
// interviewYears of 1970, and no answer is near a boundary: every count a
// call compares with n is whole, as a float64 holds it too, or more than
// margin tokens away from n; and every wait Delay rounds up is at most
// interviewWait and more than margin tokens' time, plus a thousandth of a
// nanosecond, away from a whole nanosecond. A float64 count of at most 1000 tokens is off by about
// 1e-13 after a call, 1e-10 after the 200 calls of the longest timeline.
// Any other timeline needs part 4's exact arithmetic.
const (
	interviewCapacity = 1000
	interviewYears    = 100 * year
	interviewWait     = 1 << 40 // nanoseconds, about 18 minutes
)

// margin is how near, in tokens, a count may come to a boundary in a
// timeline of parts 1 to 3.
var margin = big.NewRat(1, 1e9)

// clear reports whether a call for n tokens at now is clear of the
// boundary: the count it compares with n is a whole number that a float64
// holds exactly too (see wholeAt), or more than margin away from n.
func (m *model) clear(now time.Duration, n int) bool {
	if m.wholeAt(now) {
		return true
	}
	d := new(big.Rat).Sub(m.at(now), big.NewRat(int64(n), 1))
	return d.Abs(d).Cmp(margin) > 0
}

// wholeAt says whether the count at now is whole, as a float64 bucket
// holds it too: the count the last spend left, if whole, with no refill
// since; or the capacity, when the refill passes it by more than margin,
// so that a float64 sum off by a little is still capped.
func (m *model) wholeAt(now time.Duration) bool {
	if !m.started || now <= m.last {
		return m.whole
	}
	sum := new(big.Rat).Add(m.tokens, new(big.Rat).Mul(m.perNs, nanos(m.last, now)))
	return sum.Sub(sum, m.capacity).Cmp(margin) > 0
}

// clearWait reports whether Delay's exact wait w, in nanoseconds before
// rounding up, is at interview scale: short, and far enough from a whole
// nanosecond that an error of margin tokens rounds it up to the same one.
func clearWait(w, perNs *big.Rat) bool {
	if w.Cmp(big.NewRat(interviewWait, 1)) > 0 {
		return false
	}
	slack := new(big.Rat).Quo(margin, perNs)
	slack.Add(slack, big.NewRat(1, 1000))
	up := new(big.Rat).SetInt(ceil(w))
	above := new(big.Rat).Sub(up, w)                           // to the nanosecond it rounds up to
	below := new(big.Rat).Sub(w, up.Sub(up, big.NewRat(1, 1))) // from the one before
	return above.Cmp(slack) > 0 && below.Cmp(slack) > 0
}

// ceil returns r rounded up to a whole number.
func ceil(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// interviewTime reports whether an offset is within interviewYears of
// 1970.
func interviewTime(now time.Duration) bool { return -interviewYears <= now && now <= interviewYears }

// model is the trusted bucket: the same rules in exact fractions.
type model struct {
	capacity *big.Rat
	perNs    *big.Rat      // tokens a nanosecond
	tokens   *big.Rat      // at last
	last     time.Duration // the bucket's time: the latest now of a call that spent
	started  bool
	// whole says tokens is a whole number that a float64 count holds
	// exactly too: the capacity, less whole requests, with no fraction
	// of a refill since.
	whole bool
}

// nanos returns to - from as an exact number of nanoseconds: two offsets
// may be further apart than an int64 holds.
func nanos(from, to time.Duration) *big.Rat {
	d := new(big.Int).Sub(big.NewInt(int64(to)), big.NewInt(int64(from)))
	return new(big.Rat).SetInt(d)
}

func (m *model) at(now time.Duration) *big.Rat {
	t := new(big.Rat).Set(m.tokens)
	if !m.started || now <= m.last {
		return t
	}
	t.Add(t, new(big.Rat).Mul(m.perNs, nanos(m.last, now)))
	if t.Cmp(m.capacity) > 0 {
		t.Set(m.capacity)
	}
	return t
}

func (m *model) allowN(now time.Duration, n int) bool {
	if n == 0 {
		return true
	}
	have, cost := m.at(now), big.NewRat(int64(n), 1)
	if have.Cmp(cost) < 0 {
		return false
	}
	m.whole = m.wholeAt(now)
	m.tokens = have.Sub(have, cost)
	if !m.started || now > m.last {
		m.last = now
	}
	m.started = true
	return true
}

// delay is Delay's answer: the wait, and false for never. exact is the
// wait before rounding up, in nanoseconds, or nil when there is none to
// work out: the request succeeds now, or can never succeed whatever the
// wait.
func (m *model) delay(now time.Duration, n int) (wait time.Duration, ok bool, exact *big.Rat) {
	cost := big.NewRat(int64(n), 1)
	if cost.Cmp(m.capacity) > 0 {
		return 0, false, nil
	}
	have := m.at(now)
	if have.Cmp(cost) >= 0 {
		return 0, true, nil
	}
	if m.perNs.Sign() == 0 {
		return 0, false, nil
	}
	exact = new(big.Rat).Quo(new(big.Rat).Sub(cost, have), m.perNs)
	if now < m.last {
		exact.Add(exact, nanos(now, m.last)) // the refill starts at the bucket's time
	}
	q := ceil(exact)
	if !q.IsInt64() {
		return 0, false, exact // longer than the longest Duration
	}
	return time.Duration(q.Int64()), true, exact
}

// add returns now+d, kept within the fuzz's time range.
func add(now, d time.Duration) time.Duration {
	switch {
	case d > 0 && now > maxOffset-d:
		return maxOffset
	case d < 0 && now < minOffset-d:
		return minOffset
	}
	return now + d
}

// nanoseconds converts f to a Duration, stopping at the longest.
func nanoseconds(f float64) time.Duration {
	if f >= math.MaxInt64 {
		return maxWait
	}
	return time.Duration(f)
}

// anyOffset reads an offset anywhere in the fuzz's time range.
func anyOffset(in *timeline.Choices) time.Duration {
	var u uint64
	for range 4 {
		u = u<<16 | uint64(in.Intn(1<<16))
	}
	return max(time.Duration(u), minOffset)
}

// fuzzCase decodes data into a timeline whose wants come from the model.
func fuzzCase(newBucket func(int, float64) Bucket, data []byte) timeline.Case[Bucket] {
	in := timeline.NewChoices(data)
	capacity := timeline.Pick(in, fuzzCapacities...)
	rate := timeline.Pick(in, fuzzRates...)
	perSec := new(big.Rat).SetFloat64(rate)
	m := &model{
		capacity: big.NewRat(int64(capacity), 1),
		perNs:    perSec.Quo(perSec, big.NewRat(int64(time.Second), 1)),
		tokens:   big.NewRat(int64(capacity), 1),
		whole:    true,
	}
	// interval is the time a token takes, and fill the time an empty
	// bucket takes to fill, for choosing gaps near them; both stop at
	// the longest Duration.
	interval, fill := time.Second, time.Second
	if rate > 0 {
		interval, fill = nanoseconds(1e9/rate), nanoseconds(float64(capacity)*1e9/rate)
	}
	var now time.Duration // the first call's offset
	switch in.Intn(8) {
	case 0, 1: // the epoch
	case 2:
		now = -ns
	case 3:
		now = 55 * year // today
	case 4:
		now = minOffset
	case 5:
		now = maxOffset - day
	case 6:
		now = minOffset + interval
	case 7:
		now = anyOffset(in)
	}
	var (
		steps    []step
		part     = 1
		lastWait time.Duration // the latest wait Delay gave, to jump by it
		// exact says the timeline leaves the scale of parts 1 to 3.
		exact = capacity > interviewCapacity || !interviewTime(now)
	)
	for in.More() && len(steps) < 200 {
		gaps := []time.Duration{
			0, 0, ns, ms, interval, interval + ns, interval - ns, interval + ms, nanoseconds(3.5 * float64(interval)),
			fill, fill - ns, minute, lastWait, lastWait - ns, 100 * year, 290 * year, -ns, -interval,
		}
		gap := timeline.Pick(in, gaps...)
		if gap == 0 && in.Intn(8) == 0 {
			gap = anyOffset(in) // anywhere, forwards or backwards
		}
		now = add(now, gap)
		if gap < 0 {
			part = max(part, 2)
		}
		exact = exact || !interviewTime(now)
		n := timeline.Pick(in, 0, 1, 1, 2, 3, capacity-1, capacity, capacity+1, capacity/2, in.Intn(min(capacity+2, 1<<16)))
		call := in.Intn(4)
		if call == 0 {
			n = 1
		}
		if call != 2 && n > 0 && !m.clear(now, n) {
			exact = true // a float64 count may fall on the other side of n
		}
		switch call {
		case 0:
			steps = append(steps, at(now, allow(m.allowN(now, 1))))
		case 1:
			steps = append(steps, at(now, allowN(n, m.allowN(now, n))))
		case 2:
			want, _ := m.at(now).Float64()
			steps = append(steps, at(now, tokens(want)))
		case 3:
			wait, ok, w := m.delay(now, n)
			if w != nil && !clearWait(w, m.perNs) {
				exact = true
			}
			lastWait = wait
			part = 3
			if ok {
				steps = append(steps, at(now, delay(n, wait)))
			} else {
				steps = append(steps, at(now, delayNever(n)))
			}
		}
	}
	if len(steps) == 0 {
		steps = append(steps, at(now, allow(m.allowN(now, 1))))
	}
	if exact {
		part = 4
	}
	return timeline.Bind(unclocked(newBucket), row{Name: "fuzz", Part: part, Arg: shape{capacity, rate}, Steps: steps})[0]
}
