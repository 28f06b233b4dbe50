package timeline

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// stepResult is what one step gave.
type stepResult struct {
	ran bool
	got any
}

// frame is a place in a traceback, its file relative to the module root
// where possible.
type frame = protocol.Frame

// Play runs one case and returns its outcome. It never panics, and returns
// even if the implementation hangs, leaving its goroutine behind.
func Play[T any](c Case[T]) Outcome {
	out := Outcome{Name: c.Name, Part: c.Part}
	start := c.Start
	if start.IsZero() {
		start = clock.Epoch
	}
	results := make([]stepResult, len(c.Steps))
	var current atomic.Int64 // the step being run, from 1; 0 while constructing, len+1 in the probe
	var caught any
	var where []frame // the panicking function first
	var probeErr error
	finished := false // set when the goroutine reaches its end; false after runtime.Goexit
	goid := make(chan uint64, 1)
	done := make(chan struct{})

	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				caught, where = v, panicFrames()
			}
		}()
		goid <- currentGoroutine()
		clk := clock.NewFake()
		clk.Set(start)
		impl := c.New(clk)
		for i, s := range c.Steps {
			current.Store(int64(i + 1))
			now := start.Add(s.At)
			clk.Set(now)
			got := s.Call.Do(impl, now)
			results[i] = stepResult{ran: true, got: got}
		}
		if c.Probe != nil {
			current.Store(int64(len(c.Steps) + 1))
			probeErr = c.Probe(impl, clk)
		}
		finished = true
	}()

	timeout := caseTimeout()
	more := stuckCheck(timeout)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-timer.C:
			if d := more(); d > 0 {
				timer.Reset(d)
				continue
			}
			out.Verdict = TimedOut
			at := int(current.Load())
			out.Step = at
			out.Report, out.Summary = stuckReport(c, at, timeout, <-goid)
			out.Brief = out.Report // a few lines, and no table
			return out
		}
	}

	at := int(current.Load())
	r := report[T]{c: c, start: start, results: results, stop: at, focus: min(max(at-1, 0), len(c.Steps))}
	switch {
	case caught != nil:
		out.Step = at
		if msg, ok := notImplemented(caught); ok {
			out.Verdict, out.Missing = NotImplemented, msg
			out.Summary = "not implemented yet: " + msg
			if f, ok := learnerFrame(where); ok {
				out.Where = fmt.Sprintf("%s:%d", f.File, f.Line)
				out.Summary += " (" + out.Where + ")"
			}
			out.Report = fmt.Sprintf("%s\ncase %q (part %d) needs it.", out.Summary, c.Name, c.Part)
			out.Brief = out.Report
			return out
		}
		out.Verdict = Panicked
		what := fmt.Sprintf("%s panicked: %v", c.callAt(at), caught)
		r.what, r.frames = []string{what}, where
		r.explain(&out)
		out.Summary = withWhere(what, where)
		return out
	case !finished:
		out.Verdict = Exited
		out.Step = at
		r.what = []string{fmt.Sprintf("the case stopped in %s without returning or panicking: does your code call runtime.Goexit, or t.FailNow from another goroutine? Nothing after that point ran.", c.stepName(at))}
		r.explain(&out)
		out.Summary = summaryLine(c.callAt(at)+" stopped without returning or panicking: runtime.Goexit?", "")
		return out
	}

	first := 0
	for i, s := range c.Steps {
		if !s.Call.matches(results[i].got) {
			first = i + 1
			break
		}
	}
	if first == 0 && probeErr == nil {
		out.Verdict = Pass
		return out
	}
	out.Verdict = Fail
	out.Step = first
	r.stop, r.focus, r.diffs = 0, len(c.Steps), r.diffBlocks()
	if first > 0 {
		r.focus = first - 1
		r.what = append(r.what, fmt.Sprintf("%s\nStep %d is the first that differs; every step marked ✗ differs.", r.wrongCall(first), first))
	}
	if probeErr != nil {
		line := probeErr.Error()
		switch {
		case first > 0:
			line = "After the steps, the check also failed: " + line
		case len(c.Steps) > 0:
			line = "Every step gave its result, but the check after them failed: " + line
		}
		r.what = append(r.what, line)
	}
	r.explain(&out)
	if first == 0 {
		out.Summary = summaryLine(probeErr.Error(), "")
	} else {
		out.Summary = summaryLine(r.wrongCall(first), fmt.Sprintf(" (step %d)", first))
	}
	return out
}

// stepName is callAt with a step's number: "step 3, Count(t=4s)".
func (c Case[T]) stepName(at int) string {
	if at > 0 && at <= len(c.Steps) {
		return fmt.Sprintf("step %d, %s", at, c.callAt(at))
	}
	return c.callAt(at)
}

// stuckReport explains a case that did not finish in time from its
// goroutine's state, and returns the report and its Summary.
func stuckReport[T any](c Case[T], at int, timeout time.Duration, goid uint64) (report, summary string) {
	status, frames := goroutineState(goid)
	loc := ""
	if f, ok := learnerFrame(frames); ok {
		loc = fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
	}
	atLoc := ""
	if loc != "" {
		atLoc = " at " + loc
	}
	var what, short string
	switch {
	case strings.Contains(status, "Mutex") || strings.Contains(status, "semacquire") || strings.Contains(status, "sync.Cond"):
		short = fmt.Sprintf("a possible deadlock, waiting for a lock (%s)", status)
		what = fmt.Sprintf("a possible deadlock: the goroutine is waiting for a lock (%s)%s: does a method lock a mutex it already holds, or return without unlocking it", status, atLoc)
	case strings.Contains(status, "chan") || strings.Contains(status, "select"):
		short = fmt.Sprintf("blocked (%s)", status)
		what = fmt.Sprintf("the goroutine is blocked (%s)%s: is it waiting for something that never comes", status, atLoc)
	default:
		short = "too slow, or a loop that never ends"
		what = "is it too slow, or a loop that never ends"
		if loc != "" {
			what += fmt.Sprintf(" (the goroutine was in %s)", loc)
		}
	}
	summary = withWhere(fmt.Sprintf("%s did not finish in %v: %s", c.callAt(at), timeout, short), frames)
	return fmt.Sprintf("case %q (part %d) did not finish in %v: %s?\nIt was in %s. (%s sets the limit; the cases after this one still run, each on a fresh implementation.)",
		c.Name, c.Part, timeout, what, c.stepName(at), TimeoutEnv), summary
}

// currentGoroutine returns the calling goroutine's id, as stack dumps show it.
func currentGoroutine() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	fields := strings.Fields(string(buf[:n]))
	if len(fields) < 2 {
		return 0
	}
	id, _ := strconv.ParseUint(fields[1], 10, 64)
	return id
}

// goroutineState returns a goroutine's wait reason ("chan receive") and its
// frames, innermost first.
func goroutineState(id uint64) (string, []frame) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	prefix := fmt.Sprintf("goroutine %d [", id)
	for _, block := range strings.Split(string(buf), "\n\n") {
		if !strings.HasPrefix(block, prefix) {
			continue
		}
		lines := strings.Split(block, "\n")
		status := strings.TrimPrefix(lines[0], prefix)
		if i := strings.Index(status, "]"); i >= 0 {
			status = status[:i]
		}
		if i := strings.Index(status, ","); i >= 0 {
			status = status[:i] // "chan receive, 2 minutes"
		}
		var frames []frame
		for i := 1; i+1 < len(lines); i += 2 {
			f := protocol.FrameOf(lines[i], lines[i+1])
			f.File = sourceFile(f.File)
			frames = append(frames, f)
		}
		return status, frames
	}
	return "unknown", nil
}

// learnerFrame is the innermost frame in the learner's own code (see
// levels.InLearnersCode).
func learnerFrame(frames []frame) (frame, bool) {
	for _, f := range frames {
		if levels.InLearnersCode(f.File) {
			return f, true
		}
	}
	return frame{}, false
}

// matches reports whether got is an acceptable result for the call.
func (call Call[T]) matches(got any) (ok bool) {
	if call.Accept != nil {
		return call.Accept(got)
	}
	defer func() {
		// cmp.Equal panics on unexported fields it was not told about;
		// fall back to reflect rather than lose the report.
		if recover() != nil {
			ok = reflect.DeepEqual(call.Want, got)
		}
	}()
	return cmp.Equal(call.Want, got, call.Opts...)
}

// notImplemented recognises a stub's panic: "not implemented: Counter.Hit".
func notImplemented(v any) (string, bool) {
	s := fmt.Sprint(v)
	const prefix = "not implemented"
	if !strings.HasPrefix(s, prefix) {
		return "", false
	}
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(s, prefix), ":"))
	if s == "" {
		s = "(the panic does not name the method)"
	}
	return s, true
}

// panicFrames returns the stack from the panicking function outward, without
// the runtime's or this file's frames; call it from the recovering defer.
func panicFrames() []frame {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var out []frame
	afterPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			afterPanic = true
		case afterPanic && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasSuffix(f.File, "harness/timeline/play.go"):
			out = append(out, frame{Function: protocol.ShortFunc(f.Function), File: sourceFile(f.File), Line: f.Line})
		}
		if !more || len(out) == 6 {
			break
		}
	}
	return out
}

// moduleRoot is the outermost folder with a go.mod, so that a nested
// module's files are named from the top too.
var moduleRoot = sync.OnceValue(func() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	root := ""
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			root = dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return root
		}
		dir = parent
	}
})

// sourceFile writes a traceback's file relative to the module root; a
// binary built with -trimpath names them by import path instead.
func sourceFile(path string) string {
	rel := path
	if root := moduleRoot(); root != "" {
		if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path != "" {
		if s, ok := strings.CutPrefix(rel, info.Main.Path+"/"); ok {
			return s
		}
	}
	return rel
}

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

// stuckCheck returns what decides, each time a case's timer fires, how much
// longer the case may run before the next check: 0 when it is stuck now.
func stuckCheck(limit time.Duration) func() time.Duration {
	read, away := procgroup.SelfCPU, false
	if m := cpuMeter.Load(); m != nil {
		read, away = m.read, m.elsewhere
	}
	started := time.Now()
	cpuStart, measured := read()
	lastCheck, lastCPU := started, cpuStart
	return func() time.Duration {
		now := time.Now()
		elapsed := now.Sub(started)
		cpu, ok := read()
		if !measured || !ok || elapsed >= hangFactor*limit {
			return 0
		}
		used := cpu - cpuStart
		// Two processes waiting on each other look idle: see PlayElsewhere.
		idle := !away && float64(cpu-lastCPU) < idleShare*float64(now.Sub(lastCheck))
		if used >= limit || idle {
			return 0
		}
		lastCheck, lastCPU = now, cpu
		return min(max(limit-used, limit/20), hangFactor*limit-elapsed)
	}
}
