package timeline

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
)

// Parallel runs f(0) to f(n-1) in n goroutines and waits for them; a panic
// in any is raised again in the caller.
func Parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	var once sync.Once
	var first any
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					once.Do(func() { first = v })
				}
			}()
			f(i)
		}()
	}
	wg.Wait()
	if first != nil {
		panic(first)
	}
}

// Choices reads fuzz input as a stream of small decisions, 0 once it runs out.
type Choices struct {
	data []byte
}

// NewChoices reads decisions from data.
func NewChoices(data []byte) *Choices { return &Choices{data: data} }

// More reports whether any input is left.
func (c *Choices) More() bool { return len(c.data) > 0 }

// Intn returns a number in [0, n) taken from the next one or two bytes.
// n must be between 1 and 65536.
func (c *Choices) Intn(n int) int {
	if n <= 0 || n > 1<<16 {
		panic("timeline: Choices.Intn: n must be between 1 and 65536")
	}
	v := int(c.next())
	if n > 256 {
		v = v<<8 | int(c.next())
	}
	return v % n
}

// Pick returns one of the options, chosen by the next byte.
func Pick[E any](c *Choices, options ...E) E {
	return options[c.Intn(len(options))]
}

func (c *Choices) next() byte {
	if len(c.data) == 0 {
		return 0
	}
	b := c.data[0]
	c.data = c.data[1:]
	return b
}

// PanicMessage runs f and returns the message it panicked with, if it did;
// a stub's "not implemented" panic is raised again.
func PanicMessage(f func()) (msg string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			if _, stub := notImplemented(v); stub {
				panic(v)
			}
			msg, panicked = fmt.Sprint(v), true
		}
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

// WithinLimit calls do(i) for i in [0, n) and fails if the calls take more
// than limit of CPU time, giving up early once their pace would take ten
// times the limit. what and bound (the README's bound) are for the message.
func WithinLimit(n int, limit time.Duration, what, bound string, do func(i int)) error {
	elapsed := cpuStopwatch()
	for i := range n {
		do(i)
		if i >= 256 && i%16 != 15 {
			continue // reading the time costs more than a fast call
		}
		elapsed := elapsed()
		pace := elapsed * time.Duration(n) / time.Duration(i+1)
		if elapsed > limit || elapsed > limit/20 && pace > 10*limit {
			return fmt.Errorf("%s did not finish within %v: %d of them took %v, and all would take about %v at that pace; %s",
				what, limit, i+1, elapsed.Round(time.Millisecond), pace.Round(time.Second), bound)
		}
	}
	if elapsed := elapsed(); elapsed > limit {
		return fmt.Errorf("%s took %v, more than %v; %s", what, elapsed.Round(time.Millisecond), limit, bound)
	}
	return nil
}

// RaceEnabled says the binary is built with the race detector, which slows
// plain code ten to fifty times: the complexity cases give it a longer
// limit and fewer calls (see IfRace).
var RaceEnabled = func() bool {
	info, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(info.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}()

// IfRace is plain, or race under the race detector: a complexity case's
// calls and limit, since -race slows a fast call far more than a slow one.
func IfRace[V any](plain, race V) V {
	if RaceEnabled {
		return race
	}
	return plain
}

// Thousands writes n with commas, as a README does: 100,000.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// LiveHeap returns the bytes of live heap objects after a collection.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// SteadyStateAllocs returns the allocations per run of n calls, gap apart
// from clock.Epoch after warm calls: the least of three measures, since
// something else in the process may allocate now and then.
func SteadyStateAllocs(gap time.Duration, warm, n int, call func(now time.Time)) float64 {
	now := clock.Epoch
	calls := func(k int) {
		for range k {
			now = now.Add(gap)
			call(now)
		}
	}
	calls(warm)
	least := math.Inf(1)
	for range 3 {
		least = min(least, testing.AllocsPerRun(5, func() { calls(n) }))
	}
	return least
}

// cpuStopwatch reads this process's CPU time since the call (or the clock's
// time where CPU time cannot be read).
func cpuStopwatch() func() time.Duration {
	start, ok := procgroup.SelfCPU()
	wall := time.Now()
	return func() time.Duration {
		if now, _ := procgroup.SelfCPU(); ok {
			return now - start
		}
		return time.Since(wall)
	}
}

// CheckREADMESamples checks that every code block of readme that starts
// `case "` is the Brief the cases, built with a wrong implementation, give.
func CheckREADMESamples[T any](t *testing.T, readme string, cases []Case[T]) {
	t.Helper()
	blocks, err := sampleBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatalf("%s shows no sample failure (a code block starting with `case \"`)", readme)
	}
	reports := map[string]string{} // by first line
	for _, o := range PlayAll(cases) {
		if o.Verdict != Pass {
			first, _, _ := strings.Cut(o.Brief, "\n")
			reports[first] = o.Brief
		}
	}
	for _, b := range blocks {
		first, _, _ := strings.Cut(b.text, "\n")
		got, ok := reports[first]
		if !ok {
			t.Errorf("%s:%d: the sample %q is not a failure this implementation gives", readme, b.line, first)
			continue
		}
		// cmp.Diff picks spaces or no-break spaces at random.
		if strings.ReplaceAll(got, "\u00a0", " ") != strings.ReplaceAll(b.text, "\u00a0", " ") {
			t.Errorf("%s:%d: the sample differs from the runner's real brief report.\nREADME:\n%s\n\nrunner:\n%s", readme, b.line, b.text, got)
		}
	}
}

type sample struct {
	line int
	text string
}

// sampleBlocks returns the code blocks of a Markdown file that start
// with `case "`.
func sampleBlocks(path string) ([]sample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the README: %w", err)
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []sample
	start := -1 // the index of a code block's first line, inside one
	for i, line := range lines {
		switch {
		case !strings.HasPrefix(strings.TrimSpace(line), "```"):
		case start < 0:
			start = i + 1
		default:
			if start < i && strings.HasPrefix(lines[start], `case "`) {
				out = append(out, sample{line: start + 1, text: strings.Join(lines[start:i], "\n")})
			}
			start = -1
		}
	}
	return out, nil
}

// CheckBriefs checks that each Brief of cases built with a wrong
// implementation fits one screen, says what is wrong in its first 10 lines
// and marks the first wrong step; some case must fail.
func CheckBriefs[T any](t *testing.T, cases []Case[T]) {
	t.Helper()
	failed := 0
	for _, o := range PlayAll(cases) {
		if o.Verdict == Pass {
			continue
		}
		failed++
		lines := strings.Split(o.Brief, "\n")
		t.Logf("case %q: brief %d lines, whole report %d", o.Name, len(lines), strings.Count(o.Report, "\n")+1)
		if len(lines) > briefLines {
			t.Errorf("case %q: Brief has %d lines, want at most %d:\n%s", o.Name, len(lines), briefLines, o.Brief)
		}
		what, _, _ := strings.Cut(o.Summary, " (step ")
		what = strings.TrimSuffix(what, "…")
		if !strings.Contains(strings.Join(lines[:min(10, len(lines))], "\n"), what) {
			t.Errorf("case %q: the first 10 lines of Brief do not say %q:\n%s", o.Name, what, o.Brief)
		}
		if o.Verdict == Fail && o.Step > 0 && !strings.Contains(o.Brief, fmt.Sprintf("✗  %d ", o.Step)) {
			t.Errorf("case %q: Brief lacks the ✗ of step %d:\n%s", o.Name, o.Step, o.Brief)
		}
	}
	if failed == 0 {
		t.Errorf("no case fails, so no brief was checked")
	}
}
