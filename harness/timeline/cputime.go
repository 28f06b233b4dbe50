package timeline

import (
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/internal/procgroup"
)

// A case past its limit by the clock is stopped only once it has spent the
// limit in CPU time, or is idle, or has run hangFactor times the limit: a
// busy machine slows a right answer by the clock but not in CPU time.

// hangFactor times the limit is the most a case may run by the clock.
const hangFactor = 30

// idleShare is the share of a CPU below which the code counts as waiting.
const idleShare = 0.05

// cpuMeter reads the CPU time of the code under test: by default this
// process's; a checker whose cases run in another process sets its own.
var cpuMeter atomic.Pointer[meter]

type meter struct {
	read      func() (time.Duration, bool)
	elsewhere bool // the calls run in another process
}

// PlayElsewhere says the code under test runs in another process, whose CPU
// time f reads. Run then leaves out InProcess probes, and such a case is
// never judged idle: two processes waiting on each other look idle.
func PlayElsewhere(f func() (time.Duration, bool)) { cpuMeter.Store(&meter{f, true}) }

// elsewhere reports whether PlayElsewhere was called.
func elsewhere() bool {
	m := cpuMeter.Load()
	return m != nil && m.elsewhere
}

func cpuNow() (time.Duration, bool) {
	if m := cpuMeter.Load(); m != nil {
		return m.read()
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
	elsewhere bool // the calls run in another process: see PlayElsewhere
	lastCheck time.Time
	lastCPU   time.Duration
}

func newCaseWatch(limit time.Duration) *caseWatch {
	w := &caseWatch{limit: limit, started: time.Now(), elsewhere: elsewhere()}
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
	idle := !w.elsewhere && float64(cpu-w.lastCPU) < idleShare*float64(now.Sub(w.lastCheck))
	if used >= w.limit || idle {
		return 0
	}
	w.lastCheck, w.lastCPU = now, cpu
	return min(max(w.limit-used, w.limit/20), hangFactor*w.limit-elapsed)
}

// cpuStopwatch reads this process's CPU time since the call (or the clock's
// time where CPU time cannot be read).
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
