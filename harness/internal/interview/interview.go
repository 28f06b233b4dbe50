// Package interview is the ladder's mock interview, what the ladder command
// remembers of a learner (.ladder/state.json), and a level's HINTS.md.
package interview

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/guide"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// DefaultBudget is an interview's length when neither TIME nor the guide gives one.
const DefaultBudget = 45 * time.Minute

var warnings = []time.Duration{10 * time.Minute, 2 * time.Minute} // times left the clock says, most first

// How an interview ended.
const (
	EndPassed  = "all parts passed"
	EndTimeUp  = "time up"
	EndStopped = "stopped"
	EndClosed  = "terminal closed"
)

// KeysLine reminds the candidate, on a terminal, of the keys an interview reads.
const KeysLine = "Keys: h hint · c clarifying questions · r run now · p the question · t time left · q end"

// Terminal is what watch and interview mode share.
type Terminal struct {
	Out, ErrOut io.Writer
	Interrupt   <-chan os.Signal // Ctrl-C, or SIGHUP when the terminal closes
	Keys        <-chan byte      // nil without a terminal: then the question shows the clarifications' answers
	Changes     <-chan struct{}
	Hint        func()        // shows the next hint, as make hint-N does
	Settle      time.Duration // how long to wait after a change for the editor's last write
}

// Saved waits out an editor's writes, and reports whether dir's .go files changed since *seen.
func (t Terminal) Saved(dir string, seen *string) bool {
	time.Sleep(t.Settle) // editors write a file in several steps: wait for the last
	for len(t.Changes) > 0 {
		<-t.Changes
	}
	now, was := Snapshot(dir), *seen
	*seen = now
	return now != was
}

// PollChanges signals on changes when a .go file under dir changed, until stop.
func PollChanges(dir string, every time.Duration) (changes <-chan struct{}, stop func()) {
	c, done := make(chan struct{}, 1), make(chan struct{})
	last := Snapshot(dir) // before returning: a change made after that is seen
	go func() {
		for t := time.NewTicker(every); ; {
			select {
			case <-done:
				t.Stop()
				return
			case <-t.C:
			}
			if now := Snapshot(dir); now != last {
				last = now
				select {
				case c <- struct{}{}:
				default:
				}
			}
		}
	}()
	return c, func() { close(done) }
}

// Snapshot sums up the .go files under dir: names, sizes and times.
func Snapshot(dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", path, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}

// Interview is one interview under way; tests inject a fake clock and no terminal.
type Interview struct {
	Terminal
	Root   string
	Level  levels.Level
	Budget time.Duration
	Clock  clock.Clock
	St     grade.Style

	Grade      func(upTo int) (grade.Level, error) // the tests of parts 1 to upTo, or of all parts (0)
	Reset      func() int                          // offers to restore the level's stub
	Ticks      <-chan time.Time
	BeforeWait func() // called each time the interview waits; tests play the candidate in it

	Readme           Readme
	InScope, Offered int // as in Summary

	sum                Summary
	current, warned    int // index in sum.Parts of the part asked; how many warnings came
	deadline, partFrom time.Time
	seen, typed        string // the .go files as the last run saw them; a question's digits typed
	offered            bool   // the last run matched a known mistake, which make hint-N names
}

// Dir is the level's folder.
func (iv *Interview) Dir() string { return filepath.Join(iv.Root, iv.Level.Dir) }

// ParseBudget reads TIME: a Go duration ("1h15m") or a number of minutes ("30").
func ParseBudget(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if n, nerr := strconv.Atoi(s); err != nil && nerr == nil {
		d, err = time.Duration(n)*time.Minute, nil
	}
	switch {
	case err != nil:
		return 0, fmt.Errorf("TIME=%s: want a length such as 45m, 1h or 30 (minutes)", s)
	case d <= 0:
		return 0, fmt.Errorf("TIME=%s: an interview needs some time", s)
	case d > MaxBudget:
		return 0, fmt.Errorf("TIME=%s: an interview lasts at most %dh", s, int(MaxBudget/time.Hour))
	}
	return d, nil
}

// Prepare reads the question and the scope, and offers Reset for a stub that is not fresh.
func (iv *Interview) Prepare() (err error) {
	l := iv.Level
	if iv.Readme, err = ReadmeParts(iv.Root, l); err == nil {
		err = iv.ReadScope()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(iv.Out, "Checking that level %d is a fresh stub...\n", l.Number)
	g, err := iv.Grade(0)
	if err != nil {
		return err
	}
	iv.sum.FreshStub = true
	if why := notFresh(g); why != "" {
		fmt.Fprintf(iv.Out, "Level %d is not a fresh stub: %s. An interview starts from the stub as shipped; reset puts it back and keeps your files in a backup.\n",
			l.Number, why)
		if before := Snapshot(iv.Dir()); iv.Reset() != 0 || Snapshot(iv.Dir()) == before {
			fmt.Fprintf(iv.Out, "The interview goes on with level %d as it is; the summary says it did not start from a fresh stub.\n", l.Number)
			iv.sum.FreshStub = false
		}
	}
	fmt.Fprintln(iv.Out)
	return nil
}

// ReadScope reads the parts in scope and, without TIME, the clock from the guide.
func (iv *Interview) ReadScope() error {
	g, err := guide.Load(filepath.Join(iv.Root, iv.Level.Dir, guide.FileName))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	parts, d := len(iv.Level.Parts), time.Duration(0)
	iv.InScope, iv.Offered = parts, parts
	if err == nil { // a guide has parts in scope and minutes, or does not load
		d = min(time.Duration(g.Scope.Minutes)*time.Minute, MaxBudget)
		if n := len(g.Scope.In); n <= parts {
			iv.InScope, iv.Offered = n, min(n+len(g.Scope.Stretch), parts)
		}
	}
	iv.Budget = cmp.Or(iv.Budget, d, DefaultBudget)
	return nil
}

// ScopeSentence says which parts the clock is for, or "" if for all of
// them: "The clock is for parts 1 to 3; parts 4 and 5 are stretch, asked
// once those pass; parts 6 to 8 are take-home, not asked here."
func (iv *Interview) ScopeSentence() string {
	ps := iv.Level.Parts
	span := func(ps []levels.Part) string {
		if n := len(ps); n > 1 {
			return fmt.Sprintf("parts %d%s%d", ps[0].Number, map[bool]string{true: " and ", false: " to "}[n == 2], ps[n-1].Number)
		}
		return fmt.Sprintf("part %d", ps[0].Number)
	}
	are := func(ps []levels.Part) string {
		return span(ps) + map[bool]string{true: " is ", false: " are "}[len(ps) == 1]
	}
	if iv.InScope == len(ps) {
		return ""
	}
	s := "The clock is for " + span(ps[:iv.InScope])
	if iv.Offered > iv.InScope {
		s += "; " + are(ps[iv.InScope:iv.Offered]) + "stretch, asked once those pass"
	}
	if len(ps) > iv.Offered {
		s += "; " + are(ps[iv.Offered:]) + "take-home, not asked here"
	}
	return s + ".\n"
}

// Hold runs the clock, the question and the tests, and returns the summary, saved.
func (iv *Interview) Hold() (Summary, error) {
	l, start := iv.Level, iv.Clock.Now()
	iv.seen, iv.deadline, iv.partFrom, iv.warned = Snapshot(iv.Dir()), start.Add(iv.Budget), start, 0
	if iv.Offered == 0 { // a test that builds the interview without Prepare
		iv.InScope, iv.Offered = len(l.Parts), len(l.Parts)
	}
	iv.sum = Summary{Level: l.Number, Title: l.Title, Started: start, BudgetSeconds: grade.Seconds(iv.Budget),
		FreshStub: iv.sum.FreshStub, InScope: iv.InScope, Offered: iv.Offered}
	for i, p := range l.Parts {
		iv.sum.Parts = append(iv.sum.Parts, Part{Number: p.Number, Title: p.Title, Reached: i == 0})
	}
	iv.record(true, nil)

	first := l.Parts[0].Number
	iv.Readme.Withhold = iv.Keys != nil
	fmt.Fprintf(iv.Out, "%s\n", iv.St.Paint("1", fmt.Sprintf("Mock interview: level %d, %s", l.Number, l.Title)))
	fmt.Fprintf(iv.Out, "You have %s, until %s. The question comes one part at a time: the next part comes when this one passes.\n%s",
		grade.Minutes(iv.Budget), iv.deadline.Format("15:04"), iv.ScopeSentence())
	hint, stop := fmt.Sprintf("make hint-%d gives", l.Number), "Ctrl-C ends"
	if iv.Keys != nil {
		hint, stop = fmt.Sprintf("The key h (or make hint-%d) gives", l.Number), "q or Ctrl-C ends"
	}
	fmt.Fprintf(iv.Out, "Edit the files in %s: every save runs the tests of part %d and, once the follow-ups come, of every part before the one asked. %s a hint, and the summary counts it. %s the interview.\n\n",
		l.Dir, first, hint, stop)
	iv.askQuestion()
	end := ""
	if iv.sum.FreshStub {
		fmt.Fprintf(iv.Out, "The clock is running. Save a file to run part %d's tests.\n", first)
		iv.checkClock(true)
	} else {
		// Code already written: the parts it passes go by without a save.
		fmt.Fprintf(iv.Out, "The clock is running. The code in %s is not a fresh stub: its tests run now.\n", l.Dir)
		for asked := -1; end == "" && asked != iv.current; {
			asked = iv.current
			end = iv.testRun()
		}
	}
	for end == "" {
		if iv.BeforeWait != nil {
			iv.BeforeWait()
		}
		select {
		case <-iv.Changes:
			if iv.Saved(iv.Dir(), &iv.seen) {
				end = iv.testRun()
			}
		case <-iv.Ticks:
			end = iv.checkClock(false)
		case sig := <-iv.Interrupt:
			end = stopEnd(sig)
		case k := <-iv.Keys:
			end = iv.key(k)
		}
	}
	return iv.finish(end)
}

// askQuestion poses the intro and the part asked, then the keys on a terminal.
func (iv *Interview) askQuestion() {
	n := iv.sum.Parts[iv.current].Number
	iv.pose("The question", iv.Readme.Intro(n)+"\n\n"+iv.Readme.Section(n), 0)
	if iv.Keys != nil {
		fmt.Fprintln(iv.Out, KeysLine)
	}
}

// pose prints text between rules, with the clarifying questions after from it withholds.
func (iv *Interview) pose(title, text string, from int) {
	iv.heading(title)
	fmt.Fprintf(iv.Out, "%s\n\n", text)
	switch n := iv.asking(); {
	case !iv.Readme.Withhold || n <= from:
	case n == from+1:
		fmt.Fprintf(iv.Out, "Q%d is a clarifying question: type %d to hear its answer. c lists them all.\n\n", n, n)
	default:
		fmt.Fprintf(iv.Out, "Q%d to Q%d are clarifying questions: type a number to hear its answer. c lists them.\n\n", from+1, n)
	}
	iv.heading("")
}

// heading prints a rule across the log, with a title or without.
func (iv *Interview) heading(title string) {
	line := strings.Repeat("-", 72)
	if title != "" {
		line = "--- " + title + " " + strings.Repeat("-", max(3, 67-len(title)))
	}
	fmt.Fprintln(iv.Out, iv.St.Paint("1", line))
}

// notFresh says why a graded level is not a fresh stub, or "" if it is.
func notFresh(g grade.Level) string {
	switch st := g.Status(); st {
	case grade.NotStarted:
		return ""
	case grade.NoBuild, grade.Broken:
		return "its tests say: " + st
	}
	passed, further := 0, 0
	for _, p := range g.Parts {
		passed += p.Passed
		further += len(slices.DeleteFunc(slices.Clone(p.Cases), func(c grade.Case) bool { return c.Fuzz || c.Verdict == protocol.NotImplemented }))
	}
	return fmt.Sprintf("%d of its cases get past \"not implemented\", and %d pass", further, passed)
}

// testRun runs the tests of every part asked so far and moves on when they all pass.
func (iv *Interview) testRun() string {
	now := iv.Clock.Now()
	left := iv.deadline.Sub(now)
	if left <= 0 {
		return EndTimeUp
	}
	p := &iv.sum.Parts[iv.current]
	p.Runs++
	fmt.Fprintln(iv.Out)
	iv.heading(fmt.Sprintf("part %d, run %d, %s left", p.Number, p.Runs, grade.Minutes(left)))
	g, err := iv.Grade(p.Number)
	select {
	case sig := <-iv.Interrupt:
		p.Runs-- // Ctrl-C reached the tests too: this run counts for nothing
		return stopEnd(sig)
	default:
	}
	if err != nil {
		fmt.Fprintf(iv.Out, "The tests could not run: %v\n", err)
		return iv.checkClock(true)
	}
	g.Parts = slices.DeleteFunc(slices.Clone(g.Parts), func(gp grade.Part) bool { return gp.Number > p.Number })
	g.HideMistakes = true // offered as a hint instead, in record
	broke := iv.notePartsRun(g)
	if !grade.Passed(g, 0) {
		grade.Write(iv.Out, g, 0, false)
		if line := askedNow(g, p.Number); broke && line != "" {
			// The report says the part asked waits for the broken one, but it ran.
			fmt.Fprintln(iv.Out, line)
		}
		iv.record(false, mistakeOffer(g))
		return iv.checkClock(true)
	}
	grade.Write(iv.Out, g, p.Number, false)
	// The part is done when the candidate saved, not when go test ended.
	p.Passed, p.FirstRun, p.Seconds = true, p.Runs == 1, grade.Seconds(now.Sub(iv.partFrom))
	in := grade.Minutes(now.Sub(iv.sum.Started))
	if iv.current == iv.Offered-1 {
		iv.sum.ElapsedSeconds = grade.Seconds(now.Sub(iv.sum.Started))
		fmt.Fprintf(iv.Out, "\n%s\n", iv.St.Paint("32", fmt.Sprintf("Part %d passes: %s, %s in, with %s to spare.",
			p.Number, EveryPartPasses(iv.Offered), in, grade.Minutes(left))))
		return EndPassed
	}
	iv.current++
	next := &iv.sum.Parts[iv.current]
	next.Reached, iv.partFrom = true, now
	iv.record(false, nil)
	passes, title := fmt.Sprintf("Part %d passes, %s in.", p.Number, in), "The follow-up"
	if iv.current == iv.InScope {
		passes = fmt.Sprintf("Part %d passes: %s in scope, %s in. What comes next is stretch.", p.Number, EveryPartPasses(iv.InScope), in)
	}
	if iv.current >= iv.InScope {
		title += ", stretch"
	}
	fmt.Fprintf(iv.Out, "\n%s\n\n", iv.St.Paint("32", passes))
	text := fmt.Sprintf("Good. Now: %s.\n\n%s", grade.Lower(next.Title), iv.Readme.Section(next.Number))
	if api := iv.Readme.Api(next.Number); api != "" {
		text += "\n\nThe API grows:\n\n" + api
	}
	iv.pose(title, text, iv.Readme.Asking(p.Number))
	fmt.Fprintf(iv.Out, "Save a file to run the tests of parts %d to %d.\n", iv.sum.Parts[0].Number, next.Number)
	return iv.checkClock(true)
}

// notePartsRun notes each part's races and mistakes, and names each earlier one that broke.
func (iv *Interview) notePartsRun(g grade.Level) (broke bool) {
	for i, gp := range g.Parts[:iv.current+1] {
		p := &iv.sum.Parts[i]
		p.RaceRuns += min(1, len(gp.Races))
		for _, name := range grade.MistakeNames(gp) {
			if !slices.Contains(p.Mistakes, name) {
				p.Mistakes = append(p.Mistakes, name)
			}
		}
		if i == iv.current {
			break
		}
		if p.Passed && !gp.Done {
			p.Regressions++
		}
		p.Passed, p.FirstRun = gp.Done, p.FirstRun && gp.Done
		// A build error or a broken test binary shows in the report.
		if c := slices.IndexFunc(gp.Cases, func(c grade.Case) bool { return c.Verdict != protocol.Pass }); !gp.Done && c >= 0 {
			fmt.Fprintln(iv.Out, iv.St.Paint("31", fmt.Sprintf("Part %d broke: %s", p.Number, caseLine(gp.Cases[c]))))
			broke = true
		}
	}
	if broke {
		fmt.Fprintln(iv.Out)
	}
	return broke
}

// askedNow says how the part asked went, or "" if it is done or did not run.
func askedNow(g grade.Level, part int) string {
	if i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return p.Number == part && p.Ran && !p.Done }); i >= 0 {
		return fmt.Sprintf("Part %d, asked now: %d of %s pass.", part, g.Parts[i].Passed, grade.Plural(g.Parts[i].Total, "case"))
	}
	return ""
}

// caseLine says in one line how a case went wrong: `case "a hit" fails:
// Count(t=4s) = 3, want 5`.
func caseLine(c grade.Case) string {
	what := map[bool]string{true: c.Missing}[c.Verdict == protocol.NotImplemented]
	// The report's first line names the case; what went wrong comes next.
	for _, line := range strings.Split(c.Report, "\n")[1:] {
		if line = strings.TrimSpace(line); what == "" && line != "" && !strings.HasPrefix(line, "t counts from ") {
			what = line
		}
	}
	verb := cmp.Or(map[string]string{protocol.NotImplemented: "is not implemented yet", protocol.Fail: "fails"}[c.Verdict], c.Verdict)
	return strings.TrimSuffix(fmt.Sprintf("case %q %s: %s", c.Name, verb, what), ": ")
}

// checkClock says when the time is up, else warns when a warning is due;
// then, or when status is set, it prints the status line.
func (iv *Interview) checkClock(status bool) string {
	left := iv.deadline.Sub(iv.Clock.Now())
	if left <= 0 {
		return EndTimeUp
	}
	say := time.Duration(0)
	for ; iv.warned < len(warnings) && left <= warnings[iv.warned]; iv.warned++ {
		if warnings[iv.warned] < iv.Budget {
			say = warnings[iv.warned] // the last one crossed is the one to say
		}
	}
	if say != 0 {
		// Seconds cut, as the status line cuts minutes: never "(2m00s)" beside "1 min left".
		fmt.Fprintf(iv.Out, "\n%s\n", iv.St.Paint("33", fmt.Sprintf("%d minutes left (%s).", int(say/time.Minute), grade.Minutes(left.Truncate(time.Second)))))
	}
	if say == 0 && !status {
		return ""
	}
	// Last, for a pane of last lines; whole minutes, rounded down: it never promises more than there is.
	mins := fmt.Sprintf("%d min left", int(left/time.Minute))
	if mins == "0 min left" {
		mins = "under 1 min left"
	}
	if iv.offered {
		mins += " · a known mistake matches your failure: " + map[bool]string{false: fmt.Sprintf("make hint-%d", iv.Level.Number), true: "h"}[iv.Keys != nil] + " names it"
	}
	fmt.Fprintln(iv.Out, iv.St.Paint("36", fmt.Sprintf("[interview: level %d, part %d of %d · %s]",
		iv.Level.Number, iv.sum.Parts[iv.current].Number, iv.Offered, mins)))
	return ""
}

// stopEnd is how a signal ends an interview: Ctrl-C, or the terminal closing.
func stopEnd(sig os.Signal) string {
	return map[bool]string{true: EndClosed, false: EndStopped}[sig == syscall.SIGHUP]
}

// finish ends the interview: the last part's time, the hints, the summary.
func (iv *Interview) finish(end string) (Summary, error) {
	s := &iv.sum
	now := iv.Clock.Now()
	if end == EndTimeUp || now.After(iv.deadline) {
		now = iv.deadline
	}
	if end != EndPassed {
		s.ElapsedSeconds = grade.Seconds(now.Sub(s.Started))
		s.Parts[iv.current].Seconds = grade.Seconds(now.Sub(iv.partFrom))
	}
	s.End = end
	st, err := Load(iv.Root)
	if r := st.Interview; err == nil && r != nil && r.Level == iv.Level.Number {
		for i := range s.Parts {
			p, key := &s.Parts[i], strconv.Itoa(s.Parts[i].Number)
			p.Hints = max(0, r.Hints[key])
			s.Hints += p.Hints
			s.MistakesNamed += max(0, min(r.Named[key], p.Hints))
		}
	}
	if st.Interview = nil; err == nil {
		err = Save(iv.Root, st)
	}
	if err != nil {
		fmt.Fprintf(iv.Out, "(The hints asked for could not be read: %v)\n", err)
	}
	if iv.Keys != nil {
		s.Questions = iv.asking()
	}
	say := map[string]string{EndTimeUp: "\n" + iv.St.Paint("31", "Time is up.") + "\n", EndStopped: "\nInterview stopped.\n", EndClosed: "\nThe terminal closed: interview stopped.\n"}[end]
	fmt.Fprintln(iv.Out, say)
	WriteSummary(iv.Out, *s)
	path, err := SaveSummary(iv.Root, *s)
	if err != nil {
		return *s, fmt.Errorf("could not keep the summary: %w", err)
	}
	fmt.Fprintf(iv.Out, "\nKept in %s.\n", path)
	if len(s.parts("passed")) == len(s.Parts) {
		fmt.Fprintf(iv.Out, "make debrief-level-%d shows the classic mistakes and the approaches.\n", iv.Level.Number)
	}
	return *s, nil
}

// record writes for make hint-N the part asked and the mistake offered, unless named before.
func (iv *Interview) record(fresh bool, offer *MistakeOffer) {
	s, err := Load(iv.Root)
	if err == nil {
		if r := s.Interview; fresh || !r.Running(iv.Level.Number, iv.Clock.Now()) {
			s.Interview = &Record{Level: iv.Level.Number, Until: iv.deadline, Hints: map[string]int{}}
		}
		r := s.Interview
		if offer != nil && slices.Contains(r.NamedLines, offer.Line) {
			offer = nil
		}
		r.Part, r.PID, r.Offer = iv.sum.Parts[iv.current].Number, os.Getpid(), offer
		err = Save(iv.Root, s)
	}
	if iv.offered = err == nil && offer != nil; err != nil && fresh {
		fmt.Fprintf(iv.Out, "(Hints will not be counted: %v)\n", err)
	}
}

// EveryPartPasses is "both parts pass" or "all 3 parts pass".
func EveryPartPasses(n int) string {
	return cmp.Or(map[int]string{2: "both parts pass"}[n], fmt.Sprintf("all %d parts pass", n))
}

// key does what a key typed asks; Ctrl-C and q come as a signal instead.
func (iv *Interview) key(k byte) string {
	typed, digit := iv.typed+string(k), '0' <= k && k <= '9'
	iv.typed = ""
	switch n, _ := strconv.Atoi(typed); {
	case digit && n*10 <= iv.asking(): // another digit could make it longer: wait for it
		iv.typed = typed
		fmt.Fprintf(iv.Out, "Q%s: another digit, or Enter.\n", typed)
		return ""
	case digit:
		iv.clarify(typed)
	case (k == '\r' || k == '\n') && len(typed) > 1:
		iv.clarify(typed[:len(typed)-1])
	case k == 'h' && iv.Hint != nil:
		fmt.Fprintln(iv.Out)
		iv.Hint()
	case k == 'c':
		iv.clarify("")
	case k == 'r':
		iv.seen = Snapshot(iv.Dir())
		return iv.testRun()
	case k == 'p':
		fmt.Fprintln(iv.Out)
		iv.askQuestion()
	case 'a' <= k && k <= 'z' && k != 'h' && k != 't' || k == '?':
		fmt.Fprintln(iv.Out, KeysLine)
	case k != 'h' && k != 't':
		return "" // Enter alone, or the rest of an arrow key's sequence
	}
	return iv.checkClock(true)
}

// asking is how many clarifying questions the parts asked so far have.
func (iv *Interview) asking() int {
	return iv.Readme.Asking(iv.sum.Parts[iv.current].Number)
}

// clarify answers question number typed, noted in the summary, or lists them all.
func (iv *Interview) clarify(typed string) {
	qs := iv.Readme.Clarifications[:iv.asking()]
	asked := func(q string) bool {
		return slices.ContainsFunc(iv.sum.Asked, func(a Asked) bool { return a.Question == q })
	}
	if n, _ := strconv.Atoi(typed); typed != "" && (n < 1 || n > len(qs)) {
		fmt.Fprintf(iv.Out, "There is no question %s: c lists them.\n", typed)
	} else if c, p := qs[max(n, 1)-1:], iv.sum.Parts[iv.current]; typed != "" {
		fmt.Fprintln(iv.Out)
		iv.heading(fmt.Sprintf("Q%d. %s", n, c[0].Question))
		fmt.Fprintf(iv.Out, "%s\n\n", c[0].Answer)
		if !asked(c[0].Question) {
			iv.sum.Asked = append(iv.sum.Asked, Asked{Question: c[0].Question, Part: p.Number, Runs: p.Runs})
		}
	} else {
		fmt.Fprintln(iv.Out)
		iv.heading("Clarifying questions")
		for i, c := range qs {
			if i == 0 || c.Topic != qs[i-1].Topic {
				fmt.Fprintln(iv.Out, c.Topic)
			}
			fmt.Fprintf(iv.Out, "  Q%d. %s%s\n", i+1, c.Question, map[bool]string{true: " (asked)"}[asked(c.Question)])
		}
		fmt.Fprintln(iv.Out, map[bool]string{true: "The README marks no clarifying question for this part.",
			false: "Type a question's number to hear its answer; the summary notes the questions asked."}[len(qs) == 0])
	}
}

// mistakeOffer is the known mistake the first part not done matches, to offer as a hint.
func mistakeOffer(g grade.Level) *MistakeOffer {
	if i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return !p.Done }); i >= 0 && grade.MistakeLine(g.Parts[i]) != "" {
		return &MistakeOffer{Part: g.Parts[i].Number, Line: grade.MistakeLine(g.Parts[i])}
	}
	return nil
}

// NameOfferedMistake names the offered mistake as a hint of its part, and reports whether it did.
func NameOfferedMistake(l levels.Level, s *State, asked int, stdout io.Writer) bool {
	r, o := s.Interview, s.Interview.Offer
	if o == nil || (asked != 0 && asked != o.Part) {
		return false
	}
	key := strconv.Itoa(o.Part)
	r.Hints[key]++
	r.Named[key]++
	r.NamedLines = append(r.NamedLines, o.Line)
	r.Offer = nil
	fmt.Fprintf(stdout, "Level %d, part %d: the known mistake your failing cases match\n\n%s\n", l.Number, o.Part, o.Line)
	fmt.Fprintf(stdout, "\nYou are in a mock interview of level %d: this hint counts in its summary. make hint-%d gives the part's own hints.\n", l.Number, l.Number)
	return true
}
