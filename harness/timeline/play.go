package timeline

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Play runs one case and returns its outcome. It never panics, and returns
// even if the implementation hangs, leaving its goroutine behind.
func Play[T any](c Case[T]) Outcome {
	out := Outcome{Name: c.Name, Part: c.Part}
	r := report[T]{c: c, start: c.Start, got: make([]any, len(c.Steps))}
	if r.start.IsZero() {
		r.start = clock.Epoch
	}
	var current atomic.Int64 // the step being run, from 1; 0 while constructing, len+1 in the probe
	var caught any
	var probeErr error
	finished := false // set when the goroutine reaches its end; false after runtime.Goexit
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				caught, r.frames = v, panicFrames()
			}
		}()
		clk := clock.NewFake()
		clk.Set(r.start)
		impl := c.New(clk)
		for i, s := range c.Steps {
			current.Store(int64(i + 1))
			clk.Set(r.start.Add(s.At))
			r.got[i] = s.Call.Do(impl, r.start.Add(s.At))
			r.ran = i + 1
		}
		if c.Probe != nil {
			current.Store(int64(len(c.Steps) + 1))
			probeErr = c.Probe(impl, clk)
		}
		finished = true
	}()

	timeout := DefaultTimeout
	if d, err := time.ParseDuration(os.Getenv(TimeoutEnv)); err == nil && d > 0 {
		timeout = d
	}
	more, timer := stuckCheck(timeout), time.NewTimer(timeout)
	defer timer.Stop()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-timer.C:
			if d := more(); d > 0 {
				timer.Reset(d)
				continue
			}
			out.Verdict, out.Step = TimedOut, int(current.Load())
			out.Summary = summaryLine(fmt.Sprintf("%s did not finish in %v: too slow, a loop that never ends, or a deadlock", c.callAt(out.Step), timeout), "")
			out.Report = fmt.Sprintf("case %q (part %d) did not finish in %v: is it too slow, a loop that never ends, or a deadlock?\nIt was in %s. (%s sets the limit; the cases after this one still run, each on a fresh implementation.)",
				c.Name, c.Part, timeout, c.stepName(out.Step), TimeoutEnv)
			out.Brief = out.Report // a few lines, and no table
			return out
		}
	}

	at := int(current.Load())
	r.stop, r.focus = at, min(max(at-1, 0), len(c.Steps))
	switch {
	case caught != nil:
		out.Step = at
		if msg, ok := notImplemented(caught); ok {
			out.Verdict, out.Missing = NotImplemented, msg
			out.Summary = "not implemented yet: " + msg
			if f, ok := learnerFrame(r.frames); ok {
				out.Where = fmt.Sprintf("%s:%d", f.File, f.Line)
				out.Summary += " (" + out.Where + ")"
			}
			out.Report = fmt.Sprintf("%s\ncase %q (part %d) needs it.", out.Summary, c.Name, c.Part)
			out.Brief = out.Report
			return out
		}
		out.Verdict = Panicked
		r.what = []string{fmt.Sprintf("%s panicked: %v", c.callAt(at), caught)}
		out.Summary = withWhere(r.what[0], r.frames)
	case !finished:
		out.Verdict, out.Step = Exited, at
		r.what = []string{fmt.Sprintf("the case stopped in %s without returning or panicking: does your code call runtime.Goexit, or t.FailNow from another goroutine? Nothing after that point ran.", c.stepName(at))}
		out.Summary = summaryLine(c.callAt(at)+" stopped without returning or panicking: runtime.Goexit?", "")
	default:
		for i, s := range c.Steps {
			if !s.Call.matches(r.got[i]) {
				out.Step = i + 1
				break
			}
		}
		first := out.Step
		if first == 0 && probeErr == nil {
			out.Verdict = Pass
			return out
		}
		out.Verdict = Fail
		r.stop, r.focus, r.diffs = 0, len(c.Steps), r.diffBlocks()
		if first > 0 {
			r.focus = first - 1
			r.what = append(r.what, fmt.Sprintf("%s\nStep %d is the first that differs; every step marked ✗ differs.", r.wrongCall(first), first))
			out.Summary = summaryLine(r.wrongCall(first), fmt.Sprintf(" (step %d)", first))
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
		if first == 0 {
			out.Summary = summaryLine(probeErr.Error(), "")
		}
	}
	out.Report, out.Brief = r.text(false), r.text(true)
	return out
}

// stepName is callAt with a step's number: "step 3, Count(t=4s)".
func (c Case[T]) stepName(at int) string {
	if at > 0 && at <= len(c.Steps) {
		return fmt.Sprintf("step %d, %s", at, c.callAt(at))
	}
	return c.callAt(at)
}

// learnerFrame is the innermost frame in the learner's own code (see
// levels.InLearnersCode).
func learnerFrame(frames []protocol.Frame) (protocol.Frame, bool) {
	for _, f := range frames {
		if levels.InLearnersCode(f.File) {
			return f, true
		}
	}
	return protocol.Frame{}, false
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
	s, ok := strings.CutPrefix(fmt.Sprint(v), "not implemented")
	if s = strings.TrimSpace(strings.TrimPrefix(s, ":")); ok && s == "" {
		s = "(the panic does not name the method)"
	}
	return s, ok
}

// panicFrames returns the stack from the panicking function outward, without
// the runtime's or this file's frames; call it from the recovering defer.
func panicFrames() []protocol.Frame {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var out []protocol.Frame
	afterPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			afterPanic = true
		case afterPanic && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasSuffix(f.File, "harness/timeline/play.go"):
			out = append(out, protocol.Frame{Function: protocol.ShortFunc(f.Function), File: sourceFile(f.File), Line: f.Line})
		}
		if !more || len(out) == 6 {
			break
		}
	}
	return out
}

// sourceFile writes a traceback's file from the repository's top, where
// its last folder ladder/, solutions/ or harness/ begins.
func sourceFile(path string) string {
	from := -1
	for _, top := range []string{"/ladder/", "/solutions/", "/harness/"} {
		from = max(from, strings.LastIndex("/"+path, top))
	}
	if from < 0 {
		return path
	}
	return path[from:]
}

// A case past its limit by the clock is stopped only once it has spent the
// limit in CPU time, or is idle, or has run hangFactor times the limit: a
// busy machine slows a right answer by the clock but not in CPU time.

// hangFactor times the limit is the most a case may run by the clock.
const hangFactor = 30

// idleShare is the share of a CPU below which the code counts as waiting.
const idleShare = 0.05

// selfCPU reads this process's CPU time, and elsewhereCPU, once set by
// PlayElsewhere, that of the code under test in another process.
var (
	selfCPU      = procgroup.SelfCPU
	elsewhereCPU atomic.Pointer[func() (time.Duration, bool)]
)

// PlayElsewhere says the code under test runs in another process, whose CPU
// time f reads. Run then leaves out InProcess probes, and such a case is
// never judged idle: two processes waiting on each other look idle.
func PlayElsewhere(f func() (time.Duration, bool)) { elsewhereCPU.Store(&f) }

// elsewhere reports whether PlayElsewhere was called.
func elsewhere() bool { return elsewhereCPU.Load() != nil }

// stuckCheck returns what decides, each time a case's timer fires, how much
// longer the case may run before the next check: 0 when it is stuck now.
func stuckCheck(limit time.Duration) func() time.Duration {
	read, away := selfCPU, elsewhere()
	if away {
		read = *elsewhereCPU.Load()
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

// maxCell is the widest a value may be in the table; a longer one is cut
// and shown whole in a diff under the table.
const maxCell = 40

// report explains a case that did not pass.
type report[T any] struct {
	c      Case[T]
	start  time.Time
	got    []any            // what each step gave
	ran    int              // the steps that returned
	what   []string         // the explanation by paragraph; a brief keeps explainLines of each
	frames []protocol.Frame // a panic's stack
	stop   int              // the step, from 1, that a panic or a Goexit stopped at; 0 for none
	focus  int              // the step index a brief keeps the rows around
	diffs  []string
}

// text writes the report; brief cuts it to one screen around the focus:
// the whole table up to wholeTable steps, else the first step, which starts
// the state, the few before the focus, the focus and two after (a gap of
// one step is shown).
func (r report[T]) text(brief bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %q (part %d)", r.c.Name, r.c.Part)
	if r.c.Setup != "" {
		fmt.Fprintf(&b, ", built with %s", r.c.Setup)
	}
	b.WriteString("\n")
	if !r.start.Equal(clock.Epoch) {
		fmt.Fprintf(&b, "t counts from %s\n", r.start.Format(time.RFC3339Nano))
	}
	for _, w := range r.what {
		if brief {
			w, _ = cutLinesTo(w, explainLines)
			lines := strings.Split(w, "\n")
			for i, l := range lines {
				lines[i] = protocol.CutLine(l, briefWidth)
			}
			w = strings.Join(lines, "\n")
		}
		b.WriteString(w + "\n")
	}
	frames := r.frames
	if brief {
		frames = frames[:min(len(frames), maxFrames)]
	}
	for _, f := range frames {
		fmt.Fprintf(&b, "    %s:%d in %s\n", f.File, f.Line, f.Function)
	}
	n, focus := len(r.c.Steps), r.focus
	near := func(i int) bool {
		return !brief || n <= wholeTable || i == 0 || (i >= focus-before && i <= focus+after)
	}
	r.someRows(&b, func(i int) bool { return near(i) || (i > 0 && i < n-1 && near(i-1) && near(i+1)) })
	if !brief {
		for _, d := range r.diffs {
			b.WriteString("\n" + d)
		}
		return strings.TrimRight(b.String(), "\n")
	}
	// Only the first diff: the table marks the later ones.
	cut := len(r.frames) > maxFrames || n > wholeTable || len(r.diffs) > 1
	if len(r.diffs) > 0 {
		room := briefLines - strings.Count(b.String(), "\n") - 3
		d, over := cutLinesTo(strings.TrimRight(r.diffs[0], "\n"), max(room, 4))
		b.WriteString("\n" + d + "\n")
		cut = cut || over
	}
	s := strings.TrimRight(b.String(), "\n") // and a last cut, should the pieces still run over
	if kept, over := cutLinesTo(s, briefLines-1); over {
		s, cut = kept, true
	}
	if cut {
		s += "\n" + cutNote
	}
	return s
}

// mark is "!" for the step a panic or a Goexit stopped at, and "✗" for
// another that ran and gave another result.
func (r report[T]) mark(i int) string {
	switch {
	case i == r.stop-1:
		return "!"
	case i < r.ran && !r.c.Steps[i].Call.matches(r.got[i]):
		return "✗"
	}
	return ""
}

// wrongCall is the first wrong call as the Go test comments guide writes
// it: Count(t=4s) = 3, want 5.
func (r report[T]) wrongCall(first int) string {
	s := r.c.Steps[first-1]
	return fmt.Sprintf("%s = %s, want %s", r.c.callText(s), show(r.got[first-1]), show(s.Call.Want))
}

// callAt names what ran at step at: the constructor (0), a call, or the
// check after the steps.
func (c Case[T]) callAt(at int) string {
	switch {
	case at == 0:
		return c.Setup
	case at <= len(c.Steps):
		return c.callText(c.Steps[at-1])
	}
	return "the check after the steps"
}

// someRows writes the timeline's header and the steps keep keeps. Each run
// of steps left out is one row, "… 15 steps …".
func (r report[T]) someRows(b *strings.Builder, keep func(i int) bool) {
	if len(r.c.Steps) == 0 {
		return
	}
	b.WriteString("\n")
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tstep\tt\tcall\twant\tgot")
	// A run of steps left out is a row of empty cells in the table, which
	// keeps its columns, and one line of text after: gaps[k] is the k-th's
	// number of steps.
	var gaps []int
	for i, s := range r.c.Steps {
		if !keep(i) {
			if i == 0 || keep(i-1) {
				fmt.Fprintln(tw, "\t\t\t\t\t")
				gaps = append(gaps, 0)
			}
			gaps[len(gaps)-1]++
			continue
		}
		got := "(not run)"
		if i < r.ran {
			got = cell(r.got[i])
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", r.mark(i), i+1, Offset(s.At), s.Call.text(), cell(s.Call.Want), got)
	}
	tw.Flush()
	lines := strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")
	indent := strings.Repeat(" ", strings.Index(lines[0], "step"))
	for _, line := range lines {
		// tabwriter pads the last column too; no line ends in spaces.
		if line = strings.TrimRight(line, " "); line == "" {
			line, gaps = fmt.Sprintf("%s… %d step%s …", indent, gaps[0], map[bool]string{true: "s"}[gaps[0] != 1]), gaps[1:]
		}
		b.WriteString(line + "\n")
	}
}

// diffBlocks returns a (-want +got) diff, ending in a newline, for each
// differing step whose values are structured or too long for the table.
func (r report[T]) diffBlocks() []string {
	var out []string
	for i, s := range r.c.Steps {
		got := r.got[i]
		if i >= r.ran || s.Call.Accept != nil || s.Call.matches(got) ||
			!structured(s.Call.Want) && len(show(s.Call.Want)) <= maxCell && len(show(got)) <= maxCell {
			continue
		}
		out = append(out, fmt.Sprintf("step %d, %s mismatch (-want +got):\n%s", i+1, r.c.callText(s), safeDiff(s.Call.Want, got, s.Call.Opts)))
	}
	return out
}

func safeDiff(want, got any, opts []cmp.Option) (d string) {
	defer func() {
		if recover() != nil {
			d = fmt.Sprintf("-%#v\n+%#v\n", want, got)
		}
	}()
	return cmp.Diff(want, got, opts...)
}

func structured(v any) bool {
	if v == nil {
		return false
	}
	switch reflect.TypeOf(v).Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct, reflect.Pointer:
		_, isTime := v.(time.Time)
		_, isStringer := v.(fmt.Stringer)
		return !isTime && !isStringer
	}
	return false
}

// callText writes a call as the Go test comments guide does: Count(t=4s), or
// "at t=4s: QPS(Put, 5m)" for a level that reads its clock.
func (c Case[T]) callText(s Step[T]) string {
	if c.Clocked {
		return fmt.Sprintf("at t=%s: %s", Offset(s.At), s.Call.text())
	}
	return s.Call.text("t=" + Offset(s.At))
}

// text writes the call with the arguments first before its own: without
// its time for the table's call column.
func (call Call[T]) text(first ...string) string {
	for _, a := range call.Args {
		first = append(first, show(a))
	}
	return fmt.Sprintf("%s(%s)", call.Method, strings.Join(first, ", "))
}

// cell is a value as the table shows it: blank for nil, cut when long.
func cell(v any) string {
	if v == nil {
		return ""
	}
	s := show(v)
	if n := len([]rune(s)); n > maxCell {
		s = string([]rune(s)[:maxCell-1]) + "…"
	}
	return s
}

// show writes a value for a message: strings quoted, durations short.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case string:
		return fmt.Sprintf("%q", v)
	case time.Duration:
		return Offset(v)
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case error, fmt.Stringer:
		return fmt.Sprint(v) // which survives a nil pointer's method
	}
	// A nil slice or map and an empty one print alike with %v; the
	// difference can be the very bug.
	if rv := reflect.ValueOf(v); (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map) && rv.IsNil() {
		return "nil"
	}
	if structured(v) {
		return fmt.Sprintf("%+v", v)
	}
	return fmt.Sprint(v)
}

// Offset writes a duration the short way a timeline table wants: 0s, 4s,
// 9.999999999s, 5m, 1h30m, 168h, -5s.
func Offset(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// A Brief fits one screen: briefLines lines of at most briefWidth
// characters, the whole table up to wholeTable steps and otherwise the
// steps before and after the first ✗, explainLines of a message and
// maxFrames of a panic's stack. A Summary has at most summaryWidth.
const (
	briefLines    = 30
	briefWidth    = 600
	summaryWidth  = 160
	wholeTable    = 15
	before, after = 4, 2
	explainLines  = 4
	maxFrames     = 4
)

// cutNote ends a Brief that left something out.
const cutNote = "(cut to one screen; ALL=1 shows the whole report)"

// cutLinesTo keeps at most n lines of s, the last of them "…" when some
// were cut, and reports whether it cut any.
func cutLinesTo(s string, n int) (string, bool) {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s, false
	}
	return strings.Join(append(lines[:n-1:n-1], "…"), "\n"), true
}

// summaryLine is s cut to a Summary's width with suffix after it: " (step 3)".
func summaryLine(s, suffix string) string {
	return protocol.CutLine(s, summaryWidth-len(suffix)) + suffix
}

// withWhere adds a learner's line to a summary: "… (hitcounter.go:31)".
func withWhere(s string, frames []protocol.Frame) string {
	loc := ""
	if f, ok := learnerFrame(frames); ok {
		loc = fmt.Sprintf(" (%s:%d)", filepath.Base(f.File), f.Line)
	}
	return summaryLine(s, loc)
}
