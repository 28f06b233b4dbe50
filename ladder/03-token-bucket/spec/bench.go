package spec

import (
	"testing"
	"time"
)

// benchStart is where every benchmark's clock starts: a working morning in
// this century, not the epoch, so that the code runs at the times it will
// meet in service. Near the epoch, a week back is before 1970, and code
// indexed by absolute time takes paths it never takes in production.
var benchStart = time.Date(2025, time.March, 3, 9, 30, 0, 0, time.UTC)

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
			now := benchStart
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
