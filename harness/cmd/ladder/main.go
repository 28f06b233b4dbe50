// Command ladder is the tool behind the make targets (make test-level-N is
// ladder test N), run from the repository's top folder. Its usage text,
// which make help prints too, is the commands table.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// A command is one line of the usage text: ladder help prints its own
// words, make help its make target. A line with neither heads a section.
type command struct {
	ladder string        // the ladder command and its arguments; "" for a make target alone
	make   string        // the make target that runs it; "" for a ladder command alone
	what   string        // what it does, in a few words
	run    func(c *call) // the ladder command, which exits 0 unless it ends early (see call)
}

// commands is the usage text, set in init as its commands refer back to it.
var commands []command

func init() {
	commands = []command{
		{what: fmt.Sprintf("For learners (N is a level, %d to %d):", levels.All[0].Number, levels.All[len(levels.All)-1].Number)},
		{"progress [--json]", "make progress", "the ladder: what you have done, and what comes next", cmdProgress},
		{"test [--part K] [--all] N", "make test-level-N [PART=K] [ALL=1] [REDIS=1]", "level N's tests against your code in ladder/: one part, or every case in full (REDIS=1: on a real redis-server too)", cmdTest},
		{"watch N", "make watch-level-N", "rerun level N's tests whenever you save a file", cmdWatch},
		{"hint [--part K] N", "make hint-N [PART=K]", "the next hint for the part of level N you are on, or for part K", cmdHint},
		{"hints N", "make hints-N", "every hint of level N seen so far", cmdHints},
		{"fuzz [--time 30s] N", "make fuzz-level-N [FUZZTIME=30s]", "fuzz your level N against its model", cmdFuzz},
		{"bench [--count 6] [--benchtime 100ms] N", "make bench-level-N", "your benchmarks beside the reference's, taking turns", cmdBench},
		{"reset N", "make reset-level-N [FORCE=1]", "put level N's stub back as it was, keeping a backup (FORCE=1: no question)", cmdReset},
		{make: "make plot-level-N [REF=1]", what: "pictures of your level N in plots/ (REF=1: the reference's)"},
		{"interview [--time 45m] N", "make interview-level-N [TIME=45m]", "a mock interview: one part at a time, on the clock", cmdInterview},
		{"debrief N", "make debrief-level-N", "after a level: the classic mistakes and the approaches", cmdDebrief},
		{what: "For instructors:"},
		{"student-copy DEST", "make student-copy DEST=dir", "the ladder without solutions/, to hand out", cmdStudentCopy},
		{"class-report [--format csv|html] DIR...", `make class-report DIRS="a b c" [FORMAT=csv|html]`, "every student's progress in one table, and why each is stuck; JOBS=, TIMEOUT=, SEED=, NO_SANDBOX=1, CLEAN=1 as --help says", cmdClassReport},
		{"classroom [--force] [--instructor-repo OWNER/NAME] [--instructor-ref COMMIT] [FILE]", "make classroom [FORCE=1] [INSTRUCTOR_REPO=owner/name] [INSTRUCTOR_REF=commit]", "a GitHub Classroom workflow that grades as the class report does, one graded step per part, in .github/workflows/classroom.yml", cmdClassroom},
		{make: "make test-plots", what: "the pictures open in headless Chromium (installs it)"},
		{what: "For the repository:"},
		{make: "make test", what: "everything that must always pass: about a minute on two cores, more on a fresh clone, which compiles everything first"},
		{make: "make test-go", what: "the harness's quick tests, and each spec's quick self-checks"},
		{make: "make test-solutions", what: "every reference against its spec"},
		{make: "make test-mutants", what: "each spec's whole self-check: every known mistake caught by its part (in make ci)"},
		{make: "make test-race", what: "every reference under the race detector (in make ci)"},
		{"check-stubs", "make test-stubs", "the untouched stubs compile, hold nothing but stubs, and every case fails as not implemented", cmdCheckStubs},
		{make: "make ci", what: "what CI runs after make test"},
		{make: "make test-e2e", what: "the ladder command end to end, in copies of the repository, and every probe of the grader"},
		{make: "make test-bench", what: "every benchmark once, so that none rots"},
		{make: "make vet", what: "gofmt and go vet"},
		{make: "make check", what: "gofmt, go vet and staticcheck, and go vet for Windows and macOS"},
		{make: "make test-redis", what: "level 8's Redis reference against a real redis-server (installs it)"},
		{make: "make peers-redis", what: "the Redis form beside go-redis/redis_rate on a real redis-server"},
		{make: "make peers", what: "the references beside production Go limiters (slow, several minutes)"},
		{make: "make peers-quick", what: "make peers in a few seconds, to check it runs"},
		{"help [--make]", "make help", "this list", cmdHelp},
	}
}

// writeUsage writes the usage text, with the make targets if asMake.
func writeUsage(w io.Writer, asMake bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, map[bool]string{false: "usage: go run ./harness/cmd/ladder <command>, from the repository's top folder\n",
		true: fmt.Sprintf("rateladder: %d katas on rolling windows and rate limiters.\n", len(levels.All))}[asMake])
	for _, c := range commands {
		// A line without a tab ends a column: each section aligns its own.
		if name := map[bool]string{false: c.ladder, true: c.make}[asMake]; c.ladder == "" && c.make == "" {
			fmt.Fprintf(tw, "\n%s\n", c.what)
		} else if name != "" && c.what != "" {
			fmt.Fprintf(tw, "  %s\t%s\n", name, c.what)
		}
	}
	tw.Flush()
}

// find returns the ladder command name, and the usage line it prints when
// its arguments are wrong: "usage: ladder reset N   (make reset-level-N)".
func find(name string) (command, string) {
	for _, c := range commands {
		if first, _, _ := strings.Cut(c.ladder, " "); first == name && c.run != nil {
			return c, strings.TrimSuffix("usage: ladder "+c.ladder+"   ("+c.make+")", "   ()")
		}
	}
	return command{}, ""
}

func main() {
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(runAt(root, os.Args[1:], os.Stdout, os.Stderr))
}

// A call is one run of a command in the repository's top folder, root. It
// ends early with fail, check or a panic of an exit, which runAt recovers,
// so that commands read as the steps they take.
type call struct {
	root, usage    string
	args           []string
	fs             *flag.FlagSet
	stdout, stderr io.Writer
}

type exit int // the panic that ends a command with its code (see call)

// runAt runs the command args names in root, and returns its exit code.
func runAt(root string, args []string, stdout, stderr io.Writer) (code int) {
	if len(args) == 0 {
		writeUsage(stderr, false)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" {
		args[0] = "help"
	}
	cmd, usage := find(args[0])
	if cmd.run == nil {
		fmt.Fprintf(stderr, "ladder: unknown command %q\n", args[0])
		writeUsage(stderr, false)
		return 2
	}
	c := &call{root: root, usage: usage, args: args[1:], fs: flag.NewFlagSet(args[0], flag.ContinueOnError), stdout: stdout, stderr: stderr}
	c.fs.SetOutput(stderr)
	defer func() {
		r := recover()
		if e, ok := r.(exit); ok {
			code = int(e)
		} else if r != nil {
			panic(r)
		}
	}()
	cmd.run(c)
	return 0
}

// fail prints a line to stderr and ends the command with code.
func (c *call) fail(code int, format string, a ...any) {
	fmt.Fprintf(c.stderr, format+"\n", a...)
	panic(exit(code))
}

// check ends the command with code 1 if err is not nil, printed after prefix.
func (c *call) check(prefix string, err error) {
	if err != nil {
		c.fail(1, "%s", strings.TrimPrefix(prefix+" "+err.Error(), " "))
	}
}

// parse parses the flags before or after the other arguments ("test 3
// --part 2", "test --part 2 3"), and returns those: lo to hi, or the usage
// (exit 0 after --help).
func (c *call) parse(lo, hi int) []string {
	var pos []string
	for args := c.args; ; args = c.fs.Args()[1:] {
		if err := c.fs.Parse(args); err != nil || c.fs.NArg() == 0 {
			if err != nil || len(pos) < lo || len(pos) > hi {
				c.fail(map[bool]int{true: 0, false: 2}[errors.Is(err, flag.ErrHelp)], "%s", c.usage)
			}
			return pos
		}
		pos = append(pos, c.fs.Arg(0))
	}
}

// level parses a command that takes one level, and its --part if not nil.
func (c *call) level(part *int) levels.Level {
	l, err := levels.Find(c.parse(1, 1)[0])
	if err != nil {
		c.fail(2, "%v", err)
	}
	if part != nil && *part != 0 {
		if _, ok := l.Part(*part); !ok {
			c.fail(2, "level %d has no part %d; its parts are 1 to %d", l.Number, *part, len(l.Parts))
		}
	}
	return l
}

// cmdHelp prints the usage text; --make as make targets, for make help.
func cmdHelp(c *call) {
	asMake := c.fs.Bool("make", false, "the make targets")
	c.parse(0, 0)
	writeUsage(c.stdout, *asMake)
}

// cmdTest is ladder test N: the one command that grades a level.
func cmdTest(c *call) {
	all := c.fs.Bool("all", false, "show every case that is not passing, in every part")
	part := c.fs.Int("part", 0, "test only this part")
	l := c.level(part)
	g, err := grade.TestLevel(c.root, l, *part)
	c.check("ladder test:", err)
	grade.Write(c.stdout, g, *part, *all)
	if !grade.Passed(g, *part) {
		panic(exit(1))
	}
}

// cmdProgress prints the ladder, and exits 0: failing tests are what a
// ladder in progress looks like.
func cmdProgress(c *call) {
	asJSON := c.fs.Bool("json", false, "write the ladder as JSON, for tools")
	c.parse(0, 0)
	grades, err := grade.Levels(context.Background(), c.root, levels.All, grade.Plain)
	c.check("ladder progress:", err)
	rep := grade.Report(grades)
	interview.AddInterviews(c.root, &rep)
	if *asJSON {
		c.check("", grade.WriteJSON(c.stdout, rep))
	} else {
		grade.WriteText(c.stdout, rep, grade.Style{Color: useColor(c.stdout)})
	}
}

// useColor follows https://no-color.org: colour on a terminal, without NO_COLOR.
func useColor(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(f.Fd()))
}

// cmdCheckStubs is make test-stubs: the untouched stubs compile, and every
// case, fuzz seeds included, ends as "not implemented".
func cmdCheckStubs(c *call) {
	c.parse(0, 0)
	problems, err := grade.CheckStubs(context.Background(), c.root)
	c.check("ladder check-stubs:", err)
	if len(problems) > 0 {
		fmt.Fprintf(c.stdout, "stub check: %s\n", strings.Join(problems, "\nstub check: "))
		panic(exit(1))
	}
	fmt.Fprintf(c.stdout, "stub check: the %d levels' stubs compile, and every case fails as not implemented\n", len(levels.All))
}

// hintHeading heads one hint wherever it is shown.
func hintHeading(l levels.Level, p interview.HintPart, i int) string {
	return fmt.Sprintf("Level %d, part %d, hint %d of %d", l.Number, p.Number, i, len(p.Hints))
}

// cmdHint shows and remembers the next hint of the part the learner is on,
// or of --part. In a mock interview the hints start again, the README's
// guidance after them, and each counts in the summary, in its own part.
func cmdHint(c *call) {
	asked := c.fs.Int("part", 0, "a hint of this part, not of the part you are on")
	l := c.level(asked)
	parts, s := c.hints(l)
	defer func() { c.check("ladder hint: could not remember this hint:", interview.Save(c.root, s)) }()
	iv := s.Interview
	interviewing := iv.Running(l.Number, time.Now())
	if interviewing && interview.NameOfferedMistake(l, &s, *asked, c.stdout) {
		return
	}
	part := *asked
	if part == 0 && interviewing {
		part = iv.Part
	} else if part == 0 {
		part = c.partOn(l, &s)
	}
	if part == 0 {
		fmt.Fprintf(c.stdout, "Every part of level %d is done. make hint-%d PART=K shows part K's hints.\n", l.Number, l.Number)
		return
	}
	p, key, pkey := parts[part-1], strconv.Itoa(l.Number), strconv.Itoa(part)
	seen := s.HintsSeen[key][pkey]
	if interviewing {
		p = interview.WithGuidance(c.root, l, p)
		seen = max(0, iv.Hints[pkey]-iv.Named[pkey]) // a named mistake is no hint of HINTS.md
	}
	if seen >= len(p.Hints) {
		next := fmt.Sprintf("read part %d of %s/README.md again, and make test-level-%d PART=%d shows the first case that fails.", part, l.Dir, l.Number, part)
		if _, err := os.Stat(filepath.Join(c.root, l.SolutionDir())); err == nil { // a student copy has none
			next = l.SolutionDir() + " has the reference, to read beside your code."
		}
		fmt.Fprintf(c.stdout, "You have seen all %s of level %d, part %d. make hints-%d shows them again; %s\n",
			grade.Plural(len(p.Hints), "hint"), l.Number, part, l.Number, next)
		return
	}
	fmt.Fprintf(c.stdout, "%s\n\n%s\n", hintHeading(l, p, seen+1), p.Hints[seen])
	if s.HintsSeen[key] == nil {
		s.HintsSeen[key] = map[string]int{}
	}
	// Practice mode counts the hints of HINTS.md alone.
	s.HintsSeen[key][pkey] = max(s.HintsSeen[key][pkey], min(seen+1, len(parts[part-1].Hints)))
	if interviewing {
		iv.Hints[pkey]++
		fmt.Fprintf(c.stdout, "\nYou are in a mock interview of level %d: this hint counts in its summary.\n", l.Number)
	}
	if again := strings.TrimSuffix(fmt.Sprintf(" PART=%d", *asked), " PART=0"); seen+1 < len(p.Hints) {
		fmt.Fprintf(c.stdout, "\nStill stuck? make hint-%d%s shows the next one.\n", l.Number, again)
	}
}

// partOn returns the first part not done, 0 if none. Grading takes seconds,
// so the answer is kept in the state for the level's .go files as they are.
func (c *call) partOn(l levels.Level, s *interview.State) int {
	key, h := strconv.Itoa(l.Number), fnv.New128a() // a cache key needs no cryptographic hash
	io.WriteString(h, interview.Snapshot(filepath.Join(c.root, l.Dir)))
	last, hash := s.OnPart[key], fmt.Sprintf("%x", h.Sum(nil))
	if last.Files == hash {
		return last.Part
	}
	fmt.Fprintf(c.stdout, "Checking which part of level %d you are on…\n", l.Number)
	g, err := grade.TestLevel(c.root, l, 0)
	c.check("ladder hint:", err)
	part := partInProgress(g)
	if g.BuildError != "" || len(g.Broken) > 0 {
		return cmp.Or(last.Part, part) // the grade says nothing of the parts: keep to the last answer
	}
	s.OnPart[key] = interview.PartCache{Files: hash, Part: part}
	return part
}

// partInProgress is the first part of a graded level not done, or 0.
func partInProgress(g grade.Level) int {
	if i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return !p.Done }); i >= 0 {
		return g.Parts[i].Number
	}
	return 0
}

// cmdHints shows again every hint seen so far, part by part.
func cmdHints(c *call) {
	l := c.level(nil)
	parts, s := c.hints(l)
	var shown, total int
	var text strings.Builder
	for _, p := range parts {
		n := s.HintsSeen[strconv.Itoa(l.Number)][strconv.Itoa(p.Number)]
		for i, h := range p.Hints[:n] {
			fmt.Fprintf(&text, "\n%s\n\n%s\n", hintHeading(l, p, i+1), h)
		}
		shown, total = shown+n, total+len(p.Hints)
	}
	if shown == 0 {
		fmt.Fprintf(c.stdout, "You have not asked for a hint on level %d yet. make hint-%d shows the first of the part you are on.\n", l.Number, l.Number)
		return
	}
	fmt.Fprintf(c.stdout, "Level %d: the %d of %d hints you have seen\n%s", l.Number, shown, total, &text)
}

// hints reads a level's hints and the state.
func (c *call) hints(l levels.Level) ([]interview.HintPart, interview.State) {
	parts, err := interview.ReadHints(c.root, l)
	s, serr := interview.Load(c.root)
	c.check("", cmp.Or(err, serr))
	return parts, s
}

// stdin is where questions are answered; tests replace it.
var stdin io.Reader = os.Stdin

// cmdReset puts a level back as shipped.ResetPlan plans, keeping a backup.
func cmdReset(c *call) {
	l := c.level(nil)
	plan, err := shipped.ResetPlan(c.root, l)
	c.check("", err)
	short := plan.Shipped.Commit[:min(7, len(plan.Shipped.Commit))]
	if len(plan.Restore) == 0 && len(plan.Move) == 0 {
		fmt.Fprintf(c.stdout, "Level %d is already as shipped (commit %s); nothing to restore.\n", l.Number, short)
		return
	}
	fmt.Fprintf(c.stdout, "This puts level %d back as shipped (commit %s):\n", l.Number, short)
	for _, p := range plan.Restore {
		fmt.Fprintf(c.stdout, "  restores %s\n", p)
	}
	for _, p := range plan.Move {
		fmt.Fprintf(c.stdout, "  moves    %s (not part of the level as shipped)\n", p)
	}
	backups := filepath.Join(interview.StateDir, "backups")
	fmt.Fprintf(c.stdout, "Your files go to a new folder in %s/.\n", backups)
	if os.Getenv("FORCE") != "1" {
		fmt.Fprint(c.stdout, "Go ahead? [y/N] ")
		if line, _ := bufio.NewReader(stdin).ReadString('\n'); !slices.Contains([]string{"y", "yes"}, strings.ToLower(strings.TrimSpace(line))) {
			fmt.Fprintln(c.stdout, "Nothing changed.")
			return
		}
	}
	// A new folder named after the time, and unique within it.
	os.MkdirAll(filepath.Join(c.root, backups), 0o755) // MkdirTemp says if it fails
	backup, err := os.MkdirTemp(filepath.Join(c.root, backups), fmt.Sprintf("level-%d-%s-*", l.Number, time.Now().Format("20060102-150405")))
	c.check("could not make a backup folder, so nothing changed:", err)
	backup, _ = filepath.Rel(c.root, backup)
	// Move first, write after: whatever fails, the learner's files are safe.
	for _, p := range append(slices.Clone(plan.Restore), plan.Move...) {
		if _, err := os.Lstat(filepath.Join(c.root, p)); errors.Is(err, os.ErrNotExist) {
			continue // a stub the learner deleted
		}
		dst := filepath.Join(c.root, backup, p)
		c.check("could not move "+p+" into the backup:", cmp.Or(os.MkdirAll(filepath.Dir(dst), 0o755), os.Rename(filepath.Join(c.root, p), dst)))
		for d := filepath.Dir(p); len(d) > len(l.Dir); d = filepath.Dir(d) {
			os.Remove(filepath.Join(c.root, d)) // fails, as it should, on a folder with files
		}
	}
	for _, p := range plan.Restore {
		dst := filepath.Join(c.root, p)
		c.check("", cmp.Or(os.MkdirAll(filepath.Dir(dst), 0o755), os.WriteFile(dst, plan.Shipped.Files[p], 0o644)))
		fmt.Fprintf(c.stdout, "restored %s\n", p)
	}
	fmt.Fprintf(c.stdout, "Your files are in %s/.\nTo get them back: cp -R %s/. .\n", backup, backup)
}

// cmdDebrief shows what the interviewer's guide says of a level once done.
func cmdDebrief(c *call) {
	l := c.level(nil)
	fmt.Fprintf(c.stdout, "Checking level %d first...\n\n", l.Number)
	g, err := grade.TestLevel(c.root, l, 0)
	c.check("ladder debrief:", err)
	c.check("ladder debrief:", instructor.WriteDebrief(c.stdout, c.root, g, grade.Style{Color: useColor(c.stdout)}))
}

// cmdWatch reruns a level's tests each time one of its .go files changes.
// It polls: a look at a few dozen files works on every system and drive.
func cmdWatch(c *call) {
	l := c.level(nil)
	t, stop := c.terminal(l, os.Interrupt)
	defer stop()
	watch(t, c.root, l, useColor(c.stdout), func() (grade.Level, error) { return grade.TestLevel(c.root, l, 0) })
}

// terminal watches level l's files and sigs, and on a terminal reads keys in
// raw mode, which stop ends. Without a terminal, t.Keys is nil.
func (c *call) terminal(l levels.Level, sigs ...os.Signal) (t interview.Terminal, stop func()) {
	changes, stopPolling := interview.PollChanges(filepath.Join(c.root, l.Dir), 500*time.Millisecond)
	interrupt := make(chan os.Signal, 1)
	t = interview.Terminal{Out: c.stdout, ErrOut: c.stderr, Interrupt: interrupt, Changes: changes, Settle: 150 * time.Millisecond}
	t.Hint = func() { runAt(c.root, []string{"hint", strconv.Itoa(l.Number)}, t.Out, t.ErrOut) }
	signal.Notify(interrupt, sigs...)
	unwatch := func() { stopPolling(); signal.Stop(interrupt) }
	in := int(os.Stdin.Fd())
	if f, ok := c.stdout.(*os.File); !ok || !term.IsTerminal(in) || !term.IsTerminal(int(f.Fd())) {
		return t, unwatch
	}
	old, err := term.MakeRaw(in)
	if err != nil {
		return t, unwatch
	}
	// A kill must not leave the terminal raw: SIGTERM ends it as Ctrl-C does.
	signal.Notify(interrupt, syscall.SIGTERM)
	keys := make(chan byte, 16)
	go readKeys(keys, interrupt)
	// In raw mode "\n" moves down a line but not back to its start.
	t.Keys, t.Out, t.ErrOut = keys, crlf(c.stdout), crlf(c.stderr)
	return t, func() { term.Restore(in, old); unwatch() }
}

// watchKeys reminds the learner of the keys of watch mode.
const watchKeys = "Keys: h hint · r run now · p the part you are on · q stop"

// watch tests level l, then again on each save or r, until Ctrl-C, and
// clears the screen before each run if clear.
func watch(t interview.Terminal, root string, l levels.Level, clear bool, test func() (grade.Level, error)) {
	dir := filepath.Join(root, l.Dir)
	seen := interview.Snapshot(dir)
	for why := "started"; ; {
		if clear {
			fmt.Fprint(t.Out, "\x1b[H\x1b[2J")
		}
		g, err := test()
		part, status := 0, "the tests could not run"
		if err != nil {
			fmt.Fprintln(t.ErrOut, err)
		} else {
			grade.Write(t.Out, g, 0, false)
			part, status = partInProgress(g), watchStatus(g)
		}
		// The status line last, where a pane that shows only the last lines still shows it.
		status = fmt.Sprintf("[watch: level %d · %s · %s %s]", l.Number, status, why, time.Now().Format("15:04:05"))
		fmt.Fprintf(t.Out, "\nWatching %s for changes. %s\n%s\n", l.Dir, map[bool]string{true: "Ctrl-C stops.", false: watchKeys}[t.Keys == nil], status)
		for why = ""; why == ""; {
			select {
			case <-t.Changes:
				if t.Saved(dir, &seen) {
					why = "saved"
				}
			case <-t.Interrupt:
				return
			case k := <-t.Keys:
				switch {
				case k == 'r':
					why = "rerun"
					continue
				case k == 'h':
					fmt.Fprintln(t.Out)
					t.Hint()
				case k == 'p':
					if r, err := interview.ReadmeParts(root, l); err != nil {
						fmt.Fprintln(t.ErrOut, err)
					} else if part == 0 {
						fmt.Fprintln(t.Out, "\nNo part is in progress: the last run found every part done, or could not tell.")
					} else {
						fmt.Fprintf(t.Out, "\n%s\n\n(%s/README.md has the rest.)\n", r.Section(part), l.Dir)
					}
				case 'a' <= k && k <= 'z' || k == '?':
					fmt.Fprintln(t.Out, watchKeys)
				default:
					continue // the rest of an arrow key's sequence, say
				}
				fmt.Fprintln(t.Out, status)
			}
		}
	}
}

// watchStatus says where a graded level stands: "part 2 of 3 in progress".
func watchStatus(g grade.Level) string {
	i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return !p.Done })
	switch st := g.Status(); {
	case st == grade.NoBuild || st == grade.Broken:
		return st
	case i < 0:
		return fmt.Sprintf("all %d parts done", len(g.Parts))
	case len(g.Parts[i].Blocked) > 0:
		return fmt.Sprintf("part %d of %d did not finish", g.Parts[i].Number, len(g.Parts))
	}
	return fmt.Sprintf("part %d of %d in progress", g.Parts[i].Number, len(g.Parts))
}

// cmdInterview is ladder interview [--time 45m] N.
func cmdInterview(c *call) {
	var budget time.Duration // 0: the guide's scope says, in Prepare
	c.fs.Func("time", "the interview's length, such as 45m or 30 (minutes); 45m when not given", func(s string) (err error) {
		budget, err = interview.ParseBudget(s)
		return err
	})
	l := c.level(nil)
	iv := &interview.Interview{
		Terminal: interview.Terminal{Out: c.stdout}, Root: c.root, Level: l, Budget: budget, Clock: clock.System{},
		St:    grade.Style{Color: useColor(c.stdout)},
		Grade: func(upTo int) (grade.Level, error) { return gradeUpTo(c.root, l, upTo) },
		// Reset keeps the learner's files in a backup, and asks first.
		Reset: func() int { return runAt(c.root, []string{"reset", strconv.Itoa(l.Number)}, c.stdout, c.stderr) },
	}
	c.check("ladder interview:", iv.Prepare())
	// Ctrl-C ends it with a summary; so does a closed terminal (SIGHUP).
	t, stop := c.terminal(l, os.Interrupt, syscall.SIGHUP)
	defer stop()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	iv.Terminal, iv.Ticks, c.stderr = t, ticker.C, t.ErrOut
	_, err := iv.Hold()
	c.check("ladder interview:", err)
}

// gradeUpTo grades parts 1 to upTo (0: all), the parts the candidate has seen.
func gradeUpTo(root string, l levels.Level, upTo int) (grade.Level, error) {
	return grade.Through(context.Background(), root, l, cmp.Or(upTo, l.Parts[len(l.Parts)-1].Number))
}

// readKeys passes on the keys typed until stdin fails. Ctrl-C and q
// interrupt instead: the process sends itself SIGINT, which a test run
// under way hears too, or where it cannot (Windows) tells the loop alone.
func readKeys(keys chan<- byte, interrupt chan<- os.Signal) {
	self, _ := os.FindProcess(os.Getpid()) // never fails, not even on Windows
	for k := make([]byte, 1); ; {
		if _, err := io.ReadFull(os.Stdin, k); err != nil {
			return
		}
		if k[0] != 3 && k[0] != 'q' { // 3 is Ctrl-C
			offer(keys, k[0]) // keys typed faster than they are done are dropped
		} else if self.Signal(os.Interrupt) != nil {
			offer(interrupt, os.Signal(os.Interrupt))
		}
	}
}

// offer sends v on ch if it has room.
func offer[T any](ch chan<- T, v T) {
	select {
	case ch <- v:
	default:
	}
}

// crlf writes to w with "\r\n" line ends.
func crlf(w io.Writer) io.Writer {
	return term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{nil, w}, "")
}

// benchstat runs at a pinned version: nothing to install, the same tables.
const benchstat = "golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

// learnerCmd runs go in dir, in the environment the learner's code runs in.
func learnerCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(grade.GoTool(), args...)
	cmd.Dir, cmd.Env = dir, grade.LearnerEnv()
	return cmd
}

// cmdBench shows a level's benchmarks on the learner's code and on the
// reference with benchstat. The sides take turns, so that a passing load
// falls on both alike.
func cmdBench(c *call) {
	count := c.fs.Int("count", 6, "runs of each benchmark; benchstat wants six or more")
	benchTime := c.fs.String("benchtime", "100ms", "go test -benchtime for each run")
	l := c.level(nil)
	tmp, err := os.MkdirTemp("", "ladder-bench-")
	c.check("", err)
	defer os.RemoveAll(tmp)
	names, dirs := []string{"yours"}, []string{l.Dir}
	if _, err := os.Stat(filepath.Join(c.root, l.SolutionDir())); err == nil {
		names, dirs = []string{"reference", "yours"}, []string{l.SolutionDir(), l.Dir}
	} else {
		fmt.Fprintf(c.stdout, "There is no %s here (a workshop copy?), so these are your numbers alone.\n", l.SolutionDir())
	}
	outs := make([]bytes.Buffer, len(dirs))
	fmt.Fprintf(c.stdout, "benchmarking %d runs of %s each, taking turns...\n", *count, *benchTime)
	for round := range *count {
		for i, dir := range dirs {
			// -p 1: one package's benchmarks at a time.
			out, err := learnerCmd(c.root, "test", "-p", "1", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1", "-benchtime", *benchTime, "./"+dir+"/...").CombinedOutput()
			if lines := failureLine.FindAllString(string(out), 8); err != nil && round == 0 {
				fmt.Fprintf(c.stdout, "%s: some benchmarks failed:\n%s\n", dir, grade.Indent(strings.Join(lines, "\n"), "  "))
			}
			// One pkg: line, so that benchstat puts the two sides side by side.
			outs[i].WriteString(pkgLine.ReplaceAllString(string(out), fmt.Sprintf("pkg: level %d", l.Number)))
		}
	}
	args := []string{"run", benchstat}
	for i := range dirs {
		if bytes.Contains(outs[i].Bytes(), []byte("\nBenchmark")) {
			file := filepath.Join(tmp, names[i])
			c.check("", os.WriteFile(file, outs[i].Bytes(), 0o644))
			args = append(args, names[i]+"="+file)
		}
	}
	if len(args) == 2 {
		fmt.Fprintln(c.stdout, "No benchmark ran.")
		panic(exit(1))
	}
	cmd := exec.Command(grade.GoTool(), args...)
	cmd.Dir, cmd.Stderr = c.root, c.stderr
	table, err := cmd.Output()
	c.check("benchstat:", err)
	fmt.Fprintf(c.stdout, "\n%s\nsec/op and B/op: lower is better; the column after yours is the change from the reference.\n", table)
	if rows := benchRows(l.Number); len(rows) > 0 {
		fmt.Fprintf(c.stdout, "\nThe rows (the clock starts on 3 March 2025, not at the epoch):\n  %s\n", strings.Join(rows, "\n  "))
	}
}

var (
	pkgLine = regexp.MustCompile(`(?m)^pkg: .*$`)
	// failureLine is a line of go test's output that says what failed.
	failureLine = regexp.MustCompile(`(?m)^\s*(--- FAIL|panic:|.*not implemented|.*\[build failed\]|.*\.go:).*$`)
)

//go:embed benchrows.txt
var benchRowsText string

// benchRows explains each row of level n's benchmarks: "Name: what it
// means", Name a benchmark name's end or a metric's unit.
func benchRows(n int) []string {
	var rows []string
	for _, line := range strings.Split(benchRowsText, "\n") {
		if row, ok := strings.CutPrefix(line, strconv.Itoa(n)+" "); ok {
			rows = append(rows, row)
		}
	}
	return rows
}

// cmdFuzz runs a level's fuzz targets for a time; go test keeps what fails
// in testdata/fuzz, which make test-level-N runs. A later module (level 8's
// Redis form) is fuzzed once the parts before it pass.
func cmdFuzz(c *call) {
	fuzzTime := c.fs.Duration("time", 30*time.Second, "how long to fuzz each target")
	l := c.level(nil)
	found, ran, saved := false, 0, []string(nil)
	for _, m := range l.Modules {
		if m.FirstPart > 1 {
			fmt.Fprintf(c.stdout, "Checking which parts of level %d pass, to know whether to fuzz %s too…\n", l.Number, m.Dir)
			g, err := grade.TestLevel(c.root, l, 0)
			c.check("", err)
			if p := partInProgress(g); p != 0 && p < m.FirstPart {
				fmt.Fprintf(c.stdout, "Not fuzzing %s: its parts start at part %d, and the parts before it do not all pass yet.\n", m.Dir, m.FirstPart)
				continue
			}
		}
		modDir := filepath.Join(c.root, filepath.FromSlash(m.Dir))
		pkgs, err := grade.ListPackages(context.Background(), c.root, modDir, []string{l.Patterns()[m.Dir]}, grade.Plain)
		c.check("", err)
		for _, p := range pkgs {
			list, err := learnerCmd(modDir, "test", "-list", "^Fuzz", p.ImportPath).Output()
			if err != nil {
				c.fail(1, "go test -list ^Fuzz %s: %v\n%s", p.ImportPath, err, list)
			}
			for _, target := range strings.Fields(string(list)) {
				if !strings.HasPrefix(target, "Fuzz") {
					continue // the ok line
				}
				ran++
				fmt.Fprintf(c.stdout, "fuzzing %s in %s for %v\n", target, grade.RelDir(c.root, p.Dir), *fuzzTime)
				// A found input is shrunk for 10s, not a minute at "0/sec".
				cmd := learnerCmd(modDir, "test", "-run", "^$", "-fuzz", "^"+target+"$", "-fuzztime", fuzzTime.String(), "-fuzzminimizetime", "10s", p.ImportPath)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = io.MultiWriter(c.stdout, &grade.LimitedBuffer{Buf: &out, Left: 1 << 20}), c.stderr
				if cmd.Run() == nil {
					continue
				} else if stoppedByItsDeadline(out.String(), target) {
					fmt.Fprintf(c.stdout, "(go test said \"context deadline exceeded\" as its %v ended: Go's fuzzer racing its own time limit, go.dev/issue/75804, fixed in Go 1.27. It found nothing wrong.)\n", *fuzzTime)
					continue
				}
				found = true
				if m := failingInput.FindSubmatch(out.Bytes()); m != nil {
					saved = append(saved, filepath.ToSlash(filepath.Join(grade.RelDir(c.root, p.Dir), string(m[1]))))
				}
			}
		}
	}
	switch {
	case ran == 0:
		fmt.Fprintf(c.stdout, "Level %d has no fuzz target.\n", l.Number)
	case found && len(saved) > 0:
		fmt.Fprintf(c.stdout, "\nThe fuzzer found a timeline your code gets wrong (above). go test saved it as %s, so make test-level-%d runs it from now on.\n", strings.Join(saved, " and "), l.Number)
	case found:
		fmt.Fprintf(c.stdout, "\nYour code gets a timeline wrong (above): one of the spec's own seed timelines, which make test-level-%d runs every time, so nothing new was saved.\n", l.Number)
	default:
		fmt.Fprintf(c.stdout, "\nThe fuzzer found nothing wrong in %v per target.\n", *fuzzTime)
	}
	if found {
		panic(exit(1))
	}
}

// stoppedByItsDeadline says whether a fuzz run failed only as Go's fuzzer
// can as -fuzztime ends (go.dev/issue/75804, before Go 1.27): "context
// deadline exceeded", no case failing and no input saved.
func stoppedByItsDeadline(out, target string) bool {
	return !failingInput.MatchString(out) && strings.Count(out, "--- FAIL: ") == 1 &&
		regexp.MustCompile(`(?m)^--- FAIL: `+regexp.QuoteMeta(target)+` \([0-9.]+s\)\n\s+context deadline exceeded\nFAIL$`).MatchString(out)
}

// failingInput is go test's line naming the input it saved.
var failingInput = regexp.MustCompile(`Failing input written to (testdata/fuzz/\S+)`)
