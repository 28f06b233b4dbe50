package plot

import (
	"fmt"
	"sort"
	"time"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// Throttler is what level 8's pictures need of a throttler.
type Throttler interface {
	Allow(client string) limits.Decision
}

// The limit of the algorithm figure: 10 requests per 10 seconds.
const (
	throttleRequests = 10
	throttlePer      = 10 * time.Second
	throttleSpan     = 50 * time.Second
	throttleStep     = 20 * time.Millisecond
)

// Level8 draws two figures: the three algorithms on the same bursty
// traffic, and a group limit shared by two clients.
func Level8[T Throttler](newThrottler func(c clock.Clock, cfg limits.Config) (T, error)) Level {
	return Level{Number: 8, figures: func() ([]figure, error) {
		algs, err := algorithmsFigure(newThrottler)
		if err != nil {
			return nil, err
		}
		group, err := groupFigure(newThrottler)
		if err != nil {
			return nil, err
		}
		return []figure{algs, group}, nil
	}}
}

// request is one request of a client at an offset from the epoch.
type request struct {
	at     time.Duration
	client string
}

// decided is a request with the throttler's answer.
type decided struct {
	request
	allowed bool
}

// play sends the requests, in time order, to a throttler made with cfg.
func play[T Throttler](newThrottler func(clock.Clock, limits.Config) (T, error), cfg limits.Config, reqs []request) ([]decided, error) {
	fake := clock.NewFake()
	th, err := newThrottler(fake, cfg)
	if err != nil {
		return nil, fmt.Errorf("level 8: New(clock, %+v) returned an error: %v", cfg, err)
	}
	out := make([]decided, len(reqs))
	for i, r := range reqs {
		fake.Set(clock.Epoch.Add(r.at))
		out[i] = decided{request: r, allowed: th.Allow(r.client).Allowed}
	}
	return out, nil
}

// rolling counts the allowed requests of ds (of any client accepted by
// keep) in (at-per, at], for a sorted ds.
type rolling struct {
	times []time.Duration
}

func newRolling(ds []decided, keep func(decided) bool) rolling {
	var r rolling
	for _, d := range ds {
		if d.allowed && keep(d) {
			r.times = append(r.times, d.at)
		}
	}
	return r
}

func (r rolling) at(at, per time.Duration) int {
	return exactCount(r.times, at, per)
}

// curve samples r every throttleStep up to span, and returns the largest
// value too, with the first instant it is reached.
func (r rolling) curve(per, span time.Duration) (pts plotter.XYs, most int, peak time.Duration) {
	for at := time.Duration(0); at <= span; at += throttleStep {
		pts = append(pts, plotter.XY{X: at.Seconds(), Y: float64(r.at(at, per))})
	}
	// The peaks fall on the requests' instants.
	for _, t := range r.times {
		if n := r.at(t, per); n > most {
			most, peak = n, t
		}
	}
	return pts, most, peak
}

// requestMarks returns the points at which to mark the requests: at the
// rolling count just after each one, so that a burst reads as a column.
func requestMarks(ds []decided, r rolling, per time.Duration) (allowed, denied plotter.XYs) {
	for _, d := range ds {
		pt := plotter.XY{X: d.at.Seconds(), Y: float64(r.at(d.at, per))}
		if d.allowed {
			allowed = append(allowed, pt)
		} else {
			denied = append(denied, pt)
		}
	}
	return allowed, denied
}

// burstyTraffic is the algorithm figure's traffic from one client: a
// burst on each side of the boundary at 10s, a steady stream at twice the
// limit's rate, a pause, and a last burst.
func burstyTraffic() []request {
	var out []request
	add := func(from time.Duration, n int, every time.Duration) {
		for i := 0; i < n; i++ {
			out = append(out, request{at: from + time.Duration(i)*every, client: "client"})
		}
	}
	add(8*time.Second, 10, 200*time.Millisecond)  // 8.0s to 9.8s
	add(10*time.Second, 10, 200*time.Millisecond) // 10.0s to 11.8s
	add(14*time.Second, 32, 500*time.Millisecond) // 14.0s to 29.5s
	add(42*time.Second, 14, 100*time.Millisecond) // 42.0s to 43.3s
	return out
}

func algorithmsFigure[T Throttler](newThrottler func(clock.Clock, limits.Config) (T, error)) (figure, error) {
	traffic := burstyTraffic()
	algorithms := []struct {
		limit limits.Limit
		about string
	}{
		{limits.Limit{Algorithm: limits.FixedWindow, Requests: throttleRequests, Per: throttlePer},
			"its count starts again at every 10 s boundary"},
		{limits.Limit{Algorithm: limits.SlidingWindow, Requests: throttleRequests, Per: throttlePer, Buckets: 11},
			"B = 11 buckets of 1 s, the oldest weighted by its part still inside"},
		{limits.Limit{Algorithm: limits.TokenBucket, Requests: throttleRequests, Per: throttlePer},
			"10 tokens, refilled at 1 a second, starts full"},
	}
	var panels []*gonum.Plot
	for i, a := range algorithms {
		ds, err := play(newThrottler, limits.Config{PerClient: a.limit}, traffic)
		if err != nil {
			return figure{}, err
		}
		r := newRolling(ds, func(decided) bool { return true })
		curve, most, peak := r.curve(throttlePer, throttleSpan)
		ok, no := requestMarks(ds, r, throttlePer)
		title := fmt.Sprintf("%v (%s): at most %d allowed in any 10 s", a.limit.Algorithm, a.about, most)
		if most > throttleRequests {
			title = fmt.Sprintf("%v (%s): %d allowed within 10 s, %.1f× the limit",
				a.limit.Algorithm, a.about, most, float64(most)/throttleRequests)
		}
		p := newPanel(title, "time (seconds)", "allowed in the last 10 s")
		p.Title.TextStyle.Font.Size = vg.Points(12)
		secondsAxes(p, throttleSpan, 2*throttleRequests+4, 5)
		p.Legend.Left = false
		boundaries(p, i == 0)
		horizontal(p, fmt.Sprintf("the limit: %d requests per %s", throttleRequests, human(throttlePer)),
			throttleRequests, throttleSpan.Seconds(), colorLimit)
		line(p, "allowed requests in (now − 10 s, now]", curve, colorCount, vg.Points(1.4), false)
		marks(p, fmt.Sprintf("allowed request (%d)", len(ok)), ok, colorAllowed, true)
		marks(p, fmt.Sprintf("denied request (%d)", len(no)), no, colorDenied, false)
		if most > throttleRequests {
			note(p, peak.Seconds(), float64(most)+0.6, fmt.Sprintf("%d allowed in (%s, %s]",
				most, human(peak-throttlePer), human(peak)))
		}
		panels = append(panels, p)
	}
	return figure{
		name:   "level-8-algorithms.svg",
		title:  fmt.Sprintf("Level 8: the same %d requests through three algorithms, each limited to %d per %s", len(traffic), throttleRequests, human(throttlePer)),
		panels: panels, width: 11 * vg.Inch, height: 11 * vg.Inch,
	}, nil
}

// secondsAxes sets a panel's axes: time from 0 to span, a tick every
// second and a label every 5; counts from 0 to yMax, a tick every one and
// a label every yLabels.
func secondsAxes(p *gonum.Plot, span time.Duration, yMax float64, yLabels int) {
	p.X.Max = span.Seconds()
	p.Y.Max = yMax
	p.X.Tick.Marker = ticks(span.Seconds(), 1, 5)
	p.Y.Tick.Marker = ticks(yMax, 1, yLabels)
}

// boundaries draws the fixed windows' edges as dotted vertical lines.
func boundaries(p *gonum.Plot, inLegend bool) {
	for k := time.Duration(1); k*throttlePer < throttleSpan; k++ {
		x := (k * throttlePer).Seconds()
		l, _ := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: 2*throttleRequests + 4}})
		l.Color = colorGuide
		l.Width = vg.Points(0.8)
		l.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
		p.Add(l)
		if inLegend && k == 1 {
			p.Legend.Add("fixed-window boundary", l)
		}
	}
}

// The group figure: two clients with 6 requests per 10 s each, in one
// group that allows 10 per 10 s for both together.
const (
	groupClientLimit = 6
	groupLimit       = 10
	groupSpan        = 45 * time.Second
)

func groupTraffic() []request {
	var out []request
	for at := time.Duration(0); at < 40*time.Second; at += 500 * time.Millisecond {
		out = append(out, request{at: at, client: "alice"})
		if at >= 15*time.Second {
			out = append(out, request{at: at + 250*time.Millisecond, client: "bob"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

func groupFigure[T Throttler](newThrottler func(clock.Clock, limits.Config) (T, error)) (figure, error) {
	limit := func(n int) limits.Limit {
		// Eleven buckets of one second: close to an exact sliding window.
		return limits.Limit{Algorithm: limits.SlidingWindow, Requests: n, Per: throttlePer, Buckets: 11}
	}
	cfg := limits.Config{
		PerClient: limit(groupClientLimit),
		Groups:    []limits.Group{{Name: "team", Limit: limit(groupLimit), Clients: []string{"alice", "bob"}}},
	}
	traffic := groupTraffic()
	ds, err := play(newThrottler, cfg, traffic)
	if err != nil {
		return figure{}, err
	}
	var panels []*gonum.Plot
	curves := map[string]plotter.XYs{}
	for i, client := range []string{"alice", "bob"} {
		r := newRolling(ds, func(d decided) bool { return d.client == client })
		var mine []decided
		for _, d := range ds {
			if d.client == client {
				mine = append(mine, d)
			}
		}
		curve, _, _ := r.curve(throttlePer, groupSpan)
		curves[client] = curve
		ok, no := requestMarks(mine, r, throttlePer)
		about := "sends 2 a second from 0 s"
		if client == "bob" {
			about = "joins at 15 s, 2 a second"
		}
		p := newPanel(fmt.Sprintf("%s (%s): allowed %d of %d", client, about, len(ok), len(mine)),
			"time (seconds)", "allowed in the last 10 s")
		if i == 0 {
			p.Title.Text = "Level 8: a group limit shared by two clients\n" + p.Title.Text
		}
		secondsAxes(p, groupSpan, groupLimit+2, 2)
		horizontal(p, fmt.Sprintf("per-client limit: %d per %s", groupClientLimit, human(throttlePer)), groupClientLimit, groupSpan.Seconds(), colorLimit)
		line(p, client+"'s allowed requests in (now − 10 s, now]", curve, colorCount, vg.Points(1.4), false)
		marks(p, "allowed request", ok, colorAllowed, true)
		marks(p, "denied request", no, colorDenied, false)
		panels = append(panels, p)
	}
	total := newRolling(ds, func(decided) bool { return true })
	sum, most, _ := total.curve(throttlePer, groupSpan)
	p := newPanel(fmt.Sprintf(`the group "team" (alice and bob): at most %d allowed in any 10 s`, most),
		"time (seconds)", "allowed in the last 10 s")
	secondsAxes(p, groupSpan, groupLimit+6, 2)
	horizontal(p, fmt.Sprintf("group limit: %d per %s, shared", groupLimit, human(throttlePer)), groupLimit, groupSpan.Seconds(), colorDenied)
	horizontal(p, fmt.Sprintf("per-client limit: %d per %s", groupClientLimit, human(throttlePer)), groupClientLimit, groupSpan.Seconds(), colorLimit)
	line(p, "alice", curves["alice"], colorCount, vg.Points(1.2), false)
	line(p, "bob", curves["bob"], colorSecond, vg.Points(1.2), false)
	line(p, "alice + bob", sum, colorLimit, vg.Points(2.2), false)
	panels = append(panels, p)
	return figure{name: "level-8-group.svg", panels: panels, width: 10 * vg.Inch, height: 10 * vg.Inch}, nil
}
