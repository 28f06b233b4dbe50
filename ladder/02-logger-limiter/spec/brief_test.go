package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// slip is a logger that slips at the boundary, still refusing a message
// exactly one interval after it printed, as a queue does that drops prints
// with Before(cutoff) instead of !After(cutoff).
var slip = remembering(func(p, now time.Time, d time.Duration) bool { return !now.After(p.Add(d)) }, nil)

// The slip fails most of part 1 and part 2, and a long random timeline;
// each failure must fit one screen. go test -v shows the lengths.
func TestBriefsOfABoundarySlipFitOneScreen(t *testing.T) {
	timeline.CheckBriefs(t, cases(slip))
	// 600 bytes decode to a 200-step timeline, the most a fuzz case has.
	data := make([]byte, 600)
	for i := range data {
		data[i] = byte(i*7 + i/5)
	}
	long := fuzzCase(slip, data)
	if len(long.Steps) < 150 {
		t.Fatalf("the long fuzz timeline has %d steps, want 150 or more", len(long.Steps))
	}
	timeline.CheckBriefs(t, []timeline.Case[Logger]{long})
}
