package timeline

import (
	"fmt"
	"time"
)

// WithinLimit calls do(i) for i in [0, n) and fails if the calls take more
// than limit of CPU time, giving up early once their pace would take ten
// times the limit. what and bound (the README's bound) are for the message.
func WithinLimit(n int, limit time.Duration, what, bound string, do func(i int)) error {
	elapsed := cpuStopwatch()
	for i := range n {
		do(i)
		if i >= 256 && i%16 != 15 {
			continue // reading the time costs more than a fast call
		}
		elapsed := elapsed()
		pace := elapsed * time.Duration(n) / time.Duration(i+1)
		if elapsed > limit || elapsed > limit/20 && pace > 10*limit {
			return fmt.Errorf("%s did not finish within %v: %d of them took %v, and all would take about %v at that pace; %s",
				what, limit, i+1, elapsed.Round(time.Millisecond), pace.Round(time.Second), bound)
		}
	}
	if elapsed := elapsed(); elapsed > limit {
		return fmt.Errorf("%s took %v, more than %v; %s", what, elapsed.Round(time.Millisecond), limit, bound)
	}
	return nil
}

// IfRace is plain, or race under the race detector: a complexity case's
// calls and limit, since -race slows a fast call far more than a slow one.
func IfRace[V any](plain, race V) V {
	if RaceEnabled {
		return race
	}
	return plain
}

// Thousands writes n with commas, as a README does: 100,000.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
