package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// A café that keeps drinks whose count fell to zero fails long cases, the
// hundred drinks of part 2 among them (207 lines in full); each failure
// must still fit one screen. go test -v shows the lengths.
func TestBriefsOfKeptZeroCountsFitOneScreen(t *testing.T) {
	timeline.CheckBriefs(t, cases(mutant(mistakes{keepZeros: true})))
}
