package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Fuzz checks the stores newStore builds on random timelines: Gets and
// Puts of a few keys, and QPS over windows from a second to a week, at
// times that never go backwards and often fall between whole seconds. A
// brute-force model keeps every call: Get must return what it holds, and
// QPS must lie within the README's bounds, between Exact(w-g)/w and
// Exact(w+g)/w.
func Fuzz[S Store](f *testing.F, newStore func(clock.Clock) S) {
	f.Add([]byte{1, 0, 0, 3, 1, 1, 5, 2, 0, 3, 2, 1, 6, 2, 1, 4})
	f.Add([]byte{3, 0, 1, 8, 0, 2, 9, 2, 1, 7, 10, 2, 0, 7, 11, 2, 1, 5})
	f.Add([]byte{2, 1, 0, 12, 1, 2, 11, 0, 0, 13, 2, 0, 6, 6, 2, 1, 3, 4, 2, 1, 0})
	f.Add([]byte{5, 0, 0, 5, 0, 0, 5, 1, 2, 9, 2, 1, 7, 8, 2, 1, 7})
	newS := timeline.Erase[Store](newStore)
	f.Fuzz(func(t *testing.T, data []byte) {
		timeline.RunCase(t, fuzzCase(newS, data))
	})
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
func fuzzCase(newStore func(clock.Clock) Store, data []byte) timeline.Case[Store] {
	in := timeline.NewChoices(data)
	var (
		calls  [2][]time.Duration // the time of every call, by op
		values = map[string]string{}
		steps  []step
		now    time.Duration
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
			g := granularity(w)
			lo := exactCount(calls[o], now, w-g)
			hi := exactCount(calls[o], now, w+g)
			steps = append(steps, at(now, qpsBetween(o, w, lo, hi)))
		}
	}
	return clocked(newStore).Case(row{Name: "fuzz", Part: 2, Steps: steps})
}
