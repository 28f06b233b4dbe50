package grade

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// The learner's loop grades from what go test -json says, and from the
// spec's list of cases (see Grade). The honest learner is the one this
// serves: the learner's code runs in the same process as the tests, and
// could write anything there. What it reads:
//
//   - a case passed when its subtest passed and its output holds the
//     runner's line for it (protocol.CaseLine) with the verdict pass;
//   - a test binary ran its cases through the ladder's runner when it
//     wrote the runner's mark (protocol.RunMark);
//   - a test binary ran to its end when the testing package printed its
//     last line, PASS or FAIL, every test it started ended, and a failing
//     binary failed a test: an exit or a crash in the middle of a case
//     leaves that case's subtest without an end, and names it;
//   - the race detector fails the test it saw a race in, and its report
//     comes through the output, cut here to the learner's lines.

// Event is one line of go test -json (see go doc test2json).
type Event struct {
	Action      string
	Package     string
	ImportPath  string // build events
	Test        string
	Output      string
	FailedBuild string // the package whose build failed, on a package's "fail"
}

// testTail is how much of one test's output the reader keeps, whatever
// the learner's code prints: a case's line comes last in it.
const testTail = 256 << 10

// floodLimit is how much output one go test run may print before it is
// stopped, and its package named for it. A learner's debug prints of
// tens of megabytes are read whole, keeping only tails; past this, a
// print sits in a hot loop, and go test -json alone would take minutes.
var floodLimit = 256 << 20

// binary is what go test -json said of one package's test binary.
type binary struct {
	pkg     *Package
	out     strings.Builder // the tail of its output outside any test
	watch   *watcher
	tests   map[string]*testRun
	order   []string // tests by the order they started
	ended   bool     // go test's pass or fail line for the package came
	action  string   // and which it was
	last    string   // the binary's own last line, PASS or FAIL, once printed
	failed  bool     // some test failed
	current string   // the test the last output was said to come from
	// endedInTest says go test's line for the package came as a test's.
	endedInTest bool
	// viaRunner says the ladder's runner played the spec's cases here.
	viaRunner bool
}

// isPackageLine recognises go test's own last line for a package: "ok  ",
// or "FAIL", a tab and the package's path.
func isPackageLine(e Event) bool {
	return strings.HasPrefix(e.Output, "ok  \t"+e.Package) || strings.HasPrefix(e.Output, "FAIL\t"+e.Package)
}

// checkAllEnded tells allEnded, once, when every package has ended or
// printed its last line.
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

// testRun is one test or subtest as it ran.
type testRun struct {
	out    strings.Builder
	ended  bool
	action string
}

// reader reads one go test -json run.
type reader struct {
	root    string
	byPath  map[string]*Package
	bins    map[string]*binary
	builds  map[string]string // build output by import path
	onStart func()
	stop    func()
	// allEnded hears that every package has ended, or printed its last
	// line: go test may still wait for a process the learner's code
	// started, which holds the output open.
	allEnded func()
	once     sync.Once
	printed  int
	// flooded names the test that was running when the run printed more
	// than floodLimit, and was stopped.
	flooded string
	floodIn string // its package
}

func newReader(root string, byPath map[string]*Package, onStart, stop func()) *reader {
	return &reader{root: root, byPath: byPath, bins: map[string]*binary{}, builds: map[string]string{}, onStart: onStart, stop: stop}
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
		r.once.Do(r.onStart) // a test binary runs: the build is over
	}
	b := r.bins[e.Package]
	if b == nil {
		b = &binary{pkg: p, tests: map[string]*testRun{}}
		b.watch = &watcher{root: r.root, onRace: func(report string) {
			p.Races = append(p.Races, protocol.Event{Test: b.current, Report: report})
		}}
		r.bins[e.Package] = b
	}
	if e.Test != "" && (e.Action == "output" && isPackageLine(e) || b.endedInTest && (e.Action == "pass" || e.Action == "fail")) {
		// A binary that exits in the middle of a test, without the
		// testing package's last words, has go test's own line for the
		// package said to come from that test, and so its pass or fail.
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
			p.NoTests = len(b.tests) == 0
			b.ended = true
		case "pass", "fail":
			b.ended, b.action = true, e.Action
			if e.FailedBuild != "" {
				// The failed build may be the package itself, its test
				// variant, or a package it imports, such as its spec.
				p.BuildError = r.builds[e.FailedBuild]
				if p.BuildError == "" {
					p.BuildError = "the build of " + e.FailedBuild + " failed"
				}
			}
		}
		r.checkAllEnded()
		return
	}
	t := b.tests[e.Test]
	if t == nil {
		t = &testRun{}
		b.tests[e.Test] = t
		b.order = append(b.order, e.Test)
	}
	switch e.Action {
	case "output":
		appendTail(&t.out, e.Output, testTail) // the case's line comes last
		r.output(b, e)
	case "pass", "fail", "skip":
		t.ended, t.action = true, e.Action
		if e.Action == "fail" {
			b.failed = true
		}
		if c, ok := protocol.FindCase(t.out.String()); ok {
			if c.Verdict == protocol.Pass && e.Action != "pass" {
				// The race detector, or something after the case,
				// failed its subtest.
				c.Verdict = protocol.Fail
				c.Summary = "its subtest failed after the case passed: " + raceOrFailure(t.out.String())
				c.Report, c.Brief = c.Summary, c.Summary
			}
			c.Test = e.Test
			p.Cases = append(p.Cases, c)
		}
		t.out.Reset()
	}
}

// appendTail adds s to b, which keeps at least its last n bytes: it is
// cut once in a while, so that each byte is copied a few times at most,
// however much a learner's code prints.
func appendTail(b *strings.Builder, s string, n int) {
	b.WriteString(s)
	if b.Len() > 2*n {
		tail := keepTail(b.String(), n)
		b.Reset()
		b.WriteString(tail)
	}
}

// raceOrFailure says why a subtest whose case passed failed all the same.
func raceOrFailure(out string) string {
	if strings.Contains(out, "race detected during execution of test") {
		return "the race detector found a data race"
	}
	return "something failed it after its last step"
}

// output feeds one piece of a test binary's output to its watcher, and
// stops the run if it prints too much.
func (r *reader) output(b *binary, e Event) {
	b.current = e.Test
	if strings.Contains(e.Output, protocol.RunMark) {
		b.viaRunner = true
	}
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
		byTest := map[string]protocol.Event{}
		for _, c := range p.Cases {
			byTest[c.Test] = c
		}
		for i, race := range p.Races {
			for test := race.Test; test != ""; test = parentTest(test) {
				if c, ok := byTest[test]; ok {
					p.Races[i].Case, p.Races[i].Part = c.Case, c.Part
					break
				}
			}
			if p.Races[i].Part == 0 {
				p.Races[i].Case, p.Races[i].Part = caseOfTest(race.Test)
			}
		}
		var open string
		for _, name := range b.order {
			if !b.tests[name].ended && strings.Count(name, "/") >= strings.Count(open, "/") {
				open = name
			}
		}
		exit := protocol.Event{Kind: protocol.Exit}
		status := -1
		if m := exitStatus.FindAllStringSubmatch(p.Output, -1); m != nil {
			status, _ = strconv.Atoi(m[len(m)-1][1])
		}
		during := " before any case started"
		if open != "" {
			c, part := caseOfTest(open)
			during = fmt.Sprintf(" during %s", open)
			if part > 0 {
				during = fmt.Sprintf(" during case %q of part %d", c, part)
			}
		} else if len(p.Cases) > 0 {
			during = " after its cases"
		}
		const none = " Nothing in it counts as done."
		crash, crashed := b.watch.crashed()
		switch {
		case r.flooded != "" && r.floodIn == path:
			c, part := caseOfTest(r.flooded)
			where := r.flooded
			if part > 0 {
				where = fmt.Sprintf("case %q of part %d", c, part)
			}
			exit.Reason = fmt.Sprintf("the test binary printed more than %d MB during %s, and was stopped: does your code print in a loop?"+none, floodLimit>>20, where)
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
			exit.Reason = fmt.Sprintf("the test binary exited%s%s: does your code call os.Exit or syscall.Exit?"+none, statusText(status), during)
		case b.last == "" && len(b.tests) == 0:
			exit.Reason = "the test binary ran no test: does an init function in your code call os.Exit?" + none
		case b.last == "":
			exit.Reason = fmt.Sprintf("the test binary exited%s%s, before the testing package's last line: does your code call os.Exit?"+none, statusText(status), during)
		case (b.last == "FAIL" || b.action == "fail") && !b.failed && (status == 66 || len(p.Races) > 0):
			exit.Reason = "the race detector found a data race outside the cases." + none
		case (b.last == "FAIL" || b.action == "fail") && !b.failed:
			exit.Reason = fmt.Sprintf("the test binary failed%s%s, though no test failed: does your code call os.Exit?"+none, statusText(status), during)
		default:
			// It printed its last line. go test may not have said its own
			// yet: a process the learner's code started kept it waiting
			// for the output, until the run was ended.
			exit.Complete = true
		}
		if exit.Complete && !b.viaRunner && len(b.tests) > 0 {
			continue // its tests did not report through the ladder's runner
		}
		p.Exit = &exit
	}
}

func statusText(status int) string {
	if status < 0 {
		return ""
	}
	return fmt.Sprintf(" with status %d", status)
}

// parentTest is the test that ran a subtest: "TestX/part_1" for
// "TestX/part_1/a_case", "" for a top-level test.
func parentTest(name string) string {
	i := strings.LastIndex(name, "/")
	if i < 0 {
		return ""
	}
	return name[:i]
}

// caseOfTest reads a case's name and part from its subtest's name,
// "TestX/part_2/memory_comes_back": go test writes spaces as underscores.
// A test that is no case gives part 0.
func caseOfTest(name string) (string, int) {
	parts := strings.Split(name, "/")
	if len(parts) < 3 {
		return name, 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(parts[len(parts)-2], "part_"))
	if err != nil || !strings.HasPrefix(parts[len(parts)-2], "part_") {
		return name, 0
	}
	return strings.ReplaceAll(parts[len(parts)-1], "_", " "), n
}

// Read reads a whole go test -json stream of the given packages, as
// RunGoTest does while go test runs: the class report's checker, run
// through go tool test2json, is read so too.
func Read(root string, in io.Reader, pkgs ...*Package) {
	byPath := map[string]*Package{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	r := newReader(root, byPath, func() {}, func() {})
	r.read(in)
	r.finish()
}
