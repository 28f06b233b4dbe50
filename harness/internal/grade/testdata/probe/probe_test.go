package probe

import (
	"fmt"
	"os"
	"strings"
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
	case "parent":
		// The tests run in the process go test started: no test binary
		// runs this one again as its child.
		parent, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", os.Getppid()))
		if err == nil && strings.HasSuffix(parent, ".test") {
			panic(fmt.Sprintf("the parent of this test binary is %q (%v)", parent, err))
		}
	}
}

func do(want int) timeline.Call[*Thing] {
	return timeline.Call[*Thing]{Method: "Do", Want: want, Do: func(t *Thing, _ time.Time) any { return t.Do() }}
}

func TestProbe(t *testing.T) {
	if os.Getenv("LADDER_TEST_PROBE") == "no-runner" {
		return // a test of the learner's own, which passes
	}
	newThing := func(clock.Clock) *Thing { return &Thing{} }
	timeline.Run(t, []timeline.Case[*Thing]{
		{Name: "first", Part: 1, Setup: "New()", New: newThing, Steps: []timeline.Step[*Thing]{timeline.At(0, do(1)), timeline.At(0, do(2))}},
		{Name: "the probe", Part: 2, Setup: "New()", New: func(clock.Clock) *Thing { return &Thing{calls: 2} },
			Steps: []timeline.Step[*Thing]{timeline.At(0, do(3))}},
		{Name: "after", Part: 2, Setup: "New()", New: newThing, Steps: []timeline.Step[*Thing]{timeline.At(0, do(1))}},
	})
}
