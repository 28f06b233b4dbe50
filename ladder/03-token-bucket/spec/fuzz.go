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

// model is the trusted bucket: the same rules in exact fractions.
type model struct {
	capacity *big.Rat
	perNs    *big.Rat      // tokens a nanosecond
	tokens   *big.Rat      // at last
	last     time.Duration // the bucket's time: the latest now of a call that spent
	started  bool
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
	m.tokens = have.Sub(have, cost)
	if !m.started || now > m.last {
		m.last = now
	}
	m.started = true
	return true
}

// delay is Delay's answer: the wait, and false for never.
func (m *model) delay(now time.Duration, n int) (time.Duration, bool) {
	cost := big.NewRat(int64(n), 1)
	if cost.Cmp(m.capacity) > 0 {
		return 0, false
	}
	have := m.at(now)
	if have.Cmp(cost) >= 0 {
		return 0, true
	}
	if m.perNs.Sign() == 0 {
		return 0, false
	}
	wait := new(big.Rat).Quo(new(big.Rat).Sub(cost, have), m.perNs)
	if now < m.last {
		wait.Add(wait, nanos(now, m.last)) // the refill starts at the bucket's time
	}
	q, r := new(big.Int).QuoRem(wait.Num(), wait.Denom(), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1)) // round up
	}
	if !q.IsInt64() {
		return 0, false // longer than the longest Duration
	}
	return time.Duration(q.Int64()), true
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
		n := timeline.Pick(in, 0, 1, 1, 2, 3, capacity-1, capacity, capacity+1, capacity/2, in.Intn(min(capacity+2, 1<<16)))
		switch in.Intn(4) {
		case 0:
			steps = append(steps, at(now, allow(m.allowN(now, 1))))
		case 1:
			steps = append(steps, at(now, allowN(n, m.allowN(now, n))))
		case 2:
			want, _ := m.at(now).Float64()
			steps = append(steps, at(now, tokens(want)))
		case 3:
			wait, ok := m.delay(now, n)
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
	return unclocked(newBucket).Case(row{Name: "fuzz", Part: part, Arg: shape{capacity, rate}, Steps: steps})
}
