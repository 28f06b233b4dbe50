package spec

import (
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Fuzz checks the buckets newBucket builds against a model that counts
// tokens in exact fractions (math/big.Rat), on random timelines whose times
// never go backwards. Times are whole milliseconds, and every rate is exact
// in a float64 and gives a token every whole number of milliseconds, so the
// exact answers are the ones a careful bucket gives too.
func Fuzz[B Bucket](f *testing.F, newBucket func(capacity int, rate float64) B) {
	f.Add([]byte{0, 0, 0, 3, 1, 0, 2, 1, 4, 2, 1, 3, 2, 5, 0, 6})
	f.Add([]byte{2, 5, 1, 2, 3, 9, 4, 1, 6, 3, 2, 1, 7, 0, 2, 3, 1, 1})
	f.Add([]byte{4, 1, 3, 3, 4, 1, 0, 0, 3, 0, 7, 2, 1, 3, 1, 6, 0, 1})
	f.Add([]byte{1, 18, 0, 3, 2, 5, 3, 7, 2, 1, 1, 0, 1, 0, 2, 2})
	newB := erase(newBucket)
	f.Fuzz(func(t *testing.T, data []byte) {
		timeline.RunCase(t, fuzzCase(newB, data))
	})
}

var (
	fuzzCapacities = []int{1, 2, 3, 5, 10}
	// fuzzRates are tokens a second; each is exact in a float64 and gives a
	// token every whole number of milliseconds (1ms to 8s), and 0 gives none.
	fuzzRates = []float64{1000, 500, 250, 200, 125, 100, 40, 25, 10, 8, 5, 4, 2, 1, 0.5, 0.25, 0.125, 0}
)

// model is the trusted bucket: the same rules in exact fractions.
type model struct {
	capacity *big.Rat
	perNs    *big.Rat // tokens a nanosecond
	tokens   *big.Rat // at last
	last     time.Duration
	started  bool
}

func (m *model) at(now time.Duration) *big.Rat {
	t := new(big.Rat).Set(m.tokens)
	if !m.started || now <= m.last {
		return t
	}
	t.Add(t, new(big.Rat).Mul(m.perNs, big.NewRat(int64(now-m.last), 1)))
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
	m.last, m.started = now, true
	return true
}

// delay is Delay's answer as the table shows it, and the wait itself.
func (m *model) delay(now time.Duration, n int) (string, time.Duration) {
	cost := big.NewRat(int64(n), 1)
	if cost.Cmp(m.capacity) > 0 {
		return never, 0
	}
	have := m.at(now)
	if have.Cmp(cost) >= 0 {
		return timeline.Offset(0), 0
	}
	if m.perNs.Sign() == 0 {
		return never, 0
	}
	wait := new(big.Rat).Quo(new(big.Rat).Sub(cost, have), m.perNs)
	q, r := new(big.Int).QuoRem(wait.Num(), wait.Denom(), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1)) // round up
	}
	d := time.Duration(q.Int64())
	return timeline.Offset(d), d
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
	interval := time.Second // between tokens, for choosing gaps near it
	if rate > 0 {
		interval = time.Duration(float64(time.Second) / rate)
	}
	var (
		steps    []step
		now      time.Duration
		lastWait time.Duration // the latest wait Delay gave, to jump by it
	)
	for in.More() && len(steps) < 200 {
		gaps := []time.Duration{0, 0, ms, 3 * ms, interval, interval + ms, interval - ms, 7 * interval / 2, time.Duration(capacity) * interval, minute, lastWait}
		if g := timeline.Pick(in, gaps...); g > 0 {
			now += g.Truncate(ms) // whole milliseconds
		}
		n := in.Intn(capacity + 2) // 0 to capacity+1
		switch in.Intn(4) {
		case 0:
			steps = append(steps, at(now, allow(m.allowN(now, 1))))
		case 1:
			steps = append(steps, at(now, allowN(n, m.allowN(now, n))))
		case 2:
			want, _ := new(big.Rat).Set(m.at(now)).Float64()
			steps = append(steps, at(now, tokens(want)))
		case 3:
			want, wait := m.delay(now, n)
			lastWait = wait
			steps = append(steps, at(now, delayCall(n, want)))
		}
	}
	if len(steps) == 0 {
		steps = append(steps, at(0, allow(m.allowN(0, 1))))
	}
	return timeline.Case[Bucket]{
		Name:  "fuzz",
		Part:  1,
		Setup: fmt.Sprintf("New(%d, %v)", capacity, rate),
		New:   func(clock.Clock) Bucket { return newBucket(capacity, rate) },
		Steps: steps,
	}
}
