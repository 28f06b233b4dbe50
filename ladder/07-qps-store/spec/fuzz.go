package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// fuzzSeeds are the fuzz target's seed inputs. The spec's own tests play
// them too: against the right store, and to check the part each is
// labelled with. The first four ask for windows of five minutes at most.
var fuzzSeeds = [][]byte{
	{1, 0, 0, 3, 1, 1, 5, 2, 0, 3, 2, 1, 6, 2, 1, 4},
	{3, 0, 1, 8, 0, 2, 9, 2, 1, 7, 10, 2, 0, 7, 11, 2, 1, 5},
	{2, 1, 0, 12, 1, 2, 11, 0, 0, 13, 2, 0, 6, 6, 2, 1, 3, 4, 2, 1, 0},
	{5, 0, 0, 5, 0, 0, 5, 1, 2, 9, 2, 1, 7, 8, 2, 1, 7},
	// Part 2's: Puts an hour apart, then QPS over 2h, a day and a week,
	// before and after the Puts leave the week.
	{10, 0, 0, 0, 9, 0, 1, 1, 0, 2, 1, 6, 11, 1, 0, 7, 2, 0, 7, 0, 2, 1, 8, 12, 2, 1, 8, 5, 2, 1, 5},
}

// Fuzz checks the stores newStore builds on random timelines: Gets and
// Puts of a few keys, and QPS over windows from a second to a week, at
// times that never go backwards and often fall between whole seconds. A
// brute-force model keeps every call: Get must return what it holds, and
// QPS must lie within the README's bounds, between Exact(w-g)/w and
// Exact(w+g)/w.
func Fuzz[S Store](f *testing.F, newStore func(clock.Clock) S) {
	timeline.Fuzz(f, fuzzSeeds, timeline.Erase[Store](newStore), fuzzCase)
}

var (
	// Gaps between calls, chosen to land on and near the buckets' edges.
	fuzzGaps = []time.Duration{
		0, ns, 300 * ms, sec - ns, sec, 59 * sec, minute, minute + 500*ms,
		5 * minute, hour - ns, hour, day, week, week + minute,
	}
	fuzzWindows = []time.Duration{
		sec, 1500 * ms, minute, 5 * minute, hour, hour + sec, 2 * hour, day, week,
	}
	fuzzKeys = []string{"a", "b", "c"}
)

// fuzzCase decodes data into a timeline whose wants come from the model.
// Its part is 2 if it asks for a window over five minutes, and 1 if not:
// it never calls from two goroutines, so it is never part 3's.
func fuzzCase(newStore func(clock.Clock) Store, data []byte) timeline.Case[Store] {
	in := timeline.NewChoices(data)
	var (
		calls  [2][]time.Duration // the time of every call, by op
		values = map[string]string{}
		steps  []step
		now    time.Duration
		part   = 1
	)
	for in.More() && len(steps) < 200 {
		now += timeline.Pick(in, fuzzGaps...)
		switch in.Intn(3) {
		case 0:
			key := timeline.Pick(in, fuzzKeys...)
			value := timeline.Pick(in, "x", "y", "")
			values[key] = value
			calls[put] = append(calls[put], now)
			steps = append(steps, at(now, putCall(key, value)))
		case 1:
			key := timeline.Pick(in, fuzzKeys...)
			value, ok := values[key]
			calls[get] = append(calls[get], now)
			steps = append(steps, at(now, getCall(key, value, ok)))
		default:
			o := op(in.Intn(2))
			w := timeline.Pick(in, fuzzWindows...)
			if w > 5*minute {
				part = 2
			}
			g := granularity(w)
			lo := exactCount(calls[o], now, w-g)
			hi := exactCount(calls[o], now, w+g)
			steps = append(steps, at(now, qpsBetween(o, w, lo, hi)))
		}
	}
	return timeline.Bind(clocked(newStore), row{Name: "fuzz", Part: part, Steps: steps})[0]
}
