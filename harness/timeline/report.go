package timeline

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// maxCell is the widest a value may be in the table; a longer one is cut
// and shown whole in a diff under the table.
const maxCell = 40

// report explains a case that did not pass.
type report[T any] struct {
	c       Case[T]
	start   time.Time
	results []stepResult
	// what is the explanation, paragraph by paragraph; a brief keeps
	// explainLines of each.
	what   []string
	frames []frame // a panic's stack
	// stop is the step, from 1, that a panic or a Goexit stopped at; 0
	// for none.
	stop int
	// focus is the step index a brief keeps the rows around.
	focus int
	diffs []string
}

// text writes the report; brief cuts it to one screen around the focus.
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
			w = cutLines(w, explainLines)
		}
		b.WriteString(w + "\n")
	}
	cut := false
	for i, f := range r.frames {
		if brief && i == maxFrames {
			cut = true
			break
		}
		fmt.Fprintf(&b, "    %s:%d in %s\n", f.File, f.Line, f.Function)
	}
	if !brief {
		r.someRows(&b, keepAll)
		for _, d := range r.diffs {
			b.WriteString("\n" + d)
		}
		return strings.TrimRight(b.String(), "\n")
	}
	r.someRows(&b, r.keepAround())
	cut = cut || len(r.c.Steps) > wholeTable
	if len(r.diffs) > 0 {
		// Only the first diff; the table marks the later ones.
		cut = cut || len(r.diffs) > 1
		room := briefLines - strings.Count(b.String(), "\n") - 3
		d, over := cutLinesTo(strings.TrimRight(r.diffs[0], "\n"), max(room, 4))
		b.WriteString("\n" + d + "\n")
		cut = cut || over
	}
	return finishBrief(&b, cut)
}

// explain sets out's Report and Brief.
func (r report[T]) explain(out *Outcome) {
	out.Report, out.Brief = r.text(false), r.text(true)
}

// mark is "!" for the step a panic or a Goexit stopped at, and "✗" for
// another that ran and gave another result.
func (r report[T]) mark(i int) string {
	switch {
	case i == r.stop-1:
		return "!"
	case r.results[i].ran && !r.c.Steps[i].Call.matches(r.results[i].got):
		return "✗"
	}
	return ""
}

func keepAll(int) bool { return true }

// wrongCall is the first wrong call as the Go test comments guide writes
// it: Count(t=4s) = 3, want 5.
func (r report[T]) wrongCall(first int) string {
	s := r.c.Steps[first-1]
	return fmt.Sprintf("%s = %s, want %s", r.c.callText(s), show(r.results[first-1].got), show(s.Call.Want))
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
// of steps left out is one row, "… 15 steps …", that says how many of them
// are marked too.
func (r report[T]) someRows(b *strings.Builder, keep func(i int) bool) {
	if len(r.c.Steps) == 0 {
		return
	}
	b.WriteString("\n")
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tstep\tt\tcall\twant\tgot")
	// gaps[k] is the run of steps left out just before the k-th row kept;
	// the last, the run after the last row.
	type gap struct{ steps, marked int }
	gaps := []gap{{}}
	for i, s := range r.c.Steps {
		if !keep(i) {
			g := &gaps[len(gaps)-1]
			g.steps++
			if r.mark(i) != "" {
				g.marked++
			}
			continue
		}
		gaps = append(gaps, gap{})
		got := "(not run)"
		if r.results[i].ran {
			got = cell(r.results[i].got)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", r.mark(i), i+1, Offset(s.At), s.Call.text(), cell(s.Call.Want), got)
	}
	tw.Flush()
	// The rows left out are written between the table's lines, not through
	// tabwriter: a line without cells would end its columns there.
	lines := strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")
	indent := strings.Repeat(" ", strings.Index(lines[0], "step"))
	writeGap := func(g gap) {
		if g.steps > 0 {
			b.WriteString(indent + gapText(g.steps, g.marked) + "\n")
		}
	}
	for k, line := range lines {
		if k > 0 {
			writeGap(gaps[k-1])
		}
		// tabwriter pads the last column too; no line ends in spaces.
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	writeGap(gaps[len(gaps)-1])
}

// gapText is the row that stands for steps left out of a brief table.
func gapText(steps, marked int) string {
	s := fmt.Sprintf("… %d steps", steps)
	if steps == 1 {
		s = "… 1 step"
	}
	switch {
	case marked == 1 && steps == 1:
		s += ", marked ✗"
	case marked == 1:
		s += ", 1 of them ✗"
	case marked > 1:
		s += fmt.Sprintf(", %d of them ✗", marked)
	}
	return s + " …"
}

// diffBlocks returns a (-want +got) diff, ending in a newline, for each
// differing step whose values are structured or too long for the table.
func (r report[T]) diffBlocks() []string {
	var out []string
	for i, s := range r.c.Steps {
		res := r.results[i]
		if !res.ran || s.Call.Accept != nil || s.Call.matches(res.got) {
			continue
		}
		if !structured(s.Call.Want) && len(show(s.Call.Want)) <= maxCell && len(show(res.got)) <= maxCell {
			continue
		}
		out = append(out, fmt.Sprintf("step %d, %s mismatch (-want +got):\n%s", i+1, r.c.callText(s), safeDiff(s.Call.Want, res.got, s.Call.Opts)))
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
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
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

// keepAround says which steps a brief table keeps around the step at index
// focus: all when there are few; else the first, which starts the state,
// the few before focus, focus, and two after. A gap of one step is shown.
func (r report[T]) keepAround() func(i int) bool {
	n, focus := len(r.c.Steps), r.focus
	if n <= wholeTable {
		return keepAll
	}
	near := func(i int) bool { return i == 0 || (i >= focus-before && i <= focus+after) }
	return func(i int) bool {
		return near(i) || (i > 0 && i < n-1 && near(i-1) && near(i+1))
	}
}

// finishBrief ends a Brief: the note when something was left out, and a
// last cut should the pieces still run over the budget.
func finishBrief(b *strings.Builder, cut bool) string {
	s := strings.TrimRight(b.String(), "\n")
	if kept, over := cutLinesTo(s, briefLines-1); over {
		s, cut = kept, true
	}
	if cut {
		s += "\n" + cutNote
	}
	return s
}

// cutLines keeps at most n lines of s, each cut to briefWidth.
func cutLines(s string, n int) string {
	kept, _ := cutLinesTo(s, n)
	lines := strings.Split(kept, "\n")
	for i, l := range lines {
		if l != "…" {
			lines[i] = protocol.CutLine(l, briefWidth)
		}
	}
	return strings.Join(lines, "\n")
}

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
func withWhere(s string, frames []frame) string {
	loc := ""
	if f, ok := learnerFrame(frames); ok {
		loc = fmt.Sprintf(" (%s:%d)", filepath.Base(f.File), f.Line)
	}
	return summaryLine(s, loc)
}
