package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// The README's sample failure is what the runner prints for a counter that
// still counts a hit at exactly now-window.
func TestREADMESampleIsRealOutput(t *testing.T) {
	inclusive := mutant(func(h, now time.Time, w time.Duration) bool { return h.Before(now.Add(-w)) })
	timeline.CheckREADMESamples(t, "../README.md", cases(inclusive))
}
