package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// The README's sample failure is what the runner prints for a café that
// keeps drinks whose count went back to zero.
func TestREADMESampleIsRealOutput(t *testing.T) {
	timeline.CheckREADMESamples(t, "../README.md", cases(mutant(mistakes{keepZeros: true})))
}
