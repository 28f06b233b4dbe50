package grade

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Event is one line of go test -json (see go doc test2json).
type Event struct {
	Action, Package, ImportPath, Test, Output, FailedBuild string
}

// Bounds on a test's output, a build's, a line, a race report or crash read, a race cut.
const (
	testTail, buildTail, maxWatchedLine = 256 << 10, 8 << 10, 1 << 10
	maxRaceRead, maxCrashRead           = 400, 200
	maxRaceLines                        = 12
	leftoverWait                        = 3 * time.Second // how long go test may run on once every test binary ended
)

// binary is what go test -json said of one package's test binary.
type binary struct {
	pkg                       *Package
	tests                     map[string]*strings.Builder // the output of each test started; nil once it ended
	end, last                 string                      // go test's pass, fail or skip for the package; the testing package's PASS or FAIL
	race, crash               []string                    // the race report being read; the last crash, from its message on
	seen, failed, endedInTest bool                        // endedInTest: go test's line for the package came as a test's
}

// reader reads one go test -json run into its packages.
type reader struct {
	root             string
	bins             map[string]*binary
	builds           map[string]string // build output by import path
	started          atomic.Bool       // go test spoke of a package: the build is over
	stop             func()            // stops go test
	leftover         bool              // every binary said its last line: go test has leftoverWait more
	printed          int
	flooded, floodIn string // the test that printed too much, and its package
}

// Read reads a whole go test -json stream of the given packages.
func Read(root string, in io.Reader, pkgs ...*Package) { newReader(root, pkgs, func() {}).readAll(in) }

func newReader(root string, pkgs []*Package, stop func()) *reader {
	r := &reader{root: root, bins: map[string]*binary{}, builds: map[string]string{}, stop: stop}
	for _, p := range pkgs {
		r.bins[p.ImportPath] = &binary{pkg: p, tests: map[string]*strings.Builder{}}
	}
	return r
}

// readAll reads go test -json as it comes, then says how each binary ended.
func (r *reader) readAll(in io.Reader) {
	defer r.finish()
	br := bufio.NewReaderSize(in, 256<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a learner's print: skip it
			for ; errors.Is(err, bufio.ErrBufferFull); line, err = br.ReadSlice('\n') {
				r.printed += len(line)
			}
			continue
		}
		var e Event
		if len(line) > 0 && json.Unmarshal(line, &e) == nil {
			r.handle(e)
		}
		if err != nil {
			return
		}
	}
}

func (r *reader) handle(e Event) {
	if e.Action == "build-output" {
		out := r.builds[e.ImportPath] + e.Output
		r.builds[e.ImportPath] = out[max(0, len(out)-buildTail):]
		return
	}
	b := r.bins[e.Package]
	if b == nil {
		return
	}
	p, ends := b.pkg, e.Action == "pass" || e.Action == "fail"
	b.seen = true
	r.started.Store(true) // a binary started, or its build failed
	packageLine := strings.HasPrefix(e.Output, "ok  \t"+e.Package) || strings.HasPrefix(e.Output, "FAIL\t"+e.Package)
	if e.Test != "" && (e.Action == "output" && packageLine || b.endedInTest && ends) { // a binary that exited in a test
		b.endedInTest = true
		e.Test = ""
	}
	out := &strings.Builder{} // thrown away outside a test, or after its end
	if old, started := b.tests[e.Test]; e.Test != "" && !started {
		b.tests[e.Test] = out
	} else if old != nil {
		out = old
	}
	switch {
	case e.Action == "output":
		if out.WriteString(e.Output); out.Len() > 2*testTail { // keep the tail: the case's line comes last
			tail := out.String()[out.Len()-testTail:]
			out.Reset()
			out.WriteString(tail)
		}
		for l := range strings.Lines(e.Output) {
			r.line(b, e.Test, l)
		}
		if r.printed += len(e.Output); r.printed > floodLimit && r.flooded == "" {
			r.flooded, r.floodIn = cmp.Or(e.Test, "(outside any case)"), e.Package
			r.stop()
		}
		if e.Test == "" && (e.Output == "PASS\n" || e.Output == "FAIL\n") {
			b.last = strings.TrimSpace(e.Output)
		}
	case e.Test == "" && e.Action == "skip":
		p.NoTests, b.end = len(b.tests) == 0, e.Action
	case e.Test == "" && ends:
		b.end = e.Action
		if e.FailedBuild != "" { // the package, its test variant, or a package it imports, such as its spec
			p.BuildError = cmp.Or(r.builds[e.FailedBuild], "the build of "+e.FailedBuild+" failed")
		}
	case ends || e.Action == "skip":
		b.tests[e.Test] = nil
		b.failed = b.failed || e.Action == "fail"
		if c, ok := protocol.FindCase(out.String()); ok {
			if c.Verdict == protocol.Pass && e.Action != "pass" { // such as by the race detector
				c.Verdict, c.Summary = protocol.Fail, "its subtest failed after the case passed"
				c.Report, c.Brief = c.Summary, c.Summary
			}
			p.Cases = append(p.Cases, c)
		}
	}
	if !r.leftover && e.Test == "" && r.allEnded() {
		r.leftover = true // a process the learner's code started may hold the output open
		time.AfterFunc(leftoverWait, r.stop)
	}
}

// allEnded says whether every binary ended or printed its last line.
func (r *reader) allEnded() bool {
	for _, b := range r.bins {
		if b.end == "" && b.last == "" {
			return false
		}
	}
	return true
}

// line reads a line of output during test for race reports and crashes.
func (r *reader) line(b *binary, test, l string) {
	l = strings.TrimRight(strings.TrimPrefix(l, "\x16"), "\r\n")
	l = l[:min(len(l), maxWatchedLine)]
	switch {
	case b.race != nil && strings.HasPrefix(l, "=================="):
		c := Case{Report: cutRace(r.root, b.race)}
		if c.Name, c.Part = caseOfTest(test); c.Name != "" {
			c.Report = fmt.Sprintf("during case %q:\n%s", c.Name, Indent(c.Report, "  "))
		}
		b.pkg.Races, b.race = append(b.pkg.Races, c), nil
	case b.race != nil:
		if len(b.race) < maxRaceRead {
			b.race = append(b.race, l)
		}
	case l == "WARNING: DATA RACE":
		b.race = []string{l}
	case strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: "): // the last crash is what ended the process
		b.crash = []string{l}
	case b.crash != nil && len(b.crash) < maxCrashRead:
		b.crash = append(b.crash, l)
	}
}

// cutRace cuts a race report to its headline and accesses, with the learner's frames.
func cutRace(root string, lines []string) string {
	out := lines[:1]
	for i, l := range lines {
		if !accessLine.MatchString(l) {
			continue
		}
		out = append(out, l)
		frames := learnerFrames(root, lines[i+1:])
		if len(frames) == 0 {
			out = append(out, "  (no frame in your own files)")
		}
		for _, f := range frames {
			out = append(out, fmt.Sprintf("  %s  %s:%d", f.Function, f.File, f.Line))
		}
	}
	return strings.Join(out[:min(len(out), maxRaceLines)], "\n")
}

// accessLine is a race report's "Previous read at 0x... by goroutine 8:".
var accessLine = regexp.MustCompile(`^(Read|Write|Atomic|Previous (read|write|atomic)) .*at 0x.* by .*:$`)

// learnerFrames reads the frames of a traceback up to a blank line, and
// keeps those in the learner's own files, named from the top folder.
func learnerFrames(root string, lines []string) []protocol.Frame {
	modPath, _ := shipped.ModulePath(root) // with none, no file is found by import path
	var out []protocol.Frame
	for i := 0; i+1 < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		if !strings.HasPrefix(lines[i+1], "\t") && !strings.HasPrefix(lines[i+1], "    ") {
			continue // not a function and its place: "...additional frames elided..."
		}
		f := protocol.FrameOf(lines[i], lines[i+1])
		i++
		// A binary built with -trimpath names the module's files by import path.
		if rel, err := filepath.Rel(root, f.File); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(f.File) {
			f.File = filepath.ToSlash(rel)
		} else {
			f.File = strings.TrimPrefix(f.File, modPath+"/")
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f.File))); err == nil && levels.InLearnersCode(f.File) {
			out = append(out, f)
		}
	}
	return out
}

// finish says why each test binary that ran did not run to its end, if so.
func (r *reader) finish() {
	for path, b := range r.bins {
		p := b.pkg
		if p.BuildError != "" || p.NoTests || !b.seen {
			continue
		}
		open, during := "", " before any case started" // the innermost test left open
		for name, out := range b.tests {
			if d, od := strings.Count(name, "/"), strings.Count(open, "/"); out != nil && (d > od || d == od && name > open) {
				open = name
			}
		}
		if open != "" {
			during = " during " + caseWhere(open)
		} else if len(p.Cases) > 0 {
			during = " after its cases"
		}
		headline := "" // "fatal error: concurrent map writes (ladder/x/x.go:41)"
		if b.crash != nil && b.last == "" {
			i := slices.IndexFunc(b.crash, func(l string) bool { return strings.HasPrefix(l, "goroutine ") }) // -1: frames from the top
			headline = cmp.Or(protocol.CutLine(strings.TrimSpace(b.crash[0]), 200), "a crash with no message")
			if frames := learnerFrames(r.root, b.crash[i+1:]); len(frames) > 0 {
				headline += fmt.Sprintf(" (%s:%d)", frames[0].File, frames[0].Line)
			}
		}
		limit, timedOut := strings.CutPrefix(headline, "panic: test timed out after ")
		limit, _, _ = strings.Cut(limit, " ")
		failed := (b.last == "FAIL" || b.end == "fail") && !b.failed
		endings := []ending{
			{r.flooded != "" && r.floodIn == path, fmt.Sprintf("the test binary printed more than %d MB during %s, and was stopped: does your code print in a loop?", floodLimit>>20, caseWhere(r.flooded))},
			{b.end == "" && b.last == "", "the test binary did not finish: go test was stopped" + during + "."},
			{timedOut, fmt.Sprintf("the test binary reached go test's time limit (-timeout %s)%s.", limit, during)},
			{headline != "", fmt.Sprintf("the test binary crashed%s: %s.", during, headline)},
			{open != "", "the test binary exited" + during + ": does your code call os.Exit or syscall.Exit?"},
			{b.last == "" && len(b.tests) == 0, "the test binary ran no test: does an init function in your code call os.Exit?"},
			{b.last == "", "the test binary exited" + during + ", before the testing package's last line: does your code call os.Exit?"},
			{failed && len(p.Races) > 0, "the race detector found a data race outside the cases."},
			{failed, "the test binary failed" + during + ", though no test failed: does your code call os.Exit?"},
		}
		if i := slices.IndexFunc(endings, func(e ending) bool { return e.holds }); i >= 0 {
			p.Broken = endings[i].why + " Nothing in it counts as done."
		}
	}
}

// ending is a way a test binary ended before its end, and why.
type ending struct {
	holds bool
	why   string
}

// caseWhere names a test as `case "a case" of part 2` when it is one.
func caseWhere(test string) string {
	if c, part := caseOfTest(test); part > 0 {
		return fmt.Sprintf("case %q of part %d", c, part)
	}
	return test
}

// caseOfTest reads a case's name and part from its subtest's name or a
// name below it, "TestX/part_2/a_case/x"; part 0 if it is no case.
func caseOfTest(name string) (string, int) {
	parts := strings.Split(name, "/")
	for i := len(parts) - 2; i > 0; i-- {
		if n, err := strconv.Atoi(strings.TrimPrefix(parts[i], "part_")); err == nil && strings.HasPrefix(parts[i], "part_") {
			return strings.ReplaceAll(parts[i+1], "_", " "), n
		}
	}
	return name, 0
}
