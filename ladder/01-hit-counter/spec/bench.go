package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Benchmark measures Hit and Count in steady state, at a thousand and at a
// million hits a second, with allocations reported.
func Benchmark[C Counter](b *testing.B, newCounter func(window time.Duration) C) {
	for _, bc := range []struct {
		name string
		gap  time.Duration // between hits; the window is one second
	}{
		{"1k_per_sec", time.Millisecond},
		{"1M_per_sec", time.Microsecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := newCounter(time.Second)
			now := clock.BenchStart
			for range int(time.Second / bc.gap) { // one full window first
				now = now.Add(bc.gap)
				c.Hit(now)
			}
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(bc.gap)
				c.Hit(now)
				c.Count(now)
			}
		})
	}
}
