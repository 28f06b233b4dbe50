package plot

import (
	"fmt"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rateladder/rateladder/harness/clock"
)

// TokenBucket is what level 3's picture needs of a token bucket.
type TokenBucket interface {
	Allow(now time.Time) bool
	Tokens(now time.Time) float64
}

// Level3 draws a token bucket's tokens over time, with each request
// marked allowed or denied.
func Level3[B TokenBucket](newBucket func(capacity int, rate float64) B) Level {
	const (
		capacity = 5
		rate     = 2.0 // tokens a second
		span     = 14 * time.Second
		step     = 10 * time.Millisecond
	)
	return Level{Number: 3, figures: func() ([]figure, error) {
		b := newBucket(capacity, rate)
		traffic := bucketTraffic()
		var tokens, allowed, denied plotter.XYs
		next := 0
		for at := time.Duration(0); at <= span; at += step {
			// The requests up to now, each at its own instant, with the
			// level just before and just after it, then the level at now.
			// Tokens changes nothing.
			for next < len(traffic) && traffic[next] <= at {
				t := clock.Epoch.Add(traffic[next])
				x := traffic[next].Seconds()
				before := b.Tokens(t)
				ok := b.Allow(t)
				after := b.Tokens(t)
				tokens = append(tokens, plotter.XY{X: x, Y: before}, plotter.XY{X: x, Y: after})
				if ok {
					allowed = append(allowed, plotter.XY{X: x, Y: after})
				} else {
					denied = append(denied, plotter.XY{X: x, Y: before})
				}
				next++
			}
			tokens = append(tokens, plotter.XY{X: at.Seconds(), Y: b.Tokens(clock.Epoch.Add(at))})
		}
		p := newPanel(fmt.Sprintf("Level 3: a token bucket of %d tokens, refilled at %g a second", capacity, rate),
			"time (seconds)", "tokens in the bucket")
		p.Y.Max = capacity + 2
		p.X.Max = span.Seconds()
		p.X.Tick.Marker = ticks(span.Seconds(), 1, 2)
		p.Y.Tick.Marker = ticks(capacity+2, 1, 1)
		horizontal(p, fmt.Sprintf("capacity: %d tokens", capacity), capacity, span.Seconds(), colorLimit)
		line(p, "Tokens(now)", tokens, colorCount, vg.Points(1.5), false)
		marks(p, fmt.Sprintf("allowed request (%d), tokens after it", len(allowed)), allowed, colorAllowed, true)
		marks(p, fmt.Sprintf("denied request (%d): less than one token", len(denied)), denied, colorDenied, false)
		return []figure{{name: "level-3-token-bucket.svg", panels: panelsOf(p), width: 10 * vg.Inch, height: 4.5 * vg.Inch}}, nil
	}}
}

// bucketTraffic is a burst that empties the bucket, a steady stream
// faster than the refill, a pause long enough to fill it to the brim, and
// another burst.
func bucketTraffic() []time.Duration {
	var out []time.Duration
	add := func(from time.Duration, n int, every time.Duration) {
		for i := 0; i < n; i++ {
			out = append(out, from+time.Duration(i)*every)
		}
	}
	add(1*time.Second, 8, 50*time.Millisecond)
	add(3*time.Second, 13, 333*time.Millisecond)
	add(11*time.Second, 8, 80*time.Millisecond)
	return out
}
