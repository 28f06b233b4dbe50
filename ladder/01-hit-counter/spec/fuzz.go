package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// fuzzSeeds are the fuzz target's seed inputs. The spec's own tests play
// them too, to check the part each is labelled with.
var fuzzSeeds = [][]byte{
	{2, 0, 1, 3, 0, 5, 1, 6, 1},
	{0, 1, 0, 2, 1, 4, 0, 7, 1, 5, 1},
	{4, 0, 0, 0, 0, 7, 1, 8, 1, 6, 1},
}

// Fuzz checks the counters newCounter builds against a brute-force model
// that keeps every hit and counts by scanning, on random timelines whose
// times never go backwards.
func Fuzz[C Counter](f *testing.F, newCounter func(window time.Duration) C) {
	timeline.Fuzz(f, fuzzSeeds, timeline.Erase[Counter](newCounter), fuzzCase)
}

var fuzzWindows = []time.Duration{ns, ms, sec, 7 * sec, minute}

// fuzzCase decodes data into a timeline whose wants come from the model.
func fuzzCase(newCounter func(time.Duration) Counter, data []byte) timeline.Case[Counter] {
	in := timeline.NewChoices(data)
	window := timeline.Pick(in, fuzzWindows...)
	// Gaps between calls, chosen to land near the window's edges.
	gaps := []time.Duration{0, ns, ms, window - ns, window, window + ns, window / 2, 3 * window}
	var (
		model []time.Duration // every hit, as an offset
		steps []step
		now   time.Duration
	)
	for in.More() && len(steps) < 200 {
		if g := timeline.Pick(in, gaps...); g > 0 {
			now += g
		}
		if in.Intn(2) == 0 {
			model = append(model, now)
			steps = append(steps, at(now, hit()))
			continue
		}
		n := 0
		for _, h := range model {
			if h > now-window && h <= now {
				n++
			}
		}
		steps = append(steps, at(now, count(n)))
	}
	return timeline.Bind(timeline.Unclocked(newCounter), row{Name: "fuzz", Part: 1, Arg: window, Steps: steps})[0]
}
