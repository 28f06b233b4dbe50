package timeline

import (
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/internal/procgroup"
)

// A case that has run for its time limit by the clock is stopped only if
// the code under test also spent that much CPU time on it, or spent
// almost none (it waits for something that never comes), or if the clock
// shows several times the limit. A right answer on a machine busy with
// other work waits for a CPU and takes longer by the clock, but not by
// CPU time: judged by the clock alone, it read "timed out" on a loaded
// machine and "pass" on an idle one. Where CPU time cannot be read, the
// clock alone decides, as before.

// hangFactor times the limit is how long by the clock a case may run,
// however little CPU time it gets.
const hangFactor = 6

// idleShare is the share of the time passed below which the code under
// test counts as waiting, not working: a process starved by other work
// still gets a good part of a CPU, one that is blocked gets none.
const idleShare = 0.05

// cpuMeter reads the CPU time of the code under test: by default this
// process's; a checker whose cases run in another process sets its own.
var cpuMeter atomic.Pointer[func() (time.Duration, bool)]

// MeasureCPU makes the runner read the CPU time of the code under test
// with f, which returns false when it cannot tell. The class report's
// checker sets it to count the student's process, where the calls run.
func MeasureCPU(f func() (time.Duration, bool)) { cpuMeter.Store(&f) }

func cpuNow() (time.Duration, bool) {
	if f := cpuMeter.Load(); f != nil {
		return (*f)()
	}
	return procgroup.SelfCPU()
}

// caseWatch decides, each time a case's timer fires, whether the case
// is stuck or may run on.
type caseWatch struct {
	limit     time.Duration
	started   time.Time
	cpuStart  time.Duration
	measured  bool
	lastCheck time.Time
	lastCPU   time.Duration
}

func newCaseWatch(limit time.Duration) *caseWatch {
	w := &caseWatch{limit: limit, started: time.Now()}
	w.cpuStart, w.measured = cpuNow()
	w.lastCheck, w.lastCPU = w.started, w.cpuStart
	return w
}

// more returns how much longer the case may run before the next check,
// or 0 when it is stuck now.
func (w *caseWatch) more() time.Duration {
	now := time.Now()
	elapsed := now.Sub(w.started)
	cpu, ok := cpuNow()
	if !w.measured || !ok || elapsed >= hangFactor*w.limit {
		return 0
	}
	used := cpu - w.cpuStart
	idle := float64(cpu-w.lastCPU) < idleShare*float64(now.Sub(w.lastCheck))
	if used >= w.limit || idle {
		return 0
	}
	w.lastCheck, w.lastCPU = now, cpu
	return min(max(w.limit-used, w.limit/20), hangFactor*w.limit-elapsed)
}

// cpuStopwatch returns a function that reads the CPU time this process
// has spent since cpuStopwatch was called, or the time passed where CPU
// time cannot be read.
func cpuStopwatch() func() time.Duration {
	if start, ok := procgroup.SelfCPU(); ok {
		return func() time.Duration {
			now, _ := procgroup.SelfCPU()
			return now - start
		}
	}
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}
