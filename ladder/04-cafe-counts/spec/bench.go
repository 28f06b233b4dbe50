package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Benchmark measures a steady stream of orders over a hundred drinks, with
// 10,000 orders in the window, and allocations reported. "order" makes the
// calls that must not allocate; "board" adds a Counts per order, whose new
// map is the one allocation the API asks for.
func Benchmark[C Cafe](b *testing.B, newCafe func(window time.Duration) C) {
	const (
		window = 10 * time.Second
		gap    = time.Millisecond // 10,000 orders in every window
	)
	for _, bc := range []struct {
		name  string
		board bool
	}{
		{"order", false},
		{"board", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := newCafe(window)
			now := clock.BenchStart
			i := 0
			for range int(window / gap) { // one full window first
				now = now.Add(gap)
				c.Order(now, menu[i%len(menu)])
				i++
			}
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(gap)
				drink := menu[i%len(menu)]
				i++
				c.Order(now, drink)
				if bc.board {
					c.Counts(now)
					continue
				}
				c.Count(now, drink)
				c.Total(now)
				c.Distinct(now)
			}
		})
	}
}
