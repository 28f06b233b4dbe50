package spec

import (
	"strconv"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Benchmark measures ShouldPrint in steady state, with allocations
// reported: messages that repeat while they are blocked, messages never
// seen in the last interval, and a mix of the two. One call every
// microsecond, with a one-millisecond interval, so a thousand calls fall in
// each interval. The messages are built before the clock starts, so the
// numbers are the logger's alone.
func Benchmark[L Logger](b *testing.B, newLogger func(interval time.Duration) L) {
	hot := messages("hot", 100)     // each comes round every 100 calls: refused 9 times out of 10
	cold := messages("cold", 1<<16) // each comes round after 65ms: printed every time
	const (
		interval = time.Millisecond
		gap      = time.Microsecond
	)
	for _, bc := range []struct {
		name string
		pick func(i int) string
	}{
		{"repeated", func(i int) string { return hot[i%len(hot)] }},
		{"fresh", func(i int) string { return cold[i%len(cold)] }},
		{"mixed_1_in_10_fresh", func(i int) string {
			if i%10 == 0 {
				return cold[(i/10)%len(cold)]
			}
			return hot[i%len(hot)]
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := newLogger(interval)
			now := clock.BenchStart
			i := 0
			call := func() {
				now = now.Add(gap)
				l.ShouldPrint(now, bc.pick(i))
				i++
			}
			for range 4 * len(cold) { // warm up: go through the cold messages a few times
				call()
			}
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
}

// messages returns n distinct messages that start with prefix.
func messages(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + " message " + strconv.Itoa(i)
	}
	return out
}
