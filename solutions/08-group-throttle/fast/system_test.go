package fast

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// The spec runs on a Fake clock; this checks the path New takes for
// clock.System, which reads the monotonic clock from an anchor instead of
// calling time.Now. The two agree to within a slewing NTP's drift; 10ms
// leaves room for that and still catches a wrong anchor.
func TestSystemClockReadsTheRealTime(t *testing.T) {
	const slack = int64(10 * time.Millisecond)
	th, err := New(clock.System{}, Config{PerClient: Limit{Algorithm: FixedWindow, Requests: 1, Per: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		before := time.Now().UnixNano()
		got := th.read()
		after := time.Now().UnixNano()
		if got < before-slack || got > after+slack {
			t.Fatalf("read() = %d, want within 10ms of [%d, %d], time.Now's readings around it", got, before, after)
		}
	}
}
