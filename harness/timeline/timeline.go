// Package timeline is the runner every level's spec is written for: a Case
// is calls made at offsets on a fake clock, each with the result it should
// give, and a failure prints the timeline with every differing step marked.
package timeline

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Case is one timeline, or one free-form check, against a fresh implementation.
type Case[T any] struct {
	Name      string // the subtest's, without a slash; a fuzz case named "fuzz" is named for its input
	Part      int    // the README's part that the case checks, from 1
	Setup     string // how the report writes the constructor: "New(10s)"
	New       func(clk clock.Clock) T
	Start     time.Time                           // the instant of offset 0; the zero Time means clock.Epoch
	Clocked   bool                                // the code reads the clock: calls read "at t=4s: QPS(Put, 5m)"
	Steps     []Step[T]                           // in order; offsets may repeat or go backwards
	Probe     func(impl T, clk *clock.Fake) error // if set, runs after the steps for what a timeline cannot say
	InProcess string                              // why the probe can be measured only in the implementation's process (see PlayElsewhere)
}

// Step is one call at an offset from the case's start.
type Step[T any] struct {
	At   time.Duration
	Call Call[T]
}

// At is the short way to write a Step in a table: At(10*sec, count(1)).
func At[T any](offset time.Duration, call Call[T]) Step[T] { return Step[T]{At: offset, Call: call} }

// Call is a method call and the result it should give.
type Call[T any] struct {
	Method string
	Args   []any                           // shown after the time: Count(t=4s, "latte")
	Do     func(impl T, now time.Time) any // makes the call and returns its result (nil for none)
	Want   any                             // compared with cmp.Equal and Opts
	Opts   []cmp.Option
	Accept func(got any) bool // if set, replaces the comparison; Want then says the range in words
}

// Outcome is what Play found, and the case's line in go test's output.
type Outcome = protocol.Event

// A case may run DefaultTimeout, or as long as the variable TimeoutEnv
// says ("30s"), before it is reported as stuck.
const (
	TimeoutEnv     = "LADDER_CASE_TIMEOUT"
	DefaultTimeout = 10 * time.Second
)

// Run runs cases as subtests grouped by part: "part 1/a hit at the epoch".
func Run[T any](t *testing.T, cases []Case[T]) {
	t.Helper()
	for part := 1; slices.ContainsFunc(cases, func(c Case[T]) bool { return c.Part >= part }); part++ {
		t.Run(fmt.Sprintf("part %d", part), func(t *testing.T) {
			for _, c := range cases {
				if c.InProcess != "" && elsewhereCPU.Load() != nil {
					c.Probe = nil // a checker in another process cannot measure it
				}
				if c.Part == part && (len(c.Steps) > 0 || c.Probe != nil) {
					t.Run(c.Name, func(t *testing.T) { RunCase(t, c) })
				}
			}
		})
	}
}

// RunCase plays one case in the current test and reports its outcome.
func RunCase[T any](t *testing.T, c Case[T]) {
	t.Helper()
	fuzz := strings.HasPrefix(t.Name(), "Fuzz")
	if fuzz && (c.Name == "" || c.Name == "fuzz") {
		c.Name = fuzzName(t.Name(), len(c.Steps))
	}
	o := Play(c)
	line := o.Report
	if os.Getenv(protocol.GradeEnv) != "" { // for the ladder command, which reads go test -json
		o.Kind, o.Test, o.Fuzz = protocol.CaseEnd, t.Name(), fuzz
		if len(o.Report) > 32<<10 { // what a case's line carries
			o.Report = o.Report[:32<<10] + "\n… (report cut)"
		}
		line = protocol.CaseLine(o)
		if o.Verdict == protocol.Pass {
			t.Log(line)
		}
	}
	if o.Verdict != protocol.Pass {
		t.Error(line)
	}
}

// Fuzz is the body of a spec's fuzz target: it adds the seeds to f and
// plays with RunCase the case decode makes of each input, built with newT.
func Fuzz[T, N any](f *testing.F, seeds [][]byte, newT N, decode func(newT N, data []byte) Case[T]) {
	f.Helper()
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { RunCase(t, decode(newT, data)) })
}

// fuzzName names a fuzz case for where its input came from: "FuzzX/seed#3",
// "FuzzX/3a9f…" (the corpus), or plain "FuzzX" (the fuzzer, now).
func fuzzName(test string, steps int) string {
	what := fmt.Sprintf("fuzz: random timeline of %d step%s", steps, map[bool]string{true: "s"}[steps != 1])
	target, input, ok := strings.Cut(test, "/")
	saved := filepath.Join("testdata", "fuzz", target, input)
	_, err := os.Stat(saved)
	switch {
	case !ok:
		return what + " (made by the fuzzer just now)"
	case strings.HasPrefix(input, "seed#"):
		return fmt.Sprintf("%s (%s in spec/fuzz.go)", what, input)
	case err == nil:
		return fmt.Sprintf("%s (found by the fuzzer, saved in %s)", what, filepath.ToSlash(saved))
	}
	return fmt.Sprintf("%s (found by the fuzzer, input %s in its cache)", what, input)
}

// PlayAll plays the cases of parts 1 to part (all, for 0) and returns their outcomes.
func PlayAll[T any](part int, cases []Case[T]) []Outcome {
	var out []Outcome
	for _, c := range cases {
		if part == 0 || c.Part <= part {
			out = append(out, Play(c))
		}
	}
	return out
}

// Row is a Case of a level's table, with the constructor's argument instead of the constructor.
type Row[T, A any] struct {
	Name      string
	Part      int
	Arg       A // what the constructor takes besides a clock
	Start     time.Time
	Steps     []Step[T]
	Probe     func(impl T, env Env[T, A]) error
	InProcess string
}

// Env is what a row's probe has besides the implementation.
type Env[T, A any] struct {
	Clock *clock.Fake   // the case's, at the instant of the last step
	New   func(arg A) T // builds another implementation on Clock
}

// Binding says how a level's rows become cases.
type Binding[T, A any] struct {
	New     func(clk clock.Clock, arg A) T
	Setup   func(arg A) string // the constructor call as a report shows it: "New(10s)"
	Clocked bool
}

// Bind makes a case of each row, built by b.
func Bind[T, A any](b Binding[T, A], rows ...Row[T, A]) []Case[T] {
	out := make([]Case[T], len(rows))
	for i, r := range rows {
		out[i] = Case[T]{Name: r.Name, Part: r.Part, Setup: b.Setup(r.Arg), Start: r.Start, Clocked: b.Clocked, Steps: r.Steps,
			InProcess: r.InProcess, New: func(clk clock.Clock) T { return b.New(clk, r.Arg) }}
		if r.Probe != nil {
			out[i].Probe = func(impl T, clk *clock.Fake) error {
				return r.Probe(impl, Env[T, A]{Clock: clk, New: func(arg A) T { return b.New(clk, arg) }})
			}
		}
	}
	return out
}

// Unclocked is the binding of a constructor that takes one argument and no
// clock, written New(5m), or New(5s, 1s) through the argument's String.
func Unclocked[T, A any](newT func(arg A) T) Binding[T, A] {
	return Binding[T, A]{
		New:   func(_ clock.Clock, arg A) T { return newT(arg) },
		Setup: func(arg A) string { return "New(" + show(arg) + ")" },
	}
}

// Erase turns a constructor of a concrete type C into one of the spec's
// interface I; Go cannot say "C implements I" of two type parameters, so
// it converts at run time, and panics naming both types if it cannot.
func Erase[I, C, A any](newC func(arg A) C) func(arg A) I {
	return func(arg A) I {
		c := newC(arg)
		i, ok := any(c).(I)
		if !ok && any(c) != nil { // a nil interface value converts to a nil I
			panic(fmt.Sprintf("timeline.Erase: %T does not implement %v", c, reflect.TypeFor[I]()))
		}
		return i
	}
}

// Parallel runs f(0) to f(n-1) in n goroutines and waits for them; a panic
// in any is raised again in the caller.
func Parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	panics := make(chan any, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					panics <- v
				}
			}()
			f(i)
		}()
	}
	if wg.Wait(); len(panics) > 0 {
		panic(<-panics)
	}
}

// Choices reads fuzz input as a stream of small decisions, 0 once it runs out.
type Choices []byte

// NewChoices reads decisions from data.
func NewChoices(data []byte) *Choices { return (*Choices)(&data) }

// More reports whether any input is left.
func (c *Choices) More() bool { return len(*c) > 0 }

// Intn returns a number in [0, n), n at most 65536, from the next one or two bytes.
func (c *Choices) Intn(n int) int {
	v := int(c.next())
	if n > 256 {
		v = v<<8 | int(c.next())
	}
	return v % n
}

func (c *Choices) next() (b byte) {
	if c.More() {
		b, *c = (*c)[0], (*c)[1:]
	}
	return b
}

// Pick returns one of the options, chosen by the next byte.
func Pick[E any](c *Choices, options ...E) E { return options[c.Intn(len(options))] }

// PanicMessage runs f and returns the message it panicked with, if it did;
// a stub's "not implemented" panic is raised again.
func PanicMessage(f func()) (msg string, panicked bool) {
	defer func() {
		v := recover()
		if _, stub := notImplemented(v); stub {
			panic(v)
		}
		msg, panicked = fmt.Sprint(v), v != nil
	}()
	f()
	return "", false
}

// NonPositivePanics is the probe that New(0) and New(-1s) panic, naming the value.
func NonPositivePanics[T any](_ T, e Env[T, time.Duration]) error {
	for _, d := range []time.Duration{0, -time.Second} {
		s := fmt.Sprint(d)
		switch msg, panicked := PanicMessage(func() { e.New(d) }); {
		case !panicked:
			return fmt.Errorf("New(%s) returned, want a panic whose message names %s", s, s)
		case !strings.Contains(msg, s):
			return fmt.Errorf("New(%s) panicked with %q, want a message that names %s", s, msg, s)
		}
	}
	return nil
}

// WithinLimit calls do(i) for i in [0, n) and fails, naming how far it got,
// once they have taken more than limit of CPU time (or of the clock, where
// that cannot be read); what and the README's bound are for the message.
func WithinLimit(n int, limit time.Duration, what, bound string, do func(i int)) error {
	start, cpuOK := procgroup.SelfCPU()
	wall := time.Now()
	for i := range n {
		if do(i); i%16 != 15 && i < n-1 {
			continue // reading the time costs more than a fast call
		}
		used := time.Since(wall)
		if now, _ := procgroup.SelfCPU(); cpuOK {
			used = now - start
		}
		if used > limit {
			return fmt.Errorf("%s did not finish within %v: %d of them took %v; %s", what, limit, i+1, used.Round(time.Millisecond), bound)
		}
	}
	return nil
}

// RaceEnabled says the binary is built with the race detector, which slows
// code ten to fifty times: the complexity cases then allow more.
var RaceEnabled = func() bool {
	info, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(info.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}()

// LiveHeap returns the bytes of live heap objects after a collection.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// SteadyStateAllocs returns the allocations per run of n calls gap apart,
// after warm ones: the least of three, as the process may allocate elsewhere.
func SteadyStateAllocs(gap time.Duration, warm, n int, call func(now time.Time)) float64 {
	now := clock.Epoch
	calls := func(k int) {
		for range k {
			now = now.Add(gap)
			call(now)
		}
	}
	calls(warm)
	run := func() { calls(n) }
	return min(testing.AllocsPerRun(5, run), testing.AllocsPerRun(5, run), testing.AllocsPerRun(5, run))
}

// CheckREADMESamples checks that every code block of readme that starts
// `case "` is the Brief the cases, built with a wrong implementation, give.
func CheckREADMESamples[T any](t *testing.T, readme string, cases []Case[T]) {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatalf("reading the README: %v", err)
	}
	nbsp := strings.NewReplacer("\u00a0", " ") // cmp.Diff picks spaces or no-break spaces at random
	briefs := map[string]string{}              // by first line
	for _, o := range PlayAll(0, cases) {
		first, _, _ := strings.Cut(o.Brief, "\n")
		briefs[first] = nbsp.Replace(o.Brief)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	samples := sampleRE.FindAllStringSubmatchIndex(text, -1)
	if len(samples) == 0 {
		t.Fatalf("%s shows no sample failure (a code block starting with `case \"`)", readme)
	}
	for _, m := range samples {
		sample, line := nbsp.Replace(text[m[2]:m[3]]), strings.Count(text[:m[2]], "\n")+1
		if first, _, _ := strings.Cut(sample, "\n"); briefs[first] != sample {
			t.Errorf("%s:%d: the sample differs from the runner's brief report of that case (none, if empty).\nREADME:\n%s\n\nrunner:\n%s", readme, line, sample, briefs[first])
		}
	}
}

// sampleRE finds a code block whose first line starts `case "`.
var sampleRE = regexp.MustCompile("(?ms)^[ \t]*```[^\n]*\n(case \".*?)\n[ \t]*```")
