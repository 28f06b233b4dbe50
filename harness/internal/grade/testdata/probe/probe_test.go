package probe

import (
	"os"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

func init() {
	switch os.Getenv("LADDER_TEST_PROBE") {
	case "init-exit":
		os.Exit(0)
	case "skip":
		os.Args = append(os.Args, "-test.skip=/part_2/")
	}
}

func do(want int) timeline.Call[*Thing] {
	return timeline.Call[*Thing]{Method: "Do", Want: want, Do: func(t *Thing, _ time.Time) any { return t.Do() }}
}

func TestProbe(t *testing.T) {
	newThing := func(clock.Clock) *Thing { return &Thing{} }
	timeline.Run(t, []timeline.Case[*Thing]{
		{Name: "first", Part: 1, Setup: "New()", New: newThing, Steps: []timeline.Step[*Thing]{timeline.At(0, do(1)), timeline.At(0, do(2))}},
		{Name: "the probe", Part: 2, Setup: "New()", New: func(clock.Clock) *Thing { return &Thing{calls: 2} },
			Steps: []timeline.Step[*Thing]{timeline.At(0, do(3))}},
		{Name: "after", Part: 2, Setup: "New()", New: newThing, Steps: []timeline.Step[*Thing]{timeline.At(0, do(1))}},
	})
}
