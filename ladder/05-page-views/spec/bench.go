package spec

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Benchmark measures an Add and a Count together, in one-second buckets,
// for a five-minute window (n = 300) and a one-day window (n = 86,400),
// with allocations reported. The two sizes must cost the same per call.
//
//   - steady: a batch of views every 100ms.
//   - random_gaps: gaps of 0 to 2s, and once every n calls on average a jump
//     of one to two windows. A jump costs one reset of n buckets, which
//     happens once per n calls whatever n is, so it adds the same per call.
func Benchmark[C Counter](b *testing.B, newCounter func(window, bucket time.Duration) C) {
	for _, n := range []int{300, 86_400} {
		window := time.Duration(n) * sec
		b.Run(fmt.Sprintf("steady/n=%d", n), func(b *testing.B) {
			c := newCounter(window, sec)
			now := warmUp(b, c, window)
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(100 * ms)
				addAndCount(b, c, now)
			}
		})
		b.Run(fmt.Sprintf("random_gaps/n=%d", n), func(b *testing.B) {
			c := newCounter(window, sec)
			now := warmUp(b, c, window)
			r := rand.New(rand.NewPCG(5, 300))
			b.ReportAllocs()
			for b.Loop() {
				gap := time.Duration(r.Int64N(int64(2 * sec)))
				if r.IntN(n) == 0 {
					gap = window + time.Duration(r.Int64N(int64(window)))
				}
				now = now.Add(gap)
				addAndCount(b, c, now)
			}
		})
	}
}

// warmUp fills one window with a view every 100ms and returns the time of
// the last.
func warmUp(b *testing.B, c Counter, window time.Duration) time.Time {
	now := clock.BenchStart
	for range window / (100 * ms) {
		now = now.Add(100 * ms)
		addAndCount(b, c, now)
	}
	return now
}

func addAndCount(b *testing.B, c Counter, now time.Time) {
	if err := c.Add(now, 3); err != nil {
		b.Fatalf("Add(%v, 3) = %v, want nil", now, err)
	}
	if _, err := c.Count(now); err != nil {
		b.Fatalf("Count(%v) gave error %v, want none", now, err)
	}
}
