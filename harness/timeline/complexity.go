package timeline

import (
	"fmt"
	"time"
)

// WithinLimit is how a spec checks a README's cost claim with a wide
// margin rather than a timing threshold: it calls do(i) for i in [0, n)
// and fails if the calls take more than limit of CPU time (of the clock
// where CPU time cannot be read): on a machine busy with other work, a
// pause while another process has the CPU is not the calls' cost. A case sizes n so that
// the wrong complexity class runs a hundred times past the limit and the
// right one stays a hundred times under it. It gives up early, at a 20th
// of the limit, once the pace of the calls so far would take ten times
// the limit, so that a wrong class fails fast. what describes the n calls
// and bound names the README's bound, for the message.
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

// Thousands writes n with commas, as a README writes numbers: 100,000.
// WithinLimit's what reads as the README does.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
