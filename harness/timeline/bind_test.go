package timeline_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// window is a toy implementation for the binding's tests: it remembers how
// it was built.
type window struct {
	size  time.Duration
	clock clock.Clock
}

func (w *window) Size() time.Duration { return w.size }

type sizer interface{ Size() time.Duration }

func size(want time.Duration) timeline.Call[sizer] {
	return timeline.Call[sizer]{
		Method: "Size",
		Do:     func(s sizer, _ time.Time) any { return s.Size() },
		Want:   want,
	}
}

func TestBindMakesACaseOfEachRow(t *testing.T) {
	start := clock.Epoch.Add(time.Hour)
	var probed []string
	rows := []timeline.Row[sizer, time.Duration]{
		{Name: "a", Part: 1, Arg: 5 * time.Minute, Steps: []timeline.Step[sizer]{timeline.At(0, size(5*time.Minute))}},
		{
			Name: "b", Part: 2, Arg: time.Second, Start: start,
			Steps: []timeline.Step[sizer]{timeline.At(3*time.Second, size(time.Second))},
			Probe: func(s sizer, env timeline.Env[sizer, time.Duration]) error {
				other := env.New(7 * time.Second)
				probed = append(probed, fmt.Sprintf("%v %v %v", s.Size(), other.Size(), env.Clock.Now().Sub(start)))
				return nil
			},
		},
	}
	cases := timeline.Bind(timeline.Unclocked(timeline.Erase[sizer](func(d time.Duration) *window { return &window{size: d} })), rows...)
	if len(cases) != 2 {
		t.Fatalf("Bind made %d cases of 2 rows", len(cases))
	}
	for i, want := range []struct {
		name, setup string
		part        int
		start       time.Time
		probe       bool
	}{
		{"a", "New(5m)", 1, time.Time{}, false},
		{"b", "New(1s)", 2, start, true},
	} {
		c := cases[i]
		if c.Name != want.name || c.Setup != want.setup || c.Part != want.part || !c.Start.Equal(want.start) || (c.Probe != nil) != want.probe || c.Clocked {
			t.Errorf("case %d = {Name %q, Setup %q, Part %d, Start %v, probe %t, Clocked %t}, want {%q, %q, %d, %v, %t, false}",
				i, c.Name, c.Setup, c.Part, c.Start, c.Probe != nil, c.Clocked, want.name, want.setup, want.part, want.start, want.probe)
		}
		if o := timeline.Play(c); o.Verdict != protocol.Pass {
			t.Errorf("case %q: %s", c.Name, o.Report)
		}
	}
	// The probe ran on the case's own implementation and clock, at the
	// last step's instant, and built a second one from its argument.
	if got, want := strings.Join(probed, "; "), "1s 7s 3s"; got != want {
		t.Errorf("the probe saw %q, want %q", got, want)
	}
}

func TestBindBuildsOnTheCasesClock(t *testing.T) {
	var built []clock.Clock
	b := timeline.Binding[sizer, struct{}]{
		New: func(clk clock.Clock, _ struct{}) sizer {
			built = append(built, clk)
			return &window{clock: clk}
		},
		Setup:   func(struct{}) string { return "New(clock)" },
		Clocked: true,
	}
	rows := []timeline.Row[sizer, struct{}]{{
		Name: "clocked", Part: 1,
		Probe: func(s sizer, env timeline.Env[sizer, struct{}]) error {
			if s.(*window).clock != clock.Clock(env.Clock) {
				return fmt.Errorf("the implementation has another clock than the probe")
			}
			env.New(struct{}{})
			return nil
		},
	}}
	c := timeline.Bind(b, rows...)[0]
	if !c.Clocked || c.Setup != "New(clock)" {
		t.Errorf("Clocked = %t, Setup = %q; want true, %q", c.Clocked, c.Setup, "New(clock)")
	}
	if o := timeline.Play(c); o.Verdict != protocol.Pass {
		t.Fatal(o.Report)
	}
	if len(built) != 2 || built[0] != built[1] {
		t.Errorf("built on %v, want twice on the case's clock", built)
	}
}

// pair is a constructor argument of two values, written as the report
// should show them.
type pair struct{ capacity, rate int }

func (p pair) String() string { return fmt.Sprintf("%d, %d", p.capacity, p.rate) }

func TestUnclockedWritesTheArgument(t *testing.T) {
	if got := timeline.Unclocked(func(p pair) sizer { return nil }).Setup(pair{3, 1}); got != "New(3, 1)" {
		t.Errorf("Setup(pair{3, 1}) = %q, want %q", got, "New(3, 1)")
	}
	if got := timeline.Unclocked(func(d time.Duration) sizer { return nil }).Setup(90 * time.Minute); got != "New(1h30m)" {
		t.Errorf("Setup(90m) = %q, want %q", got, "New(1h30m)")
	}
	if got := timeline.Unclocked(func(n int) sizer { return nil }).Setup(10); got != "New(10)" {
		t.Errorf("Setup(10) = %q, want %q", got, "New(10)")
	}
}

func TestEraseConverts(t *testing.T) {
	w := &window{size: time.Second}
	if got := timeline.Erase[sizer](func(time.Duration) *window { return w })(0); got != sizer(w) {
		t.Errorf("Erase gave %v, want the constructor's %v", got, w)
	}
	if got := timeline.Erase[sizer](func(time.Duration) sizer { return nil })(0); got != nil {
		t.Errorf("Erase of a nil interface gave %v, want nil", got)
	}
	msg, panicked := timeline.PanicMessage(func() {
		timeline.Erase[sizer](func(time.Duration) int { return 1 })(0)
	})
	if want := "int does not implement timeline_test.sizer"; !panicked || !strings.Contains(msg, want) {
		t.Errorf("Erase of an int: panicked %t with %q, want a panic naming %q", panicked, msg, want)
	}
}
