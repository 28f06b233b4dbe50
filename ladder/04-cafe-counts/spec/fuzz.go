package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// fuzzSeeds are the fuzz target's seed inputs; the spec's own tests play
// them too, to check the part each is labelled with. Bytes: the window,
// then for each step a gap, a call and, for Order and Count, a drink. The
// seeds: part 1's calls on the boundary of a 7s window; Distinct as orders
// of latte, tea, latte leave; boards filling up and emptying in a minute.
var fuzzSeeds = [][]byte{
	{3, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 1, 0, 0, 2, 1, 1, 0, 1, 1, 2, 0, 2, 6, 0, 1, 6, 2},
	{2, 0, 0, 0, 6, 0, 1, 6, 0, 0, 0, 3, 0, 3, 2, 3, 6, 3, 6, 3, 0, 0, 0, 0, 3},
	{4, 0, 0, 0, 0, 0, 1, 0, 4, 6, 0, 0, 6, 4, 0, 4, 6, 4, 7, 4, 0, 0, 3, 0, 4},
}

// Fuzz checks the cafés newCafe builds against a brute-force model that
// keeps every order and answers by scanning them all, on random timelines
// whose times never go backwards.
func Fuzz[C Cafe](f *testing.F, newCafe func(window time.Duration) C) {
	timeline.Fuzz(f, fuzzSeeds, timeline.Erase[Cafe](newCafe), fuzzCase)
}

var (
	fuzzWindows = []time.Duration{ns, ms, sec, 7 * sec, minute}
	// A few drinks, so that they repeat; two differ only in case.
	fuzzDrinks = []string{"latte", "tea", "Latte", "mocha"}
)

// placed is one order the model keeps: its drink at an offset.
type placed struct {
	at    time.Duration
	drink string
}

// fuzzCase decodes data into a timeline whose wants come from the model.
func fuzzCase(newCafe func(time.Duration) Cafe, data []byte) timeline.Case[Cafe] {
	in := timeline.NewChoices(data)
	window := timeline.Pick(in, fuzzWindows...)
	// Gaps between calls, chosen to land near the window's edges.
	gaps := []time.Duration{0, ns, ms, window - ns, window, window + ns, window / 2, 3 * window}
	var (
		model []placed // every order, oldest first
		steps []step
		now   time.Duration
		part  = 1 // the highest part whose calls the timeline makes
	)
	// inWindow returns the model's counts per drink in (now-window, now].
	inWindow := func() board {
		b := board{}
		for _, o := range model {
			if o.at > now-window && o.at <= now {
				b[o.drink]++
			}
		}
		return b
	}
	for in.More() && len(steps) < 200 {
		if g := timeline.Pick(in, gaps...); g > 0 {
			now += g
		}
		switch in.Intn(5) {
		case 0:
			drink := timeline.Pick(in, fuzzDrinks...)
			model = append(model, placed{now, drink})
			steps = append(steps, at(now, order(drink)))
		case 1:
			drink := timeline.Pick(in, fuzzDrinks...)
			steps = append(steps, at(now, count(drink, inWindow()[drink])))
		case 2:
			n := 0
			for _, c := range inWindow() {
				n += c
			}
			steps = append(steps, at(now, total(n)))
		case 3:
			part = max(part, 2)
			steps = append(steps, at(now, distinct(len(inWindow()))))
		case 4:
			part = 3
			steps = append(steps, at(now, counts(inWindow())))
		}
	}
	return timeline.Bind(timeline.Unclocked(newCafe), row{Name: "fuzz", Part: part, Arg: window, Steps: steps})[0]
}
