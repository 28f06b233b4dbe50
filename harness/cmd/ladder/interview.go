package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/guide"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Interview mode plays the candidate's side of a mock interview: the
// question of part 1 alone, a clock, the part's tests on every save, the
// next part as the interviewer's follow-up once a part passes, and a
// summary at the end, kept in .ladder/interviews/.

// defaultBudget is an interview's length when TIME is not given and the
// level's guide gives no scope, and maxBudget the longest one: a record
// that claims more is not believed.
const (
	defaultBudget = 45 * time.Minute
	maxBudget     = 12 * time.Hour
)

// warnings are the times left at which the clock speaks up.
var warnings = []time.Duration{10 * time.Minute, 2 * time.Minute}

// interviewsDir keeps every interview's summary, as JSON and as text.
const interviewsDir = "interviews"

// How an interview ended.
const (
	endPassed  = "all parts passed"
	endTimeUp  = "time up"
	endStopped = "stopped"
	endClosed  = "terminal closed"
)

// interviewRun is the interview running now, as state.json records it so
// that make hint-N, in another process, can count its hints.
type interviewRun struct {
	Level int `json:"level"`
	Part  int `json:"part"`
	// Until is when the interview's time is up: a record left behind by
	// an interview that did not end cleanly stops counting then.
	Until time.Time `json:"until"`
	// PID is the interview's process: once it is gone, so is the
	// interview, whatever Until says.
	PID int `json:"pid,omitempty"`
	// Hints counts the hints asked for, by part.
	Hints map[string]int `json:"hints,omitempty"`
	// Offer, Named and NamedLines are the known mistakes offered as hints
	// (see interviewmistakes.go).
	Offer      *mistakeOffer  `json:"offer,omitempty"`
	Named      map[string]int `json:"named,omitempty"`
	NamedLines []string       `json:"named_lines,omitempty"`
}

// running reports whether r is an interview of level n that is still on:
// its time is not up, and its process is still there. A record that
// claims more time than an interview can have is stale too.
func (r *interviewRun) running(n int, now time.Time) bool {
	if r == nil || r.Level != n || !now.Before(r.Until) || r.Until.Sub(now) > maxBudget {
		return false
	}
	// A record without a PID comes from before PIDs were kept: its Until
	// alone says.
	return r.PID == 0 || (r.PID > 0 && processAlive(r.PID))
}

// processAlive reports whether a process with this id exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false // Windows finds only processes that exist
	}
	defer p.Release()
	if runtime.GOOS == "windows" {
		return true
	}
	// Signal 0 checks without sending: EPERM is a process of another user.
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// interviewSummary is what an interview leaves behind.
type interviewSummary struct {
	Level          int             `json:"level"`
	Title          string          `json:"title"`
	Started        time.Time       `json:"started"`
	BudgetSeconds  int             `json:"budget_seconds"`
	ElapsedSeconds int             `json:"elapsed_seconds"`
	End            string          `json:"end"`
	FreshStub      bool            `json:"fresh_stub"`
	Hints          int             `json:"hints"`
	Parts          []interviewPart `json:"parts"`
	// InScope is how many parts, from the first, the clock is meant for,
	// and Offered how many are asked at all: the in-scope ones, then the
	// stretch ones. The rest are take-home. 0 means every part (a summary
	// from before scopes were kept).
	InScope int `json:"in_scope,omitempty"`
	Offered int `json:"offered,omitempty"`
	// MistakesNamed counts the hints, of Hints, that named a known mistake.
	MistakesNamed int `json:"mistakes_named,omitempty"`
}

// offered is how many parts the interview asks, in-scope and stretch.
func (s interviewSummary) offered() int {
	if s.Offered <= 0 || s.Offered > len(s.Parts) {
		return len(s.Parts)
	}
	return s.Offered
}

// interviewPart is one part of an interview.
type interviewPart struct {
	Number   int    `json:"part"`
	Title    string `json:"title"`
	Reached  bool   `json:"reached"`
	Passed   bool   `json:"passed"`
	Seconds  int    `json:"seconds"` // from the part's question to its passing run, or to the end
	Runs     int    `json:"runs"`
	FirstRun bool   `json:"passed_first_run"`
	Hints    int    `json:"hints"`
}

func (s interviewSummary) partsPassed() int {
	n := 0
	for _, p := range s.Parts {
		if p.Passed {
			n++
		}
	}
	return n
}

// interview is one interview under way, with everything it depends on
// injected: the tests drive it with a fake clock, their own change
// notifications and interrupts, and no terminal.
type interview struct {
	root   string
	level  levels.Level
	budget time.Duration
	clock  clock.Clock
	out    io.Writer
	st     style

	// grade runs the tests of parts 1 to upTo of the level, or of all
	// its parts (0): each save reruns every part asked so far.
	grade func(upTo int) (levelGrade, error)
	// reset offers to restore the level's stub.
	reset func() int
	// changes fires when a file of the level may have changed.
	changes <-chan struct{}
	// interrupt fires on Ctrl-C, and when the terminal closes (SIGHUP).
	interrupt <-chan os.Signal
	// ticks wake the clock up to warn and to end on time.
	ticks <-chan time.Time
	// settle is how long to wait after a change for the editor's last write.
	settle time.Duration
	// beforeWait, when set, is called each time the interview waits; the
	// tests play the candidate in it.
	beforeWait func()

	readme readme // the question, part by part, and the guidance kept back
	fresh  bool   // whether the interview starts from a fresh stub
	// scope is what the level's guide says fits the clock; inScope and
	// offered count its parts as interviewSummary does.
	scope            guide.Scope
	inScope, offered int

	start    time.Time
	deadline time.Time
	current  int // index in sum.Parts of the part asked now
	partFrom time.Time
	warned   map[time.Duration]bool
	said     bool   // whether the last checkClock printed a warning
	seen     string // the level's files as the last run saw them (see snapshot)
	sum      interviewSummary

	// mistakeOffered says the last run's failing cases match a known
	// mistake, which make hint-N names: the status line says so.
	mistakeOffered bool
}

func (iv *interview) dir() string { return filepath.Join(iv.root, iv.level.Dir) }

// cmdInterview is ladder interview [--time 45m] N.
func cmdInterview(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("interview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	budgetFlag := fs.String("time", "", "the interview's length, such as 45m or 30 (minutes); 45m when not given")
	every := fs.Duration("every", 500*time.Millisecond, "how often to look for changes")
	l, ok := levelArg("interview", fs, args, stderr)
	if !ok {
		return 2
	}
	budget := time.Duration(0) // the guide's scope says, in prepare
	if *budgetFlag != "" {
		var err error
		if budget, err = parseBudget(*budgetFlag); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	iv := &interview{
		root: root, level: l, budget: budget, clock: clock.System{}, out: stdout,
		st:     style{color: useColor(stdout)},
		grade:  func(upTo int) (levelGrade, error) { return gradeUpTo(root, l, upTo) },
		reset:  func() int { return resetForInterview(root, l, stdout, stderr) },
		settle: 150 * time.Millisecond,
	}
	if err := iv.prepare(); err != nil {
		fmt.Fprintln(stderr, "ladder interview:", err)
		return 1
	}
	// Ctrl-C before this point stops everything, as usual; from here on it
	// ends the interview with a summary. So does a closed terminal: left
	// to its default, SIGHUP would leave the running record behind.
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGHUP)
	defer signal.Stop(interrupt)
	iv.interrupt = interrupt
	src := pollChanges(iv.dir(), *every)
	defer src.Close()
	iv.changes = src.C()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	iv.ticks = ticker.C
	if _, err := iv.hold(); err != nil {
		fmt.Fprintln(stderr, "ladder interview:", err)
		return 1
	}
	return 0
}

// gradeUpTo grades parts 1 to upTo of a level in one grading, or the whole
// level when upTo is 0 or its last part. The parts after upTo do not run:
// the candidate has not seen them yet.
func gradeUpTo(root string, l levels.Level, upTo int) (levelGrade, error) {
	if upTo == 0 || upTo >= l.Parts[len(l.Parts)-1].Number {
		return testLevel(root, l, 0)
	}
	return gradeThrough(context.Background(), root, l, upTo)
}

// resetForInterview is the one place interview mode resets a level's stub,
// keeping the learner's files in a backup: reset asks its own question.
func resetForInterview(root string, l levels.Level, stdout, stderr io.Writer) int {
	return cmdReset(root, []string{strconv.Itoa(l.Number)}, stdout, stderr)
}

// parseBudget reads TIME: a Go duration ("30m", "1h15m") or a number of
// minutes ("30").
func parseBudget(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		n, nerr := strconv.Atoi(s)
		if nerr != nil {
			return 0, fmt.Errorf("TIME=%s: want a length such as 45m, 1h or 30 (minutes)", s)
		}
		d = time.Duration(n) * time.Minute
	}
	if d <= 0 {
		return 0, fmt.Errorf("TIME=%s: an interview needs some time", s)
	}
	if d > maxBudget {
		return 0, fmt.Errorf("TIME=%s: an interview lasts at most %dh", s, int(maxBudget/time.Hour))
	}
	return d, nil
}

// run prepares the interview and holds it.
func (iv *interview) run() (interviewSummary, error) {
	if err := iv.prepare(); err != nil {
		return interviewSummary{}, err
	}
	return iv.hold()
}

// prepare reads the question and makes sure the level is a fresh stub,
// before the clock starts.
func (iv *interview) prepare() error {
	r, err := readmeParts(iv.root, iv.level)
	if err != nil {
		return err
	}
	iv.readme = r
	if err := iv.readScope(); err != nil {
		return err
	}
	iv.fresh, err = iv.freshStub()
	return err
}

// readScope reads from the level's guide which parts fit the clock: those
// are asked first, then the stretch parts once they pass; take-home parts
// are not asked. Without TIME, the clock is the scope's minutes. A level
// without a guide has every part in scope.
func (iv *interview) readScope() error {
	l := iv.level
	iv.scope = guide.Scope{Minutes: int(defaultBudget / time.Minute)}
	for _, p := range l.Parts {
		iv.scope.In = append(iv.scope.In, p.Number)
	}
	g, err := guide.Load(filepath.Join(iv.root, l.Dir, guide.FileName))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		iv.scope = g.Scope
	}
	iv.inScope, iv.offered = len(l.Parts), len(l.Parts)
	if n := len(iv.scope.In); n > 0 && n <= len(l.Parts) {
		iv.inScope = n
		iv.offered = min(n+len(iv.scope.Stretch), len(l.Parts))
	}
	if iv.budget == 0 {
		iv.budget = time.Duration(iv.scope.Minutes) * time.Minute
		if iv.budget <= 0 || iv.budget > maxBudget {
			iv.budget = defaultBudget
		}
	}
	return nil
}

// scopeSentence says which parts the clock is for, when it is not all of
// them: "The clock is for parts 1 to 3; parts 4 and 5 are stretch, asked
// once those pass; parts 6 to 8 are take-home, not asked here."
func (iv *interview) scopeSentence() string {
	parts := iv.level.Parts
	if iv.inScope == len(parts) {
		return ""
	}
	span := func(ps []levels.Part) string {
		if len(ps) == 1 {
			return fmt.Sprintf("part %d", ps[0].Number)
		}
		and := " to "
		if len(ps) == 2 {
			and = " and "
		}
		return fmt.Sprintf("parts %d%s%d", ps[0].Number, and, ps[len(ps)-1].Number)
	}
	s := "The clock is for " + span(parts[:iv.inScope])
	if iv.offered > iv.inScope {
		verb := "are"
		if iv.offered-iv.inScope == 1 {
			verb = "is"
		}
		s += fmt.Sprintf("; %s %s stretch, asked once those pass", span(parts[iv.inScope:iv.offered]), verb)
	}
	if iv.offered < len(parts) {
		verb := "are"
		if len(parts)-iv.offered == 1 {
			verb = "is"
		}
		s += fmt.Sprintf("; %s %s take-home, not asked here", span(parts[iv.offered:]), verb)
	}
	return s + ".\n"
}

// hold runs the clock, the question and the tests, and returns the
// summary, already saved.
func (iv *interview) hold() (interviewSummary, error) {
	iv.seen = snapshot(iv.dir())

	l := iv.level
	iv.start = iv.clock.Now()
	iv.deadline = iv.start.Add(iv.budget)
	iv.warned = map[time.Duration]bool{}
	if iv.offered == 0 { // a test that builds the interview without prepare
		iv.inScope, iv.offered = len(l.Parts), len(l.Parts)
	}
	iv.sum = interviewSummary{Level: l.Number, Title: l.Title, Started: iv.start,
		BudgetSeconds: seconds(iv.budget), FreshStub: iv.fresh}
	if iv.offered < len(l.Parts) || iv.inScope < len(l.Parts) {
		iv.sum.InScope, iv.sum.Offered = iv.inScope, iv.offered
	}
	for _, p := range l.Parts {
		iv.sum.Parts = append(iv.sum.Parts, interviewPart{Number: p.Number, Title: p.Title})
	}
	iv.sum.Parts[0].Reached = true
	iv.partFrom = iv.start
	iv.recordRunning()

	first := l.Parts[0].Number
	fmt.Fprintf(iv.out, "%s\n", iv.st.paint("1", fmt.Sprintf("Mock interview: level %d, %s", l.Number, l.Title)))
	fmt.Fprintf(iv.out, "You have %s, until %s. The question comes one part at a time: the next part comes when this one passes.\n",
		minutes(iv.budget), iv.deadline.Format("15:04"))
	fmt.Fprint(iv.out, iv.scopeSentence())
	fmt.Fprintf(iv.out, "Edit the files in %s: every save runs the tests of part %d and, once the follow-ups come, of every part before the one asked. make hint-%d gives a hint, and the summary counts it. Ctrl-C ends the interview.\n\n",
		l.Dir, first, l.Number)
	iv.heading("The question")
	fmt.Fprintf(iv.out, "%s\n\n%s\n\n", iv.readme.intro(first), iv.readme.sections[first])
	iv.heading("")
	fmt.Fprintf(iv.out, "The clock is running. Save a file to run part %d's tests.\n", first)
	iv.statusLine(iv.start)

	end := ""
	for end == "" {
		if iv.beforeWait != nil {
			iv.beforeWait()
		}
		select {
		case <-iv.changes:
			if iv.settle > 0 {
				time.Sleep(iv.settle) // editors write a file in several steps: wait for the last
			}
			for len(iv.changes) > 0 {
				<-iv.changes
			}
			// Only a change to the level's .go files is a run, not the
			// watcher's own probe file in .ladder/.
			if now := snapshot(iv.dir()); now != iv.seen {
				iv.seen = now
				end = iv.testRun()
			}
		case <-iv.ticks:
			now := iv.clock.Now()
			if end = iv.checkClock(now); end == "" && iv.said {
				iv.statusLine(now) // a warning was printed: the status goes back to the last line
			}
		case sig := <-iv.interrupt:
			end = stopEnd(sig)
		}
	}
	return iv.finish(end)
}

// heading prints a rule across the log, with a title or without.
func (iv *interview) heading(title string) {
	line := strings.Repeat("-", 72)
	if title != "" {
		line = "--- " + title + " " + strings.Repeat("-", 67-len(title))
	}
	fmt.Fprintln(iv.out, iv.st.paint("1", line))
}

// freshStub makes sure the interview starts from the stub: every case of
// the level still ends as "not implemented". When some case gets further,
// it offers reset (which keeps a backup), and says whether the stub is
// fresh now.
func (iv *interview) freshStub() (bool, error) {
	l := iv.level
	fmt.Fprintf(iv.out, "Checking that level %d is a fresh stub...\n", l.Number)
	g, err := iv.grade(0)
	if err != nil {
		return false, err
	}
	why := notFresh(g)
	if why == "" {
		fmt.Fprintln(iv.out)
		return true, nil
	}
	fmt.Fprintf(iv.out, "Level %d is not a fresh stub: %s. An interview starts from the stub as shipped; reset puts it back and keeps your files in a backup.\n",
		l.Number, why)
	before := snapshot(iv.dir())
	code := iv.reset()
	if code == 0 && snapshot(iv.dir()) != before {
		fmt.Fprintln(iv.out)
		return true, nil
	}
	fmt.Fprintf(iv.out, "The interview goes on with level %d as it is; the summary says it did not start from a fresh stub.\n\n", l.Number)
	return false, nil
}

// notFresh says why a graded level is not a fresh stub, or "" if it is.
func notFresh(g levelGrade) string {
	switch g.status() {
	case statusNotStarted:
		return ""
	case statusNoBuild:
		return "it does not compile"
	case statusBroken, statusUnverified:
		return "its tests did not run to their end"
	}
	passed, further := 0, 0
	for _, p := range g.Parts {
		passed += p.Passed
		for _, c := range p.Cases {
			if !c.Fuzz && c.Verdict != protocol.NotImplemented {
				further++
			}
		}
	}
	if passed == further {
		return fmt.Sprintf("%d of its cases already pass", passed)
	}
	return fmt.Sprintf("%d of its cases get past \"not implemented\", and %d pass", further, passed)
}

// testRun runs the tests of every part asked so far and moves on when they
// all pass: an earlier part that broke holds the interview until it passes
// again. It returns how the interview ended, or "" if it goes on.
func (iv *interview) testRun() string {
	now := iv.clock.Now()
	left := iv.deadline.Sub(now)
	if left <= 0 {
		return endTimeUp
	}
	p := &iv.sum.Parts[iv.current]
	p.Runs++
	fmt.Fprintln(iv.out)
	iv.heading(fmt.Sprintf("part %d, run %d, %s left", p.Number, p.Runs, minutes(left)))
	g, err := iv.grade(p.Number)
	select {
	case sig := <-iv.interrupt:
		// Ctrl-C reached the tests too: this run counts for nothing.
		p.Runs--
		return stopEnd(sig)
	default:
	}
	if err != nil {
		fmt.Fprintf(iv.out, "The tests could not run: %v\n", err)
		return iv.afterRun()
	}
	g = partsUpTo(g, p.Number)
	g.HideMistakes = true // offered as a hint instead, below
	iv.offerMistake(g)
	broke := iv.regressions(g)
	for _, line := range broke {
		fmt.Fprintln(iv.out, iv.st.paint("31", line))
	}
	if len(broke) > 0 {
		fmt.Fprintln(iv.out)
	}
	if !gradePassed(g, 0) {
		writeGrade(iv.out, g, 0, false)
		return iv.afterRun()
	}
	writeGrade(iv.out, g, p.Number, false)
	// The part is done when the candidate saved, not when go test ended.
	p.Passed, p.FirstRun, p.Seconds = true, p.Runs == 1, seconds(now.Sub(iv.partFrom))
	if iv.current == iv.offered-1 {
		iv.sum.ElapsedSeconds = seconds(now.Sub(iv.start))
		fmt.Fprintf(iv.out, "\n%s\n", iv.st.paint("32", fmt.Sprintf("Part %d passes: %s, %s in, with %s to spare.",
			p.Number, everyPartPasses(iv.offered), minutes(now.Sub(iv.start)), minutes(left))))
		return endPassed
	}
	iv.current++
	next := &iv.sum.Parts[iv.current]
	next.Reached = true
	iv.partFrom = now
	iv.recordRunning()
	passes := fmt.Sprintf("Part %d passes, %s in.", p.Number, minutes(now.Sub(iv.start)))
	title := "The follow-up"
	if iv.current == iv.inScope {
		passes = fmt.Sprintf("Part %d passes: %s in scope, %s in. What comes next is stretch.", p.Number, everyPartPasses(iv.inScope), minutes(now.Sub(iv.start)))
	}
	if iv.current >= iv.inScope {
		title = "The follow-up, stretch"
	}
	fmt.Fprintf(iv.out, "\n%s\n\n", iv.st.paint("32", passes))
	iv.heading(title)
	fmt.Fprintf(iv.out, "Good. Now: %s.\n\n%s\n\n", lower(next.Title), iv.readme.sections[next.Number])
	if api := iv.readme.api(next.Number); api != "" {
		fmt.Fprintf(iv.out, "The API grows:\n\n%s\n\n", api)
	}
	iv.heading("")
	fmt.Fprintf(iv.out, "Save a file to run the tests of parts %d to %d.\n", iv.sum.Parts[0].Number, next.Number)
	return iv.afterRun()
}

// afterRun ends a run's output: a warning if one is due, then the status
// line, last.
func (iv *interview) afterRun() string {
	now := iv.clock.Now()
	if end := iv.checkClock(now); end != "" {
		return end
	}
	iv.statusLine(now)
	return ""
}

// partsUpTo keeps the parts of g up to part upTo: the ones asked so far.
func partsUpTo(g levelGrade, upTo int) levelGrade {
	var parts []partGrade
	for _, p := range g.Parts {
		if p.Number <= upTo {
			parts = append(parts, p)
		}
	}
	g.Parts = parts
	return g
}

// regressions marks each part before the current one passed or not, as this
// run found it, and says which of them broke. The summary keeps what the
// last run found: a part that broke is not passed until it passes again.
func (iv *interview) regressions(g levelGrade) []string {
	var lines []string
	for i := range iv.sum.Parts[:iv.current] {
		p := &iv.sum.Parts[i]
		if gradePassed(g, p.Number) {
			p.Passed = true
			continue
		}
		p.Passed, p.FirstRun = false, false
		// A build error or a broken test binary is shown by writeGrade;
		// a failing case is named here, at the top.
		if c, ok := firstFailing(g, p.Number); ok {
			lines = append(lines, fmt.Sprintf("Part %d broke: %s", p.Number, caseLine(c)))
		}
	}
	return lines
}

// firstFailing is part's first case that did not pass.
func firstFailing(g levelGrade, part int) (caseGrade, bool) {
	for _, p := range g.Parts {
		if p.Number != part {
			continue
		}
		for _, c := range p.Cases {
			if c.Verdict != protocol.Pass {
				return c, true
			}
		}
	}
	return caseGrade{}, false
}

// caseLine says in one line how a case went wrong: `case "a hit" fails:
// Count(t=4s) = 3, want 5`.
func caseLine(c caseGrade) string {
	if c.Verdict == protocol.NotImplemented {
		return fmt.Sprintf("case %q is not implemented yet: %s", c.Name, c.Missing)
	}
	verb := map[string]string{protocol.Fail: "fails"}[c.Verdict]
	if verb == "" {
		verb = c.Verdict // "panicked", "timed out"...
	}
	// The report's first line names the case; what went wrong comes next.
	for i, line := range strings.Split(c.Report, "\n") {
		line = strings.TrimSpace(line)
		if i == 0 || line == "" || strings.HasPrefix(line, "t counts from ") {
			continue
		}
		return fmt.Sprintf("case %q %s: %s", c.Name, verb, line)
	}
	return fmt.Sprintf("case %q %s", c.Name, verb)
}

// checkClock warns when a warning's time has come, and says when the time
// is up.
func (iv *interview) checkClock(now time.Time) string {
	left := iv.deadline.Sub(now)
	if left <= 0 {
		return endTimeUp
	}
	say := time.Duration(0)
	for _, w := range warnings {
		if left <= w && w < iv.budget && !iv.warned[w] {
			iv.warned[w] = true
			say = w // the warnings go from most time left to least: the last one crossed is the one to say
		}
	}
	iv.said = say != 0
	if say != 0 {
		fmt.Fprintf(iv.out, "\n%s\n", iv.st.paint("33", fmt.Sprintf("%d minutes left (%s).", int(say/time.Minute), minutes(left))))
	}
	return ""
}

// stopEnd is how an interview stopped by a signal ends: Ctrl-C, or the
// terminal closing.
func stopEnd(sig os.Signal) string {
	if sig == syscall.SIGHUP {
		return endClosed
	}
	return endStopped
}

// statusLine prints the part asked and the time left, as the last line of
// every run's output: a pane that shows only its last lines still shows
// them.
func (iv *interview) statusLine(now time.Time) {
	p := iv.sum.Parts[iv.current]
	asked := len(iv.sum.Parts)
	if iv.offered > 0 {
		asked = iv.offered // the take-home parts are never asked
	}
	offer := ""
	if iv.mistakeOffered {
		offer = fmt.Sprintf(" · a known mistake matches your failure: make hint-%d names it", iv.level.Number)
	}
	fmt.Fprintln(iv.out, iv.st.paint("36", fmt.Sprintf("[interview: level %d, part %d of %d · %s%s]",
		iv.level.Number, p.Number, asked, timeLeft(iv.deadline.Sub(now)), offer)))
}

// timeLeft says how many whole minutes are left, rounded down: the clock
// never promises more than there is.
func timeLeft(left time.Duration) string {
	if left < time.Minute {
		return "under 1 min left"
	}
	return fmt.Sprintf("%d min left", int(left/time.Minute))
}

// finish ends the interview: time of the part left open, hints from the
// state, the summary printed and saved.
func (iv *interview) finish(end string) (interviewSummary, error) {
	now := iv.clock.Now()
	if end == endTimeUp || now.After(iv.deadline) {
		now = iv.deadline
	}
	if end != endPassed {
		iv.sum.ElapsedSeconds = seconds(now.Sub(iv.start))
		p := &iv.sum.Parts[iv.current]
		p.Seconds = seconds(now.Sub(iv.partFrom))
	}
	iv.sum.End = end
	s, err := loadState(iv.root)
	if err == nil {
		if r := s.Interview; r != nil && r.Level == iv.level.Number {
			for i := range iv.sum.Parts {
				p := &iv.sum.Parts[i]
				p.Hints = r.Hints[strconv.Itoa(p.Number)]
				iv.sum.Hints += p.Hints
				iv.sum.MistakesNamed += min(r.Named[strconv.Itoa(p.Number)], p.Hints)
			}
		}
		s.Interview = nil
		err = saveState(iv.root, s)
	}
	if err != nil {
		fmt.Fprintf(iv.out, "(The hints asked for could not be read: %v)\n", err)
	}

	switch end {
	case endTimeUp:
		fmt.Fprintf(iv.out, "\n%s\n", iv.st.paint("31", "Time is up."))
	case endStopped:
		fmt.Fprintln(iv.out, "\nInterview stopped.")
	case endClosed:
		fmt.Fprintln(iv.out, "\nThe terminal closed: interview stopped.")
	}
	fmt.Fprintln(iv.out)
	writeSummary(iv.out, iv.sum)
	path, err := saveSummary(iv.root, iv.sum)
	if err != nil {
		return iv.sum, fmt.Errorf("could not keep the summary: %w", err)
	}
	fmt.Fprintf(iv.out, "\nKept in %s (and .json beside it).\n", path)
	if iv.sum.partsPassed() == len(iv.sum.Parts) {
		fmt.Fprintf(iv.out, "make debrief-level-%d shows the classic mistakes and the approaches.\n", iv.level.Number)
	}
	return iv.sum, nil
}

// recordRunning writes the interview into state.json, for make hint-N.
func (iv *interview) recordRunning() {
	s, err := loadState(iv.root)
	if err != nil {
		fmt.Fprintf(iv.out, "(Hints will not be counted: %v)\n", err)
		return
	}
	r := s.Interview
	if !r.running(iv.level.Number, iv.clock.Now()) || iv.current == 0 {
		r = &interviewRun{Level: iv.level.Number, Until: iv.deadline, Hints: map[string]int{}}
	}
	r.Part = iv.sum.Parts[iv.current].Number
	r.PID = os.Getpid() // a record whose process is gone is stale
	s.Interview = r
	if err := saveState(iv.root, s); err != nil {
		fmt.Fprintf(iv.out, "(Hints will not be counted: %v)\n", err)
	}
}

// writeSummary prints an interview's summary, as it is kept in
// .ladder/interviews/ and as the README shows one.
func writeSummary(w io.Writer, s interviewSummary) {
	fmt.Fprintf(w, "Interview summary: level %d, %s\n", s.Level, s.Title)
	how := map[string]string{endPassed: "all parts passed", endTimeUp: "time was up", endStopped: "stopped with Ctrl-C", endClosed: "stopped when the terminal closed"}[s.End]
	fmt.Fprintf(w, "Started %s with %s on the clock. Ended after %s: %s.\n\n",
		s.Started.Format("2006-01-02 15:04"), minutes(time.Duration(s.BudgetSeconds)*time.Second),
		minutes(time.Duration(s.ElapsedSeconds)*time.Second), how)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  part\ttitle\ttime\truns\thints\tresult")
	var first, passed, notReached []string
	for i, p := range s.Parts {
		result := "not passed"
		switch {
		case i >= s.offered():
			fmt.Fprintf(tw, "  %d\t%s\t-\t-\t-\t%s\n", p.Number, p.Title, "take-home")
			continue
		case !p.Reached:
			result = "not reached"
			notReached = append(notReached, strconv.Itoa(p.Number))
		case p.Passed && p.FirstRun:
			result = "passed on the first run"
			first = append(first, strconv.Itoa(p.Number))
			passed = append(passed, strconv.Itoa(p.Number))
		case p.Passed:
			result = "passed"
			passed = append(passed, strconv.Itoa(p.Number))
		}
		if !p.Reached {
			fmt.Fprintf(tw, "  %d\t%s\t-\t-\t-\t%s\n", p.Number, p.Title, result)
			continue
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%d\t%s\n", p.Number, p.Title, minutes(time.Duration(p.Seconds)*time.Second), p.Runs, p.Hints, result)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Parts passed: %d of %d.\n", len(passed), len(s.Parts))
	fmt.Fprintf(w, "Passed on the first run: %s.\n", partList(first))
	named := ""
	if s.MistakesNamed > 0 {
		named = fmt.Sprintf(", %d of them naming a known mistake", s.MistakesNamed)
	}
	fmt.Fprintf(w, "Hints asked for (make hint-%d during the interview): %d%s.\n", s.Level, s.Hints, named)
	fmt.Fprintf(w, "Parts not reached: %s.\n", partList(notReached))
	if !s.FreshStub {
		fmt.Fprintln(w, "It started from code already written, not from a fresh stub.")
	}
}

func partList(parts []string) string {
	switch len(parts) {
	case 0:
		return "none"
	case 1:
		return "part " + parts[0]
	}
	return "parts " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// saveSummary keeps the summary as .ladder/interviews/level-N-<time>.txt
// and .json, and returns the text file's path, relative to root.
func saveSummary(root string, s interviewSummary) (string, error) {
	dir := filepath.Join(stateDir, interviewsDir)
	if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
		return "", err
	}
	base := filepath.Join(dir, fmt.Sprintf("level-%d-%s", s.Level, s.Started.Format("20060102-150405")))
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root, base+".json"), append(data, '\n'), 0o644); err != nil {
		return "", err
	}
	var b strings.Builder
	writeSummary(&b, s)
	if err := os.WriteFile(filepath.Join(root, base+".txt"), []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	return base + ".txt", nil
}

// interviewBest is a level's best interview, as progress shows it. An
// interview that started from a fresh stub beats one that did not; then
// come the most parts passed, then the shortest time.
type interviewBest struct {
	Seconds     int       `json:"seconds"`
	PartsPassed int       `json:"parts_passed"`
	Parts       int       `json:"parts"`
	End         string    `json:"end"`
	Started     time.Time `json:"started"`
	FreshStub   bool      `json:"fresh_stub"`
	Interviews  int       `json:"interviews"` // how many were held
}

// beats reports whether b is a better interview than old.
func (b *interviewBest) beats(old *interviewBest) bool {
	switch {
	case old == nil:
		return true
	case b.FreshStub != old.FreshStub:
		return b.FreshStub
	case b.PartsPassed != old.PartsPassed:
		return b.PartsPassed > old.PartsPassed
	}
	return b.Seconds < old.Seconds
}

// maxSummary is the most a kept summary can weigh; a bigger file is not one.
const maxSummary = 1 << 20

// summaryNameRE is a kept summary's name: level-N-YYYYMMDD-HHMMSS.json.
var summaryNameRE = regexp.MustCompile(`^level-(\d+)-\d{8}-\d{6}\.json$`)

// bestInterviews reads every kept summary and returns each level's best. A
// file that is not a summary this command could have written is skipped
// with a warning: it must neither stop make progress nor count.
func bestInterviews(root string) (map[int]*interviewBest, []string) {
	dir := filepath.Join(root, stateDir, interviewsDir)
	files, _ := filepath.Glob(filepath.Join(dir, "level-*.json"))
	sort.Strings(files)
	out := map[int]*interviewBest{}
	var warnings []string
	for _, f := range files {
		s, err := readSummary(f)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: skipped, %v", filepath.Join(stateDir, interviewsDir, filepath.Base(f)), err))
			continue
		}
		cand := &interviewBest{Seconds: s.ElapsedSeconds, PartsPassed: s.partsPassed(), Parts: s.offered(), End: s.End,
			Started: s.Started, FreshStub: s.FreshStub}
		b := out[s.Level]
		if cand.beats(b) {
			if b != nil {
				cand.Interviews = b.Interviews
			}
			b = cand
			out[s.Level] = b
		}
		b.Interviews++
	}
	return out, warnings
}

// readSummary reads one kept summary and checks it.
func readSummary(path string) (interviewSummary, error) {
	var s interviewSummary
	info, err := os.Lstat(path)
	if err != nil {
		return s, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxSummary {
		return s, errors.New("not a summary file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("not a complete summary (%v)", err)
	}
	m := summaryNameRE.FindStringSubmatch(filepath.Base(path))
	if m == nil || m[1] != strconv.Itoa(s.Level) {
		return s, fmt.Errorf("its name does not match its level %d", s.Level)
	}
	return s, s.check()
}

// check says what makes s a summary no interview could have left: a level
// or parts the registry does not know, times out of the budget, a part
// passed but not reached, an end that does not match the parts.
func (s interviewSummary) check() error {
	l, ok := levels.Numbered(s.Level)
	switch {
	case !ok:
		return fmt.Errorf("there is no level %d", s.Level)
	case len(s.Parts) != len(l.Parts):
		return fmt.Errorf("level %d has %d parts, the summary %d", s.Level, len(l.Parts), len(s.Parts))
	case s.Started.IsZero():
		return errors.New("no start time")
	case s.BudgetSeconds <= 0 || s.BudgetSeconds > seconds(maxBudget):
		return fmt.Errorf("a budget of %ds", s.BudgetSeconds)
	case s.ElapsedSeconds < 0 || s.ElapsedSeconds > s.BudgetSeconds:
		return fmt.Errorf("%ds elapsed of a %ds budget", s.ElapsedSeconds, s.BudgetSeconds)
	case s.Hints < 0:
		return fmt.Errorf("%d hints", s.Hints)
	case s.MistakesNamed < 0 || s.MistakesNamed > s.Hints:
		return fmt.Errorf("%d known mistakes named of %d hints", s.MistakesNamed, s.Hints)
	case s.InScope < 0 || s.Offered < 0 || s.InScope > s.offered():
		return fmt.Errorf("%d parts in scope and %d offered", s.InScope, s.Offered)
	}
	if s.End != endPassed && s.End != endTimeUp && s.End != endStopped && s.End != endClosed {
		return fmt.Errorf("an unknown end %q", s.End)
	}
	total, hints, reached := 0, 0, true
	for i, p := range s.Parts {
		switch {
		case p.Number != l.Parts[i].Number:
			return fmt.Errorf("part %d where part %d should be", p.Number, l.Parts[i].Number)
		case p.Seconds < 0 || p.Runs < 0 || p.Hints < 0:
			return fmt.Errorf("part %d: negative counts", p.Number)
		case p.Reached && !reached:
			return fmt.Errorf("part %d reached after a part that was not", p.Number)
		case p.Passed && (!p.Reached || p.Runs == 0):
			return fmt.Errorf("part %d passed without a run", p.Number)
		case p.Reached && i >= s.offered():
			return fmt.Errorf("part %d reached, though it is take-home", p.Number)
		}
		reached = p.Reached
		total += p.Seconds
		hints += p.Hints
	}
	switch {
	case !s.Parts[0].Reached:
		return errors.New("part 1 not reached")
	case (s.End == endPassed) != (s.partsPassed() == s.offered()):
		return fmt.Errorf("it ended %q with %d of %d parts passed", s.End, s.partsPassed(), s.offered())
	case hints != s.Hints:
		return fmt.Errorf("%d hints, and its parts %d", s.Hints, hints)
	case total > s.ElapsedSeconds+len(s.Parts): // each part's time is rounded on its own
		return fmt.Errorf("its parts took %ds of %ds", total, s.ElapsedSeconds)
	}
	return nil
}

// interviewWarnings is where make progress says which kept summaries it
// skipped: stderr, so that --json stays JSON.
var interviewWarnings io.Writer = os.Stderr

// addInterviews puts each level's best interview into the ladder.
func addInterviews(root string, rep *ladderReport) {
	best, warnings := bestInterviews(root)
	for _, w := range warnings {
		fmt.Fprintln(interviewWarnings, "ladder progress:", w)
	}
	for i := range rep.Levels {
		rep.Levels[i].BestInterview = best[rep.Levels[i].Number]
	}
}

// writeInterviews prints the best interview of each level that had one.
func writeInterviews(w io.Writer, rep ladderReport) {
	header := false
	for _, l := range rep.Levels {
		b := l.BestInterview
		if b == nil {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\nmock interviews (make interview-level-N), the best of each level:")
			header = true
		}
		what := fmt.Sprintf("all %d parts", b.Parts)
		if b.PartsPassed < b.Parts {
			what = fmt.Sprintf("%d of %d parts (%s)", b.PartsPassed, b.Parts, b.End)
		}
		from := ""
		if !b.FreshStub {
			from = ", started from code already written"
		}
		fmt.Fprintf(w, "  level %d  %s, %s, best of %d%s\n", l.Number, minutes(time.Duration(b.Seconds)*time.Second), what, b.Interviews, from)
	}
}

// minutes writes a duration as minutes and seconds: "12m05s".
func minutes(d time.Duration) string {
	s := seconds(d)
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

func seconds(d time.Duration) int {
	return int(d.Round(time.Second) / time.Second)
}

// everyPartPasses is "both parts pass" or "all 3 parts pass".
func everyPartPasses(n int) string {
	if n == 2 {
		return "both parts pass"
	}
	return fmt.Sprintf("all %d parts pass", n)
}
