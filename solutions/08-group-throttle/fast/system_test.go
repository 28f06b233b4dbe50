package fast

import (
	"testing"

	"github.com/rateladder/rateladder/solutions/08-group-throttle/internal/clocktest"
)

// The spec runs on a Fake clock; this checks the path New takes for
// clock.System.
func TestSystemClockReadsTheRealTime(t *testing.T) {
	clocktest.ReadsTheRealTime(t, New, (*Throttler).read)
}
