package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// The README's sample failure is what the runner prints for a store that
// counts one second too many.
func TestREADMESampleIsRealOutput(t *testing.T) {
	timeline.CheckREADMESamples(t, "../README.md", cases(newFlawed(mistakes{oneTooMany: true})))
}
