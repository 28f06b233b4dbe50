// Package clocktest checks how a level 8 throttler reads clock.System, for
// the reference and the fast variant alike. The spec runs on a Fake clock,
// so this is the only check of the path New takes for the real one: the
// monotonic clock read from an anchor taken in New, instead of time.Now.
package clocktest

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// ReadsTheRealTime checks that read, a throttler's reading of its clock in
// Unix ns, agrees with time.Now for a throttler made by newT with
// clock.System. The two agree to within a slewing NTP's drift; 10ms leaves
// room for that and still catches a wrong anchor.
func ReadsTheRealTime[T any](t *testing.T, newT func(clock.Clock, limits.Config) (T, error), read func(T) int64) {
	t.Helper()
	th, err := newT(clock.System{}, limits.Config{PerClient: limits.Limit{Algorithm: limits.FixedWindow, Requests: 1, Per: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	const slack = int64(10 * time.Millisecond)
	for range 3 {
		before := time.Now().UnixNano()
		got := read(th)
		after := time.Now().UnixNano()
		if got < before-slack || got > after+slack {
			t.Fatalf("read() = %d, want within 10ms of [%d, %d], time.Now's readings around it", got, before, after)
		}
	}
}
