package grade

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// The learner's loop trusts what go test -json says: a case passed when its
// subtest passed and its output holds the runner's line for it
// (protocol.CaseLine); a binary ran its cases through the runner when it
// wrote protocol.RunMark; it ran to its end when the testing package
// printed PASS or FAIL, every test it started ended, and a failing binary
// failed a test. A test left open names the case a crash or exit cut short.

// Event is one line of go test -json (see go doc test2json).
type Event struct {
	Action      string
	Package     string
	ImportPath  string // build events
	Test        string
	Output      string
	FailedBuild string // the package whose build failed, on a package's "fail"
}

// testTail is how much of one test's output is kept: a case's line comes last.
const testTail = 256 << 10

// floodLimit is how much output one go test run may print before it is
// stopped and the printing test named: past it, a print sits in a hot loop.
var floodLimit = 256 << 20

// binary is what go test -json said of one package's test binary.
type binary struct {
	pkg         *Package
	out         strings.Builder // the tail of its output outside any test
	watch       *watcher
	open        map[string]*strings.Builder // the output of the tests not ended
	order       []string                    // tests by the order they started
	ended       bool                        // go test's pass, fail or skip for the package came
	action      string                      // and which it was
	last        string                      // the testing package's last line, PASS or FAIL
	failed      bool                        // some test failed
	current     string                      // the test the last output came from
	endedInTest bool                        // go test's line for the package came as a test's
	viaRunner   bool                        // the output holds protocol.RunMark
}

// reader reads one go test -json run into its packages.
type reader struct {
	root     string
	byPath   map[string]*Package
	bins     map[string]*binary
	builds   map[string]string // build output by import path
	onStart  func()            // a test binary runs: the build is over
	stop     func()
	allEnded func() // every binary has said its last line
	once     sync.Once
	printed  int
	flooded  string // the test running when the run printed too much
	floodIn  string // and its package
}

func newReader(root string, pkgs []*Package, onStart, stop func()) *reader {
	r := &reader{root: root, byPath: map[string]*Package{}, bins: map[string]*binary{}, builds: map[string]string{}, onStart: onStart, stop: stop}
	for _, p := range pkgs {
		r.byPath[p.ImportPath] = p
	}
	return r
}

// Read reads a whole go test -json stream of the given packages, as
// RunGoTest does while go test runs.
func Read(root string, in io.Reader, pkgs ...*Package) {
	r := newReader(root, pkgs, func() {}, func() {})
	r.read(in)
	r.finish()
}

// read reads go test -json as it comes.
func (r *reader) read(in io.Reader) {
	br := bufio.NewReaderSize(in, 256<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer is a learner's print: skip it.
			for errors.Is(err, bufio.ErrBufferFull) {
				r.printed += len(line)
				line, err = br.ReadSlice('\n')
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
		r.builds[e.ImportPath] = keepTail(r.builds[e.ImportPath]+e.Output, outputTail)
		return
	}
	p := r.byPath[e.Package]
	if p == nil {
		return
	}
	if e.Action == "run" || e.Action == "start" {
		r.once.Do(r.onStart)
	}
	b := r.bins[e.Package]
	if b == nil {
		b = &binary{pkg: p, open: map[string]*strings.Builder{}}
		b.watch = &watcher{root: r.root, onRace: func(report string) {
			p.Races = append(p.Races, protocol.Event{Test: b.current, Report: report})
		}}
		r.bins[e.Package] = b
	}
	packageLine := strings.HasPrefix(e.Output, "ok  \t"+e.Package) || strings.HasPrefix(e.Output, "FAIL\t"+e.Package)
	if e.Test != "" && (e.Action == "output" && packageLine || b.endedInTest && (e.Action == "pass" || e.Action == "fail")) {
		// A binary that exits in the middle of a test has go test's own
		// line for the package, and its pass or fail, said to come from it.
		b.endedInTest = true
		e.Test = ""
	}
	if e.Test == "" {
		switch e.Action {
		case "output":
			appendTail(&b.out, e.Output, outputTail)
			r.output(b, e)
			if e.Output == "PASS\n" || e.Output == "FAIL\n" {
				b.last = strings.TrimSpace(e.Output)
			}
		case "skip":
			p.NoTests = len(b.order) == 0
			b.ended = true
		case "pass", "fail":
			b.ended, b.action = true, e.Action
			if e.FailedBuild != "" {
				// The failed build may be the package, its test variant, or
				// a package it imports, such as its spec.
				p.BuildError = r.builds[e.FailedBuild]
				if p.BuildError == "" {
					p.BuildError = "the build of " + e.FailedBuild + " failed"
				}
			}
		}
		r.checkAllEnded()
		return
	}
	out := b.open[e.Test]
	if out == nil {
		out = &strings.Builder{}
		if !slices.Contains(b.order, e.Test) { // not a line after the test's end
			b.open[e.Test] = out
			b.order = append(b.order, e.Test)
		}
	}
	switch e.Action {
	case "output":
		appendTail(out, e.Output, testTail)
		r.output(b, e)
	case "pass", "fail", "skip":
		delete(b.open, e.Test)
		b.failed = b.failed || e.Action == "fail"
		if c, ok := protocol.FindCase(out.String()); ok {
			if c.Verdict == protocol.Pass && e.Action != "pass" {
				why := "something failed it after its last step"
				if strings.Contains(out.String(), "race detected during execution of test") {
					why = "the race detector found a data race"
				}
				c.Verdict = protocol.Fail
				c.Summary = "its subtest failed after the case passed: " + why
				c.Report, c.Brief = c.Summary, c.Summary
			}
			c.Test = e.Test
			p.Cases = append(p.Cases, c)
		}
	}
}

// checkAllEnded tells allEnded, once, when every package has ended or
// printed its last line: go test may still wait for a process the
// learner's code started, which holds the output open.
func (r *reader) checkAllEnded() {
	if r.allEnded == nil {
		return
	}
	for path := range r.byPath {
		if b := r.bins[path]; b == nil || !b.ended && b.last == "" {
			return
		}
	}
	r.allEnded()
	r.allEnded = nil
}

// appendTail adds s to b, keeping at least its last n bytes; cutting only
// past 2n copies each byte a few times at most.
func appendTail(b *strings.Builder, s string, n int) {
	b.WriteString(s)
	if b.Len() > 2*n {
		tail := keepTail(b.String(), n)
		b.Reset()
		b.WriteString(tail)
	}
}

func keepTail(s string, n int) string {
	return s[max(0, len(s)-n):]
}

// output feeds a piece of a binary's output to its watcher, and stops the
// run if it printed too much.
func (r *reader) output(b *binary, e Event) {
	b.current = e.Test
	b.viaRunner = b.viaRunner || strings.Contains(e.Output, protocol.RunMark)
	for _, l := range strings.SplitAfter(e.Output, "\n") {
		if l != "" {
			b.watch.line(strings.TrimSuffix(l, "\n"))
		}
	}
	r.printed += len(e.Output)
	if r.printed > floodLimit && r.flooded == "" {
		r.flooded, r.floodIn = e.Test, e.Package
		if r.flooded == "" {
			r.flooded = "(outside any case)"
		}
		r.stop()
	}
}

// exitStatus reads go test's "exit status N" from a package's output.
var exitStatus = regexp.MustCompile(`(?m)^exit status (\d+)$`)

// finish says, for each package whose test binary ran, whether it ran to
// its end, and if not, why, in words that stand alone.
func (r *reader) finish() {
	for path, b := range r.bins {
		p := b.pkg
		p.Output = keepTail(b.out.String(), outputTail)
		if p.BuildError != "" || p.NoTests {
			continue
		}
		for i, race := range p.Races {
			p.Races[i].Case, p.Races[i].Part = caseOfTest(race.Test)
			for _, c := range p.Cases { // the case whose subtest holds the race's test
				if c.Test == race.Test || strings.HasPrefix(race.Test, c.Test+"/") {
					p.Races[i].Case, p.Races[i].Part = c.Case, c.Part
				}
			}
		}
		var open string
		for _, name := range b.order {
			if b.open[name] != nil && strings.Count(name, "/") >= strings.Count(open, "/") {
				open = name
			}
		}
		status := ""
		if m := exitStatus.FindAllStringSubmatch(p.Output, -1); m != nil {
			status = " with status " + m[len(m)-1][1]
		}
		during := " before any case started"
		if open != "" {
			during = " during " + caseWhere(open)
		} else if len(p.Cases) > 0 {
			during = " after its cases"
		}
		const none = " Nothing in it counts as done."
		exit := protocol.Event{Kind: protocol.Exit}
		crash, crashed := b.watch.crashed()
		failed := (b.last == "FAIL" || b.action == "fail") && !b.failed
		switch {
		case r.flooded != "" && r.floodIn == path:
			exit.Reason = fmt.Sprintf("the test binary printed more than %d MB during %s, and was stopped: does your code print in a loop?"+none, floodLimit>>20, caseWhere(r.flooded))
		case !b.ended && b.last == "":
			exit.Reason = "the test binary did not finish: go test was stopped" + during + "." + none
		case crashed && b.last == "":
			exit.Crash = crash.text()
			if limit, ok := crash.timeout(); ok {
				exit.Reason = fmt.Sprintf("the test binary reached go test's time limit (-timeout %s)%s."+none, limit, during)
			} else {
				exit.Reason = fmt.Sprintf("the test binary crashed%s: %s."+none, during, crash.headline())
			}
		case open != "":
			exit.Reason = "the test binary exited" + status + during + ": does your code call os.Exit or syscall.Exit?" + none
		case b.last == "" && len(b.order) == 0:
			exit.Reason = "the test binary ran no test: does an init function in your code call os.Exit?" + none
		case b.last == "":
			exit.Reason = "the test binary exited" + status + during + ", before the testing package's last line: does your code call os.Exit?" + none
		case failed && (status == " with status 66" || len(p.Races) > 0):
			exit.Reason = "the race detector found a data race outside the cases." + none
		case failed:
			exit.Reason = "the test binary failed" + status + during + ", though no test failed: does your code call os.Exit?" + none
		default:
			// It printed its last line; go test's own may not have come, if
			// a process the learner's code started kept it waiting.
			exit.Complete = true
		}
		if exit.Complete && !b.viaRunner && len(b.order) > 0 {
			continue // its tests did not report through the ladder's runner
		}
		p.Exit = &exit
	}
}

// caseWhere names a test as a case of a part when it is one:
// `case "a case" of part 2`.
func caseWhere(test string) string {
	if c, part := caseOfTest(test); part > 0 {
		return fmt.Sprintf("case %q of part %d", c, part)
	}
	return test
}

// caseOfTest reads a case's name and part from its subtest's name,
// "TestX/part_2/memory_comes_back"; a test that is no case gives part 0.
func caseOfTest(name string) (string, int) {
	parts := strings.Split(name, "/")
	if len(parts) < 3 {
		return name, 0
	}
	num, ok := strings.CutPrefix(parts[len(parts)-2], "part_")
	n, err := strconv.Atoi(num)
	if err != nil || !ok {
		return name, 0
	}
	return strings.ReplaceAll(parts[len(parts)-1], "_", " "), n
}
