package timeline

import (
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/internal/procgroup"
)

// A case that has run for its time limit by the clock is stopped only if
// the code under test also spent that much CPU time on it, or spent
// almost none (it waits for something that never comes), or if the clock
// shows many times the limit. A right answer on a machine busy with
// other work waits for a CPU and takes longer by the clock, but not by
// CPU time: judged by the clock alone, it read "timed out" on a loaded
// machine and "pass" on an idle one. Where CPU time cannot be read, the
// clock alone decides, as before.

// hangFactor times the limit is how long by the clock a case may run,
// however little CPU time it gets. A loop that never ends spends the
// limit in CPU time well before, and a deadlock is seen as idle, so this
// bounds only a machine too busy to run the case at all.
const hangFactor = 30

// idleShare is the share of the time passed below which the code under
// test counts as waiting, not working: a process starved by other work
// still gets a good part of a CPU, one that is blocked gets none.
const idleShare = 0.05

// cpuMeter reads the CPU time of the code under test: by default this
// process's; a checker whose cases run in another process sets its own.
var cpuMeter atomic.Pointer[meter]

type meter struct {
	read      func() (time.Duration, bool)
	elsewhere bool // the calls run in another process
}

// PlayElsewhere says the code under test runs in another process, the
// class report's child (package harness/remote), whose CPU time f reads,
// false when it cannot tell. Run then leaves out what only that process
// could judge: the probe of an InProcess case, and such a case when it
// has no steps, which the student's own test binary judges.
//
// A case measured so is never judged idle. Its calls cross between two
// processes, each waiting for the other's answer, and on a busy machine
// each crossing waits for a CPU: the pair got 3% of one beside four
// CPU-bound processes, though neither was stuck. A child that never
// answers a call is stopped by the call's own limit instead
// (remote.CallLimit).
func PlayElsewhere(f func() (time.Duration, bool)) { cpuMeter.Store(&meter{f, true}) }

// elsewhere reports whether PlayElsewhere was called.
func elsewhere() bool {
	m := cpuMeter.Load()
	return m != nil && m.elsewhere
}

func cpuNow() (cpu time.Duration, ok, elsewhere bool) {
	if m := cpuMeter.Load(); m != nil {
		cpu, ok = m.read()
		return cpu, ok, m.elsewhere
	}
	cpu, ok = procgroup.SelfCPU()
	return cpu, ok, false
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
	w := &caseWatch{limit: limit, started: time.Now()}
	w.cpuStart, w.measured, w.elsewhere = cpuNow()
	w.lastCheck, w.lastCPU = w.started, w.cpuStart
	return w
}

// more returns how much longer the case may run before the next check,
// or 0 when it is stuck now.
func (w *caseWatch) more() time.Duration {
	now := time.Now()
	elapsed := now.Sub(w.started)
	cpu, ok, _ := cpuNow()
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
