package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// fuzzSeeds are the fuzz target's seed inputs. The spec's own tests play
// them too, to check the part each is labelled with.
var fuzzSeeds = [][]byte{
	{2, 0, 0, 0, 1, 0, 0, 1, 6, 3, 6, 4, 7, 3},
	{0, 0, 1, 0, 1, 1, 0, 2, 0, 1, 5, 3, 0, 6, 4, 7, 5},
	{1, 0, 0, 5, 1, 0, 1, 4, 2, 0, 2, 3, 0, 0, 3, 2, 3, 6, 4, 6, 7, 4, 1, 6},
	{3, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 5, 0, 7, 7, 6, 7, 6, 7, 6},
}

// Fuzz checks the aggregators newAggregator builds against the brute-force
// model, on random timelines whose times never go backwards.
func Fuzz[A Aggregator](f *testing.F, newAggregator func(window time.Duration) A) {
	timeline.Fuzz(f, fuzzSeeds, timeline.Erase[Aggregator](newAggregator), fuzzCase)
}

var (
	fuzzWindows  = []time.Duration{ns, ms, sec, 7 * sec}
	fuzzUsers    = []string{"dan", "amy", "cat", "bob", "eve", "al"}
	fuzzChannels = []string{"#go", "#rust", "#zig"}
)

// fuzzCase decodes data into a timeline whose wants come from the model.
// Each step is a gap, then one call; its part is the highest part of the
// calls it makes.
func fuzzCase(newAggregator func(time.Duration) Aggregator, data []byte) timeline.Case[Aggregator] {
	in := timeline.NewChoices(data)
	window := timeline.Pick(in, fuzzWindows...)
	// Gaps between calls, chosen to land near the window's edges.
	gaps := []time.Duration{0, 0, ns, ms, window - ns, window, window + ns, window / 2}
	md := &model{window: window}
	var (
		steps  []step
		offset time.Duration
		part   = 1
	)
	for in.More() && len(steps) < 200 {
		offset += timeline.Pick(in, gaps...)
		now := clock.Epoch.Add(offset)
		switch in.Intn(8) {
		case 0, 1, 2:
			user, channel := timeline.Pick(in, fuzzUsers...), timeline.Pick(in, fuzzChannels...)
			md.msgs = append(md.msgs, Message{At: now, User: user, Channel: channel})
			steps = append(steps, at(offset, record(user, channel)))
		case 3:
			steps = append(steps, at(offset, total(md.total(now))))
		case 4:
			user := timeline.Pick(in, fuzzUsers...)
			steps = append(steps, at(offset, byUser(user, md.byUser(now, user))))
		case 5:
			channel := timeline.Pick(in, fuzzChannels...)
			steps = append(steps, at(offset, byChannel(channel, md.byChannel(now, channel))))
		case 6:
			steps = append(steps, at(offset, topTalker(md.topTalker(now))))
			part = max(part, 2)
		case 7:
			k := in.Intn(8) - 1
			steps = append(steps, at(offset, topK(k, md.topTalkers(now, k)...)))
			part = 3
		}
	}
	return timeline.Bind(timeline.Unclocked(newAggregator), row{Name: "fuzz", Part: part, Arg: window, Steps: steps})[0]
}
