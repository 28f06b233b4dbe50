package timeline

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/clock"
)

// stepResult is what one step gave.
type stepResult struct {
	ran bool
	got any
}

// panicInfo is a panic caught while playing a case.
type panicInfo struct {
	value any
	where []frame // the panicking function first
}

type frame struct {
	function string
	file     string // relative to the module root where possible
	line     int
}

// stuck is set once a case has timed out. Its goroutine may still be
// running, so later cases in this test binary are not started: they would
// compete with it and time out too.
var stuck atomic.Pointer[string]

// Play runs one case and returns its outcome. It never panics, and it
// returns within the case timeout even if the implementation loops forever.
func Play[T any](c Case[T]) Outcome {
	out := Outcome{Case: c.Name, Part: c.Part}
	if name := stuck.Load(); name != nil {
		out.Verdict = TimedOut
		out.Report = fmt.Sprintf("case %q was not run: case %q never returned and may still be running in this test binary. Fix that one first.", c.Name, *name)
		return out
	}

	start := c.Start
	if start.IsZero() {
		start = clock.Epoch
	}
	results := make([]stepResult, len(c.Steps))
	var current atomic.Int64 // the step being run, from 1; 0 while constructing, len+1 in the probe
	var caught *panicInfo
	var probeErr error
	done := make(chan struct{})

	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				caught = &panicInfo{value: v, where: panicFrames()}
			}
		}()
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
	}()

	timeout := caseTimeout()
	select {
	case <-done:
	case <-time.After(timeout):
		name := c.Name
		stuck.Store(&name)
		out.Verdict = TimedOut
		at := int(current.Load())
		out.Step = at
		var where string
		switch {
		case at == 0:
			where = c.Setup
		case at <= len(c.Steps):
			where = fmt.Sprintf("step %d, %s", at, c.callText(c.Steps[at-1]))
		default:
			where = "the probe after the steps"
		}
		out.Report = fmt.Sprintf("case %q (part %d) did not finish within %v: it was still in %s.\nLook for a loop that never ends. (%s sets the limit.)",
			c.Name, c.Part, timeout, where, TimeoutEnv)
		return out
	}

	r := report[T]{c: c, start: start, results: results}
	if caught != nil {
		at := int(current.Load())
		if msg, ok := notImplemented(caught.value); ok {
			out.Verdict = NotImplemented
			out.Step = at
			loc := ""
			if len(caught.where) > 0 {
				loc = fmt.Sprintf(" (%s:%d)", caught.where[0].file, caught.where[0].line)
			}
			out.Report = fmt.Sprintf("not implemented yet: %s%s\ncase %q (part %d) needs it.", msg, loc, c.Name, c.Part)
			return out
		}
		out.Verdict = Panicked
		out.Step = at
		out.Report = r.panicked(at, caught)
		return out
	}

	first := 0
	for i, s := range c.Steps {
		if !s.Call.matches(results[i].got) && first == 0 {
			first = i + 1
		}
	}
	if first == 0 && probeErr == nil {
		out.Verdict = Pass
		return out
	}
	out.Verdict = Fail
	out.Step = first
	out.Report = r.failed(first, probeErr)
	return out
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

// panicFrames returns the stack from the function that panicked outward,
// without the runtime's frames or this package's. It must be called from
// the deferred function that recovered.
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
			out = append(out, frame{function: shortFunc(f.Function), file: relFile(f.File), line: f.Line})
		}
		if !more || len(out) == 6 {
			break
		}
	}
	return out
}

// shortFunc turns "github.com/x/y/ladder/01-hit-counter.(*Counter).Hit"
// into "(*Counter).Hit".
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	if i := strings.Index(fn, "."); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}

var moduleRoot = sync.OnceValue(func() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
})

// relFile writes a source path relative to the module root, the way a
// learner sees it in the editor.
func relFile(path string) string {
	if root := moduleRoot(); root != "" {
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}
