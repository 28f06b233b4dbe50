package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// fuzzSeeds are the fuzz target's seed inputs. The spec's own tests play
// them too, to check the part each is labelled with.
var fuzzSeeds = [][]byte{
	{2, 0, 1, 0, 1, 1, 0, 4, 1, 0, 3, 1, 0},
	{0, 0, 2, 0, 0, 2, 1, 3, 2, 0, 4, 0, 1, 6, 2, 0},
	{1, 4, 3, 2, 3, 3, 0, 7, 3, 0, 5, 1, 0, 8, 1, 0},
	{3, 1, 0, 0, 2, 1, 0, 5, 0, 0, 6, 1, 0, 7, 2, 0, 0, 0, 0},
}

// Fuzz checks the loggers newLogger builds against a brute-force model that
// remembers the last print of every message forever, on random timelines
// whose times never go backwards. Len is checked against part 2's bounds.
func Fuzz[L Logger](f *testing.F, newLogger func(interval time.Duration) L) {
	timeline.Fuzz(f, fuzzSeeds, timeline.Erase[Logger](newLogger), fuzzCase)
}

var (
	fuzzIntervals = []time.Duration{ns, ms, sec, 7 * sec, minute}
	fuzzMessages  = []string{"", "a", "b", "disk full"}
)

// fuzzCase decodes data into a timeline whose wants come from the model.
// Each step is a ShouldPrint call, sometimes followed by Len at the same
// instant.
func fuzzCase(newLogger func(time.Duration) Logger, data []byte) timeline.Case[Logger] {
	in := timeline.NewChoices(data)
	interval := timeline.Pick(in, fuzzIntervals...)
	// Gaps between calls, chosen to land near the edges of one and two
	// intervals. The first call may be at t=0, the epoch.
	gaps := []time.Duration{0, ns, interval - ns, interval, interval + ns, interval / 2, 2*interval - ns, 2 * interval, 3 * interval}
	var (
		lastPrint = map[string]time.Duration{} // the model: every message ever printed
		steps     []step
		now       time.Duration
		part      = 1
	)
	for in.More() && len(steps) < 200 {
		now += timeline.Pick(in, gaps...)
		m := timeline.Pick(in, fuzzMessages...)
		p, printed := lastPrint[m]
		want := !printed || p <= now-interval
		if want {
			lastPrint[m] = now
		}
		steps = append(steps, at(now, shouldPrint(m, want)))
		if in.Intn(2) == 0 {
			continue
		}
		lo, hi := 0, 0
		for _, last := range lastPrint {
			if last > now-interval {
				lo++
			}
			if last > now-2*interval {
				hi++
			}
		}
		steps = append(steps, at(now, remembers(lo, hi)))
		part = 2 // Len's bounds are part 2
	}
	return timeline.Bind(timeline.Unclocked(newLogger), row{Name: "fuzz", Part: part, Arg: interval, Steps: steps})[0]
}
