package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Benchmark measures Allow in steady state, with allocations reported:
// once with every call allowed (one call per token), and once with every
// other call denied (two calls per token).
func Benchmark[B Bucket](b *testing.B, newBucket func(capacity int, rate float64) B) {
	for _, bc := range []struct {
		name string
		gap  time.Duration // between calls; the bucket gains a token every millisecond
	}{
		{"all_allowed", time.Millisecond},
		{"half_denied", time.Millisecond / 2},
	} {
		b.Run(bc.name, func(b *testing.B) {
			bucket := newBucket(10, 1000)
			now := clock.BenchStart
			for range 20 { // drain the burst first
				bucket.Allow(now)
			}
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(bc.gap)
				bucket.Allow(now)
			}
		})
	}
}
