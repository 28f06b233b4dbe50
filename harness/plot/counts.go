package plot

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"time"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rateladder/rateladder/harness/clock"
)

// HitCounter is what level 1's picture needs of a hit counter.
type HitCounter interface {
	Hit(now time.Time)
	Count(now time.Time) int
}

// Cafe is what level 4's picture needs of a café's counts.
type Cafe interface {
	Order(now time.Time, drink string)
	Total(now time.Time) int
}

// PageViews is what level 5's picture needs of a bucketed counter.
type PageViews interface {
	Add(now time.Time, views int) error
	Count(now time.Time) (int, error)
}

// QPSStore is what level 7's picture needs of a store: Op is the level's
// own type of operation.
type QPSStore[Op any] interface {
	Put(key, value string)
	QPS(op Op, window time.Duration) float64
}

// The counting levels' traffic: five minutes of hits, counted over the
// last minute.
const (
	countSpan   = 5 * time.Minute
	countWindow = time.Minute
	countStep   = 250 * time.Millisecond
	pageBucket  = 10 * time.Second
)

// Level1 draws a hit counter's Count over time against the exact count.
func Level1[C HitCounter](newCounter func(window time.Duration) C) Level {
	return countLevel(1, "level-1-hit-counter.svg", "Level 1: hits in the last minute, Count(now) against the exact count",
		"hits", "Count(now)", func() (add func(at time.Duration), count func(at time.Duration) (float64, error)) {
			c := newCounter(countWindow)
			add = func(at time.Duration) { c.Hit(clock.Epoch.Add(at)) }
			count = func(at time.Duration) (float64, error) { return float64(c.Count(clock.Epoch.Add(at))), nil }
			return add, count
		})
}

// Level4 draws a café's Total over time against the exact count.
func Level4[C Cafe](newCafe func(window time.Duration) C) Level {
	drinks := []string{"latte", "espresso", "tea", "mocha"}
	return countLevel(4, "level-4-cafe-counts.svg", "Level 4: orders in the last minute, Total(now) against the exact count",
		"orders", "Total(now)", func() (add func(at time.Duration), count func(at time.Duration) (float64, error)) {
			c := newCafe(countWindow)
			n := 0
			add = func(at time.Duration) {
				c.Order(clock.Epoch.Add(at), drinks[n%len(drinks)])
				n++
			}
			count = func(at time.Duration) (float64, error) { return float64(c.Total(clock.Epoch.Add(at))), nil }
			return add, count
		})
}

// Level5 draws a bucketed counter's Count over time against the exact
// count: the difference is the price of keeping buckets.
func Level5[C PageViews](newCounter func(window, bucket time.Duration) C) Level {
	return countLevel(5, "level-5-page-views.svg",
		fmt.Sprintf("Level 5: views in the last minute, in %s buckets, against the exact count", human(pageBucket)),
		"views", fmt.Sprintf("Count(now), %s buckets", human(pageBucket)),
		func() (add func(at time.Duration), count func(at time.Duration) (float64, error)) {
			c := newCounter(countWindow, pageBucket)
			add = func(at time.Duration) {
				if err := c.Add(clock.Epoch.Add(at), 1); err != nil {
					panic(fmt.Sprintf("Add(t=%v, 1) returned an error: %v", at, err))
				}
			}
			count = func(at time.Duration) (float64, error) {
				n, err := c.Count(clock.Epoch.Add(at))
				if err != nil {
					return 0, fmt.Errorf("level 5: Count(t=%v) returned an error: %v", at, err)
				}
				return float64(n), nil
			}
			return add, count
		})
}

// countLevel is the Level of a counting level, levels 1, 4 and 5: one
// figure, file, of countTraffic played into a fresh implementation and
// asked every countStep for its count over countWindow, drawn against
// the exact count. start builds the implementation, and says how to add
// an arrival to it and how to ask it for its count.
func countLevel(number int, file, title, yUnit, label string,
	start func() (add func(at time.Duration), count func(at time.Duration) (float64, error))) Level {
	return Level{Number: number, figures: func() ([]figure, error) {
		add, count := start()
		s := countSeries(countTraffic(), countWindow, countSpan, countStep, add, count)
		if s.err != nil {
			return nil, s.err
		}
		s.label = label
		return []figure{countFigure(file, title, yUnit, countSpan, s)}, nil
	}}
}

// Level7 draws a store's QPS(put, window) over time against the exact
// rate, for a window counted in seconds and one counted in minutes.
func Level7[S QPSStore[Op], Op any](newStore func(c clock.Clock) S, put Op) Level {
	const (
		span = 3 * time.Hour
		step = 15 * time.Second
	)
	windows := []time.Duration{5 * time.Minute, 2 * time.Hour}
	return Level{Number: 7, figures: func() ([]figure, error) {
		traffic := qpsTraffic(span)
		var series []series
		for _, w := range windows {
			fake := clock.NewFake()
			s := newStore(fake)
			sr := countSeries(traffic, w, span, step,
				func(at time.Duration) {
					fake.Set(clock.Epoch.Add(at))
					s.Put("key", "value")
				},
				func(at time.Duration) (float64, error) {
					fake.Set(clock.Epoch.Add(at))
					return s.QPS(put, w) * w.Seconds(), nil
				})
			sr.label = fmt.Sprintf("QPS(Put, %s) (counted in %s)", human(w), map[bool]string{true: "seconds", false: "minutes"}[w <= time.Hour])
			// Show calls per second, the unit QPS answers in.
			for i := range sr.got {
				sr.got[i].Y /= w.Seconds()
				sr.exact[i].Y /= w.Seconds()
			}
			series = append(series, sr)
		}
		return []figure{countFigure("level-7-qps-store.svg",
			"Level 7: Puts per second over two windows, QPS against the exact rate", "Puts per second", span, series...)}, nil
	}}
}

// series is one counter's answers over time, beside the exact answers.
type series struct {
	label      string
	window     time.Duration
	got, exact plotter.XYs // X in the figure's time unit
	err        error
}

// countSeries plays traffic (sorted offsets) into an implementation with
// add, and asks it with count every step up to span, in time order. The
// exact count at t is the number of arrivals in (t-window, t].
func countSeries(traffic []time.Duration, window, span, step time.Duration,
	add func(at time.Duration), count func(at time.Duration) (float64, error)) series {
	unit := timeUnit(span)
	s := series{window: window}
	next := 0
	for at := time.Duration(0); at <= span; at += step {
		for next < len(traffic) && traffic[next] <= at {
			add(traffic[next])
			next++
		}
		got, err := count(at)
		if err != nil {
			s.err = err
			return s
		}
		x := float64(at) / float64(unit)
		s.got = append(s.got, plotter.XY{X: x, Y: got})
		s.exact = append(s.exact, plotter.XY{X: x, Y: float64(exactCount(traffic, at, window))})
	}
	return s
}

// exactCount is the number of offsets in (at-window, at] of sorted traffic.
func exactCount(traffic []time.Duration, at, window time.Duration) int {
	hi := sort.Search(len(traffic), func(i int) bool { return traffic[i] > at })
	lo := sort.Search(len(traffic), func(i int) bool { return traffic[i] > at-window })
	return hi - lo
}

// countFigure draws, for each series, its answers over the exact ones,
// and below them the difference, where a bucketed counter's error shows.
func countFigure(name, title, yUnit string, span time.Duration, all ...series) figure {
	xLabel := "time (" + unitName(timeUnit(span)) + ")"
	var panels []*gonum.Plot
	for i, s := range all {
		t := title
		if i > 0 {
			t = ""
		}
		p := newPanel(t, xLabel, fmt.Sprintf("%s in the last %s", yUnit, human(s.window)))
		// Room above the curves for the legend.
		top := 0.0
		for j := range s.got {
			top = math.Max(top, math.Max(s.got[j].Y, s.exact[j].Y))
		}
		p.Y.Max = 1.3 * top
		line(p, fmt.Sprintf("exact: arrivals in (now − %s, now]", human(s.window)), s.exact, colorExact, vg.Points(5), false)
		line(p, s.label, s.got, colorCount, vg.Points(1.2), false)
		panels = append(panels, p)
	}
	diff := newPanel("", xLabel, "counted − exact ("+yUnit+")")
	diff.Y.Min = math.Inf(1) // let the data decide: the error may be negative
	diff.Legend.Top = false
	colors := []color.Color{colorCount, colorSecond}
	worst := 0.0
	for i, s := range all {
		d := make(plotter.XYs, len(s.got))
		for j := range s.got {
			d[j] = plotter.XY{X: s.got[j].X, Y: s.got[j].Y - s.exact[j].Y}
			worst = math.Max(worst, math.Abs(d[j].Y))
		}
		line(diff, "error of "+s.label, d, colors[i%len(colors)], vg.Points(1.2), false)
	}
	if worst == 0 {
		diff.Title.Text = "the error is 0 everywhere: the count is exact"
		diff.Y.Min, diff.Y.Max = -1, 1
	} else {
		diff.Title.Text = fmt.Sprintf("the error: at most %.3g %s off", worst, yUnit)
	}
	diff.Title.TextStyle.Font.Size = vg.Points(11)
	panels = append(panels, diff)
	return figure{name: name, panels: panels, width: 10 * vg.Inch, height: vg.Length(3.2*float64(len(panels))) * vg.Inch}
}

// timeUnit is the unit in which a span reads best on an axis.
func timeUnit(span time.Duration) time.Duration {
	switch {
	case span > 2*time.Hour:
		return time.Hour
	case span > 10*time.Minute:
		return time.Minute
	}
	return time.Second
}

func unitName(u time.Duration) string {
	switch u {
	case time.Hour:
		return "hours"
	case time.Minute:
		return "minutes"
	}
	return "seconds"
}

// countTraffic is five minutes of hits: about one a second, with bursts
// whose edges leave the window at different moments.
func countTraffic() []time.Duration {
	var out []time.Duration
	perSecond := func(s int) int {
		switch {
		case s >= 40 && s < 50:
			return 6
		case s >= 130 && s < 134:
			return 12
		case s >= 200 && s < 230:
			return 3
		case s%7 == 0:
			return 0
		}
		return 1 + s%3/2
	}
	for s := 0; s < int(countSpan/time.Second); s++ {
		n := perSecond(s)
		for k := 0; k < n; k++ {
			// Spread a second's hits over it, off the bucket edges.
			out = append(out, time.Duration(s)*time.Second+time.Duration(k*1000/n+37)*time.Millisecond)
		}
	}
	return out
}

// qpsTraffic is Puts over span: one every two seconds, with a burst of
// four a second for 40 seconds every seven minutes.
func qpsTraffic(span time.Duration) []time.Duration {
	var out []time.Duration
	for s := time.Duration(0); s < span; s += time.Second {
		n := int(s/time.Second) % 2
		if s%(7*time.Minute) < 40*time.Second {
			n = 4
		}
		for k := 0; k < n; k++ {
			out = append(out, s+time.Duration(k)*time.Second/time.Duration(n)+time.Millisecond*100)
		}
	}
	return out
}
