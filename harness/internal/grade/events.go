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

// The learner's loop trusts what go test -json says: a case passed when its
// subtest passed and its output holds the runner's line for it
// (protocol.CaseLine); a binary ran its cases through the runner when it
// wrote protocol.RunMark; it ran to its end when the testing package
// printed PASS or FAIL, every test it started ended, and a failing binary
// failed a test. A test left open names the case a crash or exit cut short.

// Event is one line of go test -json (see go doc test2json): ImportPath
// is a build event's, FailedBuild the package whose build failed, on a
// package's "fail".
type Event struct {
	Action, Package, ImportPath, Test, Output, FailedBuild string
}

// Bounds on what is kept of the output: of one test or a package's own
// while it runs (a case's line comes last), of a package's own at its end,
// of one line, of a race report or crash as read and as cut for the learner.
const (
	testTail, outputTail, maxWatchedLine = 256 << 10, 8 << 10, 1 << 10
	maxRaceRead, maxCrashRead            = 400, 200
	maxRaceLines, maxCrashLines          = 12, 10
)

// floodLimit is how much output one go test run may print before it is
// stopped and the printing test named: past it, a print sits in a hot loop.
var floodLimit = 256 << 20

// binary is what go test -json said of one package's test binary.
type binary struct {
	pkg   *Package
	out   strings.Builder             // the tail of its output outside any test
	open  map[string]*strings.Builder // the output of the tests not ended
	order []string                    // tests by the order they started
	end   string                      // go test's pass, fail or skip for the package, once it came
	last  string                      // the testing package's last line, PASS or FAIL
	// current is the test the last output came from; endedInTest says go
	// test's line for the package came as a test's; viaRunner, that the
	// output holds protocol.RunMark.
	current                              string
	seen, failed, endedInTest, viaRunner bool     // seen: go test said something of it
	race                                 []string // the race report being read; nil outside one
	crash                                []string // the last crash: its message, then its first goroutine
	stack, stackEnded                    bool     // crash has reached its first goroutine's frames, and they ended
}

// reader reads one go test -json run into its packages.
type reader struct {
	root             string
	bins             map[string]*binary
	builds           map[string]string // build output by import path
	started          atomic.Bool       // a test binary runs: the build is over
	stop             func()            // stops go test
	leftover         bool              // every binary said its last line: go test has leftoverWait more
	printed          int
	flooded, floodIn string // the test running when the run printed too much, and its package
}

// Read reads a whole go test -json stream of the given packages, as
// RunGoTest does while go test runs.
func Read(root string, in io.Reader, pkgs ...*Package) { newReader(root, pkgs, nil).readAll(in) }

func newReader(root string, pkgs []*Package, stop func()) *reader {
	r := &reader{root: root, bins: map[string]*binary{}, builds: map[string]string{}, stop: stop}
	for _, p := range pkgs {
		r.bins[p.ImportPath] = &binary{pkg: p, open: map[string]*strings.Builder{}}
	}
	return r
}

// readAll reads go test -json as it comes, and once it ends, says how
// each binary ended.
func (r *reader) readAll(in io.Reader) {
	defer r.finish()
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
	b := r.bins[e.Package]
	if b == nil {
		return
	}
	p := b.pkg
	b.seen = true
	if e.Action == "run" || e.Action == "start" {
		r.started.Store(true)
	}
	packageLine := strings.HasPrefix(e.Output, "ok  \t"+e.Package) || strings.HasPrefix(e.Output, "FAIL\t"+e.Package)
	if e.Test != "" && (e.Action == "output" && packageLine || b.endedInTest && (e.Action == "pass" || e.Action == "fail")) {
		// A binary that exits in the middle of a test has go test's own
		// line for the package, and its pass or fail, said to come from it.
		b.endedInTest = true
		e.Test = ""
	}
	out := &b.out
	if e.Test != "" {
		if out = b.open[e.Test]; out == nil {
			out = &strings.Builder{}
			if !slices.Contains(b.order, e.Test) { // not a line after the test's end
				b.open[e.Test] = out
				b.order = append(b.order, e.Test)
			}
		}
	}
	switch {
	case e.Action == "output":
		appendTail(out, e.Output, testTail)
		r.output(b, e)
		if e.Test == "" && (e.Output == "PASS\n" || e.Output == "FAIL\n") {
			b.last = strings.TrimSpace(e.Output)
		}
	case e.Test == "" && e.Action == "skip":
		p.NoTests = len(b.order) == 0
		b.end = e.Action
	case e.Test == "" && (e.Action == "pass" || e.Action == "fail"):
		b.end = e.Action
		if e.FailedBuild != "" {
			// The failed build may be the package, its test variant, or
			// a package it imports, such as its spec.
			p.BuildError = r.builds[e.FailedBuild]
			if p.BuildError == "" {
				p.BuildError = "the build of " + e.FailedBuild + " failed"
			}
		}
	case e.Action == "pass" || e.Action == "fail" || e.Action == "skip":
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
	if e.Test == "" && !r.leftover && r.stop != nil && r.allEnded() {
		// Every binary ended or said its last line, yet go test may still
		// wait for a process the learner's code started, which holds the
		// output open.
		r.leftover = true
		time.AfterFunc(leftoverWait, r.stop)
	}
}

// allEnded says whether every binary has ended or printed its last line.
func (r *reader) allEnded() bool {
	for _, b := range r.bins {
		if b.end == "" && b.last == "" {
			return false
		}
	}
	return true
}

// appendTail adds s to b, keeping at least its last n bytes; cutting only
// past 2n copies each byte a few times at most.
func appendTail(b *strings.Builder, s string, n int) {
	if b.WriteString(s); b.Len() > 2*n {
		tail := keepTail(b.String(), n)
		b.Reset()
		b.WriteString(tail)
	}
}

func keepTail(s string, n int) string {
	return s[max(0, len(s)-n):]
}

// output reads a piece of a binary's output for race reports and crashes,
// and stops the run if it printed too much.
func (r *reader) output(b *binary, e Event) {
	b.current = e.Test
	b.viaRunner = b.viaRunner || strings.Contains(e.Output, protocol.RunMark)
	for _, l := range strings.SplitAfter(e.Output, "\n") {
		if l != "" {
			r.line(b, strings.TrimSuffix(l, "\n"))
		}
	}
	r.printed += len(e.Output)
	if r.printed > floodLimit && r.flooded == "" {
		r.flooded, r.floodIn = cmp.Or(e.Test, "(outside any case)"), e.Package
		if r.stop != nil {
			r.stop()
		}
	}
}

// line reads one complete line of a binary's output, without its newline.
func (r *reader) line(b *binary, l string) {
	l = strings.TrimRight(strings.TrimPrefix(l, "\x16"), "\r")
	l = l[:min(len(l), maxWatchedLine)]
	switch crashLine := strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: "); {
	case b.race != nil && strings.HasPrefix(l, "=================="):
		b.pkg.Races = append(b.pkg.Races, Case{Test: b.current, Report: cutRace(r.root, b.race)})
		b.race = nil
	case b.race != nil:
		if len(b.race) < maxRaceRead {
			b.race = append(b.race, l)
		}
	case l == "WARNING: DATA RACE":
		b.race = []string{l}
	case crashLine && (b.crash == nil || b.stackEnded || !b.stack):
		// A new crash: the last one is what ended the process. Before
		// its goroutines, an earlier line may only have looked like one.
		b.crash, b.stack, b.stackEnded = []string{l}, false, false
	case b.crash == nil || b.stackEnded || len(b.crash) >= maxCrashRead:
	case b.stack && l == "":
		b.stackEnded = true
	case !b.stack && strings.HasPrefix(l, "goroutine ") && strings.HasSuffix(l, ":"):
		b.crash, b.stack = append(b.crash, l), true
	default:
		b.crash = append(b.crash, l)
	}
}

// crashOf cuts what the runtime printed as a process died for a learner:
// its message and the learner's frames of the goroutine that crashed, and
// in one line with the learner's line it came from, "fatal error:
// concurrent map writes (ladder/x/x.go:41)".
func crashOf(root string, lines []string) (text, headline string) {
	var message []string
	var frames []protocol.Frame
	i := 0
	for ; i < len(lines) && lines[i] != ""; i++ {
		if !strings.HasPrefix(lines[i], "goroutine ") && len(message) < 3 {
			message = append(message, protocol.CutLine(strings.TrimSpace(lines[i]), 200))
		}
	}
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "goroutine ") && strings.HasSuffix(lines[i], ":") {
			frames = learnerFrames(root, lines[i+1:])
			break
		}
	}
	out := slices.Clone(message)
	for _, f := range frames[:min(len(frames), maxCrashLines-len(out))] {
		out = append(out, frameLine(f))
	}
	headline = cmp.Or(strings.Join(message[:min(1, len(message))], ""), "a crash with no message")
	if len(frames) > 0 {
		headline += fmt.Sprintf(" (%s:%d)", frames[0].File, frames[0].Line)
	}
	return strings.Join(out, "\n"), headline
}

// cutRace cuts a race report to its headline and its accesses, each with
// the learner's frames only.
func cutRace(root string, lines []string) string {
	out := []string{lines[0]}
	for i := 1; i < len(lines); i++ {
		if !accessLine.MatchString(lines[i]) {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "  ") {
			j++
		}
		out = append(out, lines[i])
		frames := learnerFrames(root, lines[i+1:j])
		if len(frames) == 0 {
			out = append(out, "  (no frame in your own files)")
		}
		for _, f := range frames {
			out = append(out, frameLine(f))
		}
		i = j - 1
	}
	return strings.Join(out[:min(len(out), maxRaceLines)], "\n")
}

// accessLine is a race report's access line: "Write at 0x... by
// goroutine 8:", "Previous read at 0x... by main goroutine:".
var accessLine = regexp.MustCompile(`^(Read|Write|Atomic|Previous (read|write|atomic)) .*at 0x.* by .*:$`)

// learnerFrames reads the frames of a traceback or of one access of a race
// report (a function line, then its file:line indented under it) and keeps
// those in the learner's own files, named from the top folder.
func learnerFrames(root string, lines []string) []protocol.Frame {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		modPath = "\x00" // no module: no path starts with it
	}
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

// frameLine writes a frame as the cut reports show it.
func frameLine(f protocol.Frame) string {
	return fmt.Sprintf("  %s  %s:%d", f.Function, f.File, f.Line)
}

// exitStatus reads go test's "exit status N" from a package's output.
var exitStatus = regexp.MustCompile(`(?m)^exit status (\d+)$`)

// finish says, for each package whose test binary ran, whether it ran to
// its end, and if not, why, in words that stand alone.
func (r *reader) finish() {
	for path, b := range r.bins {
		p := b.pkg
		p.Output = keepTail(b.out.String(), outputTail)
		if p.BuildError != "" || p.NoTests || !b.seen {
			continue
		}
		for i, race := range p.Races {
			p.Races[i].Name, p.Races[i].Part = caseOfTest(race.Test)
			for _, c := range p.Cases { // the case whose subtest holds the race's test
				if c.Test == race.Test || strings.HasPrefix(race.Test, c.Test+"/") {
					p.Races[i].Name, p.Races[i].Part = c.Name, c.Part
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
		exit := Exit{}
		failed := (b.last == "FAIL" || b.end == "fail") && !b.failed
		switch {
		case r.flooded != "" && r.floodIn == path:
			exit.Reason = fmt.Sprintf("the test binary printed more than %d MB during %s, and was stopped: does your code print in a loop?", floodLimit>>20, caseWhere(r.flooded))
		case b.end == "" && b.last == "":
			exit.Reason = "the test binary did not finish: go test was stopped" + during + "."
		case b.crash != nil && b.last == "":
			var headline string
			exit.Crash, headline = crashOf(r.root, b.crash)
			if limit, ok := strings.CutPrefix(headline, "panic: test timed out after "); ok {
				exit.Reason = fmt.Sprintf("the test binary reached go test's time limit (-timeout %s)%s.", strings.Fields(limit)[0], during)
			} else {
				exit.Reason = fmt.Sprintf("the test binary crashed%s: %s.", during, headline)
			}
		case open != "":
			exit.Reason = "the test binary exited" + status + during + ": does your code call os.Exit or syscall.Exit?"
		case b.last == "" && len(b.order) == 0:
			exit.Reason = "the test binary ran no test: does an init function in your code call os.Exit?"
		case b.last == "":
			exit.Reason = "the test binary exited" + status + during + ", before the testing package's last line: does your code call os.Exit?"
		case failed && (status == " with status 66" || len(p.Races) > 0):
			exit.Reason = "the race detector found a data race outside the cases."
		case failed:
			exit.Reason = "the test binary failed" + status + during + ", though no test failed: does your code call os.Exit?"
		default:
			// It printed its last line; go test's own may not have come, if
			// a process the learner's code started kept it waiting.
			exit.Complete = true
		}
		if exit.Complete && !b.viaRunner && len(b.order) > 0 {
			continue // its tests did not report through the ladder's runner
		} else if !exit.Complete {
			exit.Reason += " Nothing in it counts as done."
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
	if parts := strings.Split(name, "/"); len(parts) >= 3 {
		num, ok := strings.CutPrefix(parts[len(parts)-2], "part_")
		if n, err := strconv.Atoi(num); err == nil && ok {
			return strings.ReplaceAll(parts[len(parts)-1], "_", " "), n
		}
	}
	return name, 0
}
