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
	if c.Start.IsZero() {
		c.Start = clock.Epoch
	}
	r := report[T]{c: c, got: make([]any, len(c.Steps))}
	var (
		current  atomic.Int64 // the step being run, from 1; 0 while constructing, len+1 in the probe
		caught   any
		probeErr error
		finished bool // false after runtime.Goexit
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		defer func() {
			if caught = recover(); caught != nil {
				r.frames, r.where = panicFrames()
			}
		}()
		clk := clock.NewFake()
		clk.Set(c.Start)
		impl := c.New(clk)
		for i, s := range c.Steps {
			current.Store(int64(i + 1))
			clk.Set(c.Start.Add(s.At))
			r.got[i] = s.Call.Do(impl, c.Start.Add(s.At))
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
	more := stuckCheck(timeout)
	for wait := timeout; wait > 0; wait = more() {
		select {
		case <-done:
			return r.judge(int(current.Load()), caught, finished, probeErr)
		case <-time.After(wait):
		}
	}
	at := int(current.Load())
	out := Outcome{Name: c.Name, Part: c.Part, Verdict: protocol.TimedOut, Step: at}
	out.Summary = summaryLine(fmt.Sprintf("%s did not finish in %v: too slow, a loop that never ends, or a deadlock", c.callAt(at, false), timeout), "")
	out.Report = fmt.Sprintf("case %q (part %d) did not finish in %v: is it too slow, a loop that never ends, or a deadlock?\nIt was in %s. (%s sets the limit; the cases after this one still run, each on a fresh implementation.)",
		c.Name, c.Part, timeout, c.callAt(at, true), TimeoutEnv)
	out.Brief = out.Report // a few lines, and no table
	return out
}

// judge gives the outcome of a case that ended at step at.
func (r report[T]) judge(at int, caught any, finished bool, probeErr error) Outcome {
	c := r.c
	out := Outcome{Name: c.Name, Part: c.Part, Step: at}
	r.stop, r.focus = at, min(max(at-1, 0), len(c.Steps))
	switch msg, stub := notImplemented(caught); {
	case stub:
		out.Verdict, out.Missing, out.Where = protocol.NotImplemented, msg, r.where
		out.Summary = strings.TrimSuffix("not implemented yet: "+msg+" ("+r.where+")", " ()")
		out.Report = fmt.Sprintf("%s\ncase %q (part %d) needs it.", out.Summary, c.Name, c.Part)
		out.Brief = out.Report
		return out
	case caught != nil:
		out.Verdict = protocol.Panicked
		r.what = []string{fmt.Sprintf("%s panicked: %v", c.callAt(at, false), caught)}
		where := ""
		if r.where != "" {
			where = " (" + filepath.Base(r.where) + ")"
		}
		out.Summary = summaryLine(r.what[0], where)
	case !finished:
		out.Verdict = protocol.Exited
		r.what = []string{fmt.Sprintf("the case stopped in %s without returning or panicking: does your code call runtime.Goexit, or t.FailNow from another goroutine? Nothing after that point ran.", c.callAt(at, true))}
		out.Summary = summaryLine(c.callAt(at, false)+" stopped without returning or panicking: runtime.Goexit?", "")
	default:
		out.Step = 0
		for i, s := range c.Steps {
			if !s.Call.matches(r.got[i]) {
				out.Step = i + 1
				break
			}
		}
		first := out.Step
		if first == 0 && probeErr == nil {
			out.Verdict = protocol.Pass
			return out
		}
		out.Verdict = protocol.Fail
		r.stop, r.focus, r.diffs = 0, len(c.Steps), r.diffBlocks()
		if first > 0 {
			r.focus = first - 1
			r.what = append(r.what, fmt.Sprintf("%s\nStep %d is the first that differs; every step marked ✗ differs.", r.wrongCall(first), first))
			out.Summary = summaryLine(r.wrongCall(first), fmt.Sprintf(" (step %d)", first))
		} else {
			out.Summary = summaryLine(probeErr.Error(), "")
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
	}
	out.Report, out.Brief = r.text(false), r.text(true)
	return out
}

// matches reports whether got is an acceptable result for the call.
func (call Call[T]) matches(got any) bool {
	if call.Accept != nil {
		return call.Accept(got)
	}
	return cmp.Equal(call.Want, got, call.opts())
}

// opts are the call's options, and unexported fields compared as any
// other: cmp.Equal panics on those it was not told about.
func (call Call[T]) opts() cmp.Option {
	return cmp.Options{cmp.Options(call.Opts), cmp.Exporter(func(reflect.Type) bool { return true })}
}

// notImplemented recognises a stub's panic: "not implemented: Counter.Hit".
func notImplemented(v any) (string, bool) {
	s, ok := strings.CutPrefix(fmt.Sprint(v), "not implemented")
	if s = strings.TrimSpace(strings.TrimPrefix(s, ":")); ok && s == "" {
		s = "(the panic does not name the method)"
	}
	return s, ok
}

// panicFrames returns, from the recovering defer, the panic's stack without
// the runtime's or this file's frames, as "file:line in function" lines, and
// where, the innermost file:line in the learner's code.
func panicFrames() (frames []string, where string) {
	pcs := make([]uintptr, 64)
	stack := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	afterPanic := false
	for f, more := stack.Next(); more && len(frames) < maxFrames; f, more = stack.Next() {
		switch file := sourceFile(f.File); {
		case f.Function == "runtime.gopanic":
			afterPanic = true
		case afterPanic && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasSuffix(f.File, "harness/timeline/play.go"):
			frames = append(frames, fmt.Sprintf("%s:%d in %s", file, f.Line, protocol.ShortFunc(f.Function)))
			if where == "" && levels.InLearnersCode(file) {
				where = fmt.Sprintf("%s:%d", file, f.Line)
			}
		}
	}
	return frames, where
}

// sourceFile writes a traceback's file from the repository's top, where
// its last folder ladder/, solutions/ or harness/ begins.
func sourceFile(path string) string {
	from := 0
	for _, top := range []string{"/ladder/", "/solutions/", "/harness/"} {
		from = max(from, strings.LastIndex("/"+path, top))
	}
	return path[from:]
}

// A case past its limit by the clock is stopped only once it has spent the
// limit in CPU time, or is idle, or has run hangFactor times the limit: a
// busy machine slows a right answer by the clock but not in CPU time. Below
// idleShare of a CPU, the code counts as waiting.
const (
	hangFactor = 30
	idleShare  = 0.05
)

// selfCPU reads this process's CPU time; elsewhereCPU, set by
// PlayElsewhere, that of the code under test in another process.
var (
	selfCPU      = procgroup.SelfCPU
	elsewhereCPU atomic.Pointer[func() (time.Duration, bool)]
)

// PlayElsewhere says the code under test runs in another process, whose CPU
// time f reads. Run then leaves out InProcess probes, and such a case is
// never judged idle: two processes waiting on each other look idle.
func PlayElsewhere(f func() (time.Duration, bool)) { elsewhereCPU.Store(&f) }

// stuckCheck returns how much longer, each time a case's wait ends, it may
// run before the next check: 0 when it is stuck now.
func stuckCheck(limit time.Duration) func() time.Duration {
	read, away := selfCPU, elsewhereCPU.Load()
	if away != nil {
		read = *away
	}
	started := time.Now()
	cpuStart, measured := read()
	lastCheck, lastCPU := started, cpuStart
	return func() time.Duration {
		now := time.Now()
		elapsed := now.Sub(started)
		cpu, ok := read()
		used := cpu - cpuStart
		idle := away == nil && float64(cpu-lastCPU) < idleShare*float64(now.Sub(lastCheck))
		if !measured || !ok || elapsed >= hangFactor*limit || used >= limit || idle {
			return 0
		}
		lastCheck, lastCPU = now, cpu
		return min(max(limit-used, limit/20), hangFactor*limit-elapsed)
	}
}

// report explains a case that did not pass.
type report[T any] struct {
	c      Case[T]
	got    []any    // what each step gave
	ran    int      // the steps that returned
	what   []string // the explanation by paragraph; a brief keeps explainLines of each
	frames []string // a panic's stack
	where  string   // a panic's line in the learner's code
	stop   int      // the step, from 1, that a panic or a Goexit stopped at; 0 for none
	focus  int      // the step index a brief keeps the rows around
	diffs  []string
}

// text writes the report; brief cuts it to one screen: of a long table the
// first step (it starts the state) and those near the focus, and the first
// diff only (the table marks the others).
func (r report[T]) text(brief bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %q (part %d)", r.c.Name, r.c.Part)
	if r.c.Setup != "" {
		fmt.Fprintf(&b, ", built with %s", r.c.Setup)
	}
	if !r.c.Start.Equal(clock.Epoch) {
		fmt.Fprintf(&b, "\nt counts from %s", r.c.Start.Format(time.RFC3339Nano))
	}
	for _, w := range r.what {
		if brief {
			w, _ = cutLines(w, explainLines)
		}
		b.WriteString("\n" + w)
	}
	for _, f := range r.frames {
		b.WriteString("\n    " + f)
	}
	b.WriteString("\n")
	n, focus := len(r.c.Steps), r.focus
	near := func(i int) bool {
		return !brief || n <= wholeTable || i == 0 || (i >= focus-before && i <= focus+after)
	}
	r.someRows(&b, func(i int) bool { return near(i) || (i > 0 && i < n-1 && near(i-1) && near(i+1)) })
	for i, d := range r.diffs {
		if !brief || i == 0 {
			b.WriteString("\n" + d)
		}
	}
	s := strings.TrimRight(b.String(), "\n")
	if !brief {
		return s
	}
	s, cut := cutLines(s, briefLines-1)
	if cut || n > wholeTable || len(r.diffs) > 1 {
		s += "\n" + cutNote
	}
	return s
}

// mark is "!" for the step a panic or a Goexit stopped at, "✗" for a wrong one.
func (r report[T]) mark(i int) string {
	switch {
	case i == r.stop-1:
		return "!"
	case i < r.ran && !r.c.Steps[i].Call.matches(r.got[i]):
		return "✗"
	}
	return ""
}

// wrongCall writes a wrong call as Go's test comments guide does: Count(t=4s) = 3, want 5.
func (r report[T]) wrongCall(first int) string {
	s := r.c.Steps[first-1]
	return fmt.Sprintf("%s = %s, want %s", r.c.callText(s), show(r.got[first-1]), show(s.Call.Want))
}

// callAt names what ran at step at: the constructor (0), a call, numbered
// ("step 3, Count(t=4s)") if asked, or the check after the steps.
func (c Case[T]) callAt(at int, numbered bool) string {
	switch {
	case at == 0:
		return c.Setup
	case at > len(c.Steps):
		return "the check after the steps"
	case numbered:
		return fmt.Sprintf("step %d, %s", at, c.callText(c.Steps[at-1]))
	}
	return c.callText(c.Steps[at-1])
}

// someRows writes the timeline's header and the steps keep keeps.
func (r report[T]) someRows(b *strings.Builder, keep func(i int) bool) {
	if len(r.c.Steps) == 0 {
		return
	}
	b.WriteString("\n")
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tstep\tt\tcall\twant\tgot")
	// A run of steps left out is a row of empty cells, which keeps the
	// columns, written "… 15 steps …" after: gaps holds their lengths.
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
		out = append(out, fmt.Sprintf("step %d, %s mismatch (-want +got):\n%s", i+1, r.c.callText(s), cmp.Diff(s.Call.Want, got, s.Call.opts())))
	}
	return out
}

// structured says v is a map, slice, array, struct or pointer without a
// String method (as time.Time has): a diff shows it better than a cell.
func structured(v any) bool {
	_, stringer := v.(fmt.Stringer)
	k := reflect.ValueOf(v).Kind()
	return !stringer && (k == reflect.Map || k == reflect.Slice || k == reflect.Array || k == reflect.Struct || k == reflect.Pointer)
}

// callText writes a call: Count(t=4s), or "at t=4s: QPS(Put, 5m)" for a
// level that reads its clock.
func (c Case[T]) callText(s Step[T]) string {
	if c.Clocked {
		return fmt.Sprintf("at t=%s: %s", Offset(s.At), s.Call.text())
	}
	return s.Call.text("t=" + Offset(s.At))
}

// text writes the call with the arguments first before its own.
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
	return protocol.CutLine(show(v), maxCell)
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
	for _, zero := range []string{"h0m0s", "m0s"} {
		if strings.HasSuffix(s, zero) {
			return s[:len(s)-len(zero)+1]
		}
	}
	return s
}

// A Brief fits one screen; a table cell longer than maxCell is shown whole
// in a diff under the table.
const (
	maxCell       = 40
	briefLines    = 30  // lines of a Brief
	briefWidth    = 600 // characters of a Brief's line
	summaryWidth  = 160
	wholeTable    = 15   // the most steps a Brief shows whole
	before, after = 4, 2 // the steps around the focus a Brief shows of a longer table
	explainLines  = 4    // of each paragraph of explanation in a Brief
	maxFrames     = 4    // of a panic's stack
)

// cutNote ends a Brief that left something out.
const cutNote = "(cut to one screen; ALL=1 shows the whole report)"

// cutLines keeps at most n lines of s, each cut to briefWidth, the last
// of them "…" when some were cut, and reports whether it cut any.
func cutLines(s string, n int) (string, bool) {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = protocol.CutLine(l, briefWidth)
	}
	if len(lines) <= n {
		return strings.Join(lines, "\n"), false
	}
	return strings.Join(append(lines[:n-1:n-1], "…"), "\n"), true
}

// summaryLine is s cut to a Summary's width with suffix after it: " (step 3)".
func summaryLine(s, suffix string) string {
	return protocol.CutLine(s, summaryWidth-len(suffix)) + suffix
}
