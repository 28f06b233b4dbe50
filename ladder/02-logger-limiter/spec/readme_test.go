package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// The README's sample failure is what the runner prints for a logger that
// restarts a message's timer on a refused call.
func TestREADMESampleIsRealOutput(t *testing.T) {
	timeline.CheckREADMESamples(t, "../README.md", cases(remembering(rightBlocks, func(l *lastPrint) { l.resetOnRefuse = true })))
}
