package timeline

import (
	"fmt"
	"reflect"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/clock"
)

// maxCell is the widest a value may be in the table; a longer one is cut
// and shown whole in a diff under the table.
const maxCell = 40

type report[T any] struct {
	c       Case[T]
	start   time.Time
	results []stepResult
}

// failed explains a case whose step first differs at step first (0 if only
// the probe failed).
func (r report[T]) failed(first int, probeErr error) string {
	var b strings.Builder
	r.header(&b)
	if first > 0 {
		s := r.c.Steps[first-1]
		fmt.Fprintf(&b, "%s = %s, want %s\n", r.c.callText(s), show(r.results[first-1].got), show(s.Call.Want))
		fmt.Fprintf(&b, "Step %d is the first that differs; every step marked ✗ differs.\n", first)
	}
	if probeErr != nil {
		if first > 0 {
			b.WriteString("After the steps, the check also failed: ")
		} else if len(r.c.Steps) > 0 {
			b.WriteString("Every step gave its result, but the check after them failed: ")
		}
		fmt.Fprintf(&b, "%v\n", probeErr)
	}
	r.table(&b, func(i int) string {
		if r.results[i].ran && !r.c.Steps[i].Call.matches(r.results[i].got) {
			return "✗"
		}
		return ""
	})
	r.diffs(&b)
	return strings.TrimRight(b.String(), "\n")
}

// panicked explains a panic at step at (0: in the constructor; past the
// last step: in the probe).
func (r report[T]) panicked(at int, p *panicInfo) string {
	var b strings.Builder
	r.header(&b)
	switch {
	case at == 0:
		fmt.Fprintf(&b, "%s panicked: %v\n", r.c.Setup, p.value)
	case at <= len(r.c.Steps):
		fmt.Fprintf(&b, "%s panicked: %v\n", r.c.callText(r.c.Steps[at-1]), p.value)
	default:
		fmt.Fprintf(&b, "the check after the steps panicked: %v\n", p.value)
	}
	for _, f := range p.where {
		fmt.Fprintf(&b, "    %s:%d in %s\n", f.file, f.line, f.function)
	}
	r.table(&b, r.stoppedAt(at))
	return strings.TrimRight(b.String(), "\n")
}

// exited explains a case whose goroutine ended without returning, as
// runtime.Goexit does: at is where it was.
func (r report[T]) exited(at int, where string) string {
	var b strings.Builder
	r.header(&b)
	fmt.Fprintf(&b, "the case stopped in %s without returning or panicking: does your code call runtime.Goexit, or t.FailNow from another goroutine? Nothing after that point ran.\n", where)
	r.table(&b, r.stoppedAt(at))
	return strings.TrimRight(b.String(), "\n")
}

// stoppedAt marks the step the case stopped at with "!", and every step
// before it that gave another result with "✗".
func (r report[T]) stoppedAt(at int) func(i int) string {
	return func(i int) string {
		if i == at-1 {
			return "!"
		}
		if r.results[i].ran && !r.c.Steps[i].Call.matches(r.results[i].got) {
			return "✗"
		}
		return ""
	}
}

func (r report[T]) header(b *strings.Builder) {
	fmt.Fprintf(b, "case %q (part %d)", r.c.Name, r.c.Part)
	if r.c.Setup != "" {
		fmt.Fprintf(b, ", built with %s", r.c.Setup)
	}
	b.WriteString("\n")
	if !r.start.Equal(clock.Epoch) {
		fmt.Fprintf(b, "t counts from %s\n", r.start.Format(time.RFC3339Nano))
	}
}

// table writes the timeline: one row a step, with a marker column.
func (r report[T]) table(b *strings.Builder, mark func(i int) string) {
	if len(r.c.Steps) == 0 {
		return
	}
	b.WriteString("\n")
	var table strings.Builder
	defer func() {
		// tabwriter pads the last column too; no line ends in spaces.
		for _, line := range strings.SplitAfter(table.String(), "\n") {
			b.WriteString(strings.TrimRight(line, " \n"))
			if strings.HasSuffix(line, "\n") {
				b.WriteString("\n")
			}
		}
	}()
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tstep\tt\tcall\twant\tgot")
	for i, s := range r.c.Steps {
		got := "(not run)"
		if r.results[i].ran {
			got = cell(r.results[i].got)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", mark(i), i+1, Offset(s.At), s.Call.text(), cell(s.Call.Want), got)
	}
	tw.Flush()
}

// diffs writes a (-want +got) diff for each differing step whose values are
// structured or too long for the table.
func (r report[T]) diffs(b *strings.Builder) {
	for i, s := range r.c.Steps {
		res := r.results[i]
		if !res.ran || s.Call.Accept != nil || s.Call.matches(res.got) {
			continue
		}
		if !structured(s.Call.Want) && len(show(s.Call.Want)) <= maxCell && len(show(res.got)) <= maxCell {
			continue
		}
		fmt.Fprintf(b, "\nstep %d, %s mismatch (-want +got):\n%s", i+1, r.c.callText(s), safeDiff(s.Call.Want, res.got, s.Call.Opts))
	}
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
	args := append([]string{"t=" + Offset(s.At)}, s.Call.argTexts()...)
	return fmt.Sprintf("%s(%s)", s.Call.Method, strings.Join(args, ", "))
}

// text writes the call without its time, for the table's call column.
func (call Call[T]) text() string {
	return fmt.Sprintf("%s(%s)", call.Method, strings.Join(call.argTexts(), ", "))
}

func (call Call[T]) argTexts() []string {
	out := make([]string, len(call.Args))
	for i, a := range call.Args {
		out[i] = show(a)
	}
	return out
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
