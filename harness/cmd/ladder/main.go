// Command ladder is the learner's tool behind the make targets: make
// test-level-N is ladder test N, make progress is ladder progress, and so
// on. Its usage text, which make help prints too, is the commands table.
//
// It runs from the repository's top folder, the one with go.mod.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

// A command is one line of the usage text, written once, here: ladder help
// prints each command's own words, and make help (ladder help --make) the
// make target that runs it.
type command struct {
	ladder string            // the ladder command and its arguments; "" for a make target alone
	make   string            // the make target that runs it; "" for a ladder command alone
	what   string            // what it does, in a few words
	run    func(c *call) int // the ladder command, which returns its exit code
}

// A commandGroup is the usage text's section for one kind of user.
type commandGroup struct {
	title    string
	commands []command
}

// commands is the usage text. It is set in init, as the commands it runs
// refer back to it for their usage lines.
var commands []commandGroup

func init() {
	first, last := levels.All[0].Number, levels.All[len(levels.All)-1].Number
	commands = []commandGroup{
		{fmt.Sprintf("For learners (N is a level, %d to %d):", first, last), []command{
			{"progress [--json]", "make progress", "the ladder: what you have done, and what comes next", cmdProgress},
			{"test [--part K] [--all] N", "make test-level-N [PART=K] [ALL=1] [REDIS=1]", "level N's tests against your code in ladder/: one part, or every case in full (REDIS=1: on a real redis-server too)", cmdTest},
			{"watch N", "make watch-level-N", "rerun level N's tests whenever you save a file", cmdWatch},
			{"hint [--part K] N", "make hint-N [PART=K]", "the next hint for the part of level N you are on, or for part K", cmdHint},
			{"hints N", "make hints-N", "every hint of level N seen so far", cmdHints},
			{"fuzz [--time 30s] N", "make fuzz-level-N [FUZZTIME=30s]", "fuzz your level N against its model", cmdFuzz},
			{"bench [--count 6] [--benchtime 100ms] N", "make bench-level-N", "your benchmarks beside the reference's, taking turns", cmdBench},
			{"compare N", "make compare-level-N", "your code beside the reference", cmdCompare},
			{"reset N", "make reset-level-N [FORCE=1]", "put level N's stub back as it was, keeping a backup (FORCE=1: no question)", cmdReset},
			{make: "make plot-level-N [REF=1]", what: "pictures of your level N in plots/ (REF=1: the reference's)"},
			{"interview [--time 45m] N", "make interview-level-N [TIME=45m]", "a mock interview: one part at a time, on the clock", cmdInterview},
			{"debrief N", "make debrief-level-N", "after a level: the classic mistakes and the approaches", cmdDebrief},
		}},
		{"For instructors:", []command{
			{"student-copy DEST", "make student-copy DEST=dir", "the ladder without solutions/, to hand out", cmdStudentCopy},
			{"class-report [--format csv|html] DIR...", `make class-report DIRS="a b c" [FORMAT=csv|html]`, "every student's progress in one table, and why each is stuck; JOBS=, TIMEOUT=, SEED=, NO_SANDBOX=1, CLEAN=1 as --help says", cmdClassReport},
			{make: "make class-report-prepare", what: "build what the class report needs before class, so that it starts warm"},
			{"classroom [--force] [--instructor-repo OWNER/NAME] [--instructor-ref COMMIT] [FILE]", "make classroom [FORCE=1] [INSTRUCTOR_REPO=owner/name] [INSTRUCTOR_REF=commit]", "a GitHub Classroom workflow that grades as the class report does, one graded step per part, in .github/workflows/classroom.yml", cmdClassroom},
			{make: "make test-plots", what: "the pictures open in headless Chromium (installs it)"},
		}},
		{"For the repository:", []command{
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
		}},
	}
}

// katas is "eight katas", for the number of levels the registry has.
func katas() string {
	if words := strings.Fields("no one two three four five six seven eight nine ten eleven twelve"); len(levels.All) < len(words) {
		return words[len(levels.All)] + " katas"
	}
	return strconv.Itoa(len(levels.All)) + " katas"
}

// writeUsage writes the usage text: with the make targets if asMake, else
// with the ladder command's own words.
func writeUsage(w io.Writer, asMake bool) {
	if asMake {
		fmt.Fprintf(w, "rateladder: %s on rolling windows and rate limiters.\n", katas())
	} else {
		fmt.Fprint(w, "usage: go run ./harness/cmd/ladder <command>, from the repository's top folder\n")
	}
	for _, g := range commands {
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, c := range g.commands {
			name := c.ladder
			if asMake {
				name = c.make
			}
			if name != "" {
				fmt.Fprintf(tw, "  %s\t%s\n", name, c.what)
			}
		}
		if tw.Flush(); b.Len() > 0 {
			fmt.Fprintf(w, "\n%s\n%s", g.title, b.String())
		}
	}
}

// find returns the ladder command name, and its line of the usage text for
// it to print when its arguments are wrong: "usage: ladder reset N   (make
// reset-level-N [FORCE=1])".
func find(name string) (command, string) {
	for _, g := range commands {
		for _, c := range g.commands {
			if first, _, _ := strings.Cut(c.ladder, " "); first == name && c.run != nil {
				return c, strings.TrimSuffix("usage: ladder "+c.ladder+"   ("+c.make+")", "   ()")
			}
		}
	}
	return command{}, ""
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return runAt(root, args, stdout, stderr)
}

// A call is one run of a command, in the repository's top folder, root.
// The command defines its flags on fs, then parses them with args or
// level; ending it early, with fail or check, is a panic that runAt
// recovers, so that commands read as the steps they take.
type call struct {
	root, usage    string
	args           []string
	fs             *flag.FlagSet
	stdout, stderr io.Writer
}

// exit ends a command with its code (see call).
type exit int

// runAt runs the command args names in root, and returns its exit code.
func runAt(root string, args []string, stdout, stderr io.Writer) (code int) {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		args = append([]string{"help"}, args[1:]...)
	}
	c := &call{root: root, stdout: stdout, stderr: stderr}
	var cmd command
	if len(args) > 0 {
		if cmd, c.usage = find(args[0]); cmd.run == nil {
			fmt.Fprintf(stderr, "ladder: unknown command %q\n", args[0])
		}
	}
	if cmd.run == nil {
		writeUsage(stderr, false)
		return 2
	}
	c.args, c.fs = args[1:], flag.NewFlagSet(args[0], flag.ContinueOnError)
	c.fs.SetOutput(stderr)
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(exit)
			if !ok {
				panic(r)
			}
			code = int(e)
		}
	}()
	return cmd.run(c)
}

// fail prints a line to stderr and ends the command with code.
func (c *call) fail(code int, format string, a ...any) {
	fmt.Fprintf(c.stderr, format+"\n", a...)
	panic(exit(code))
}

// check ends the command with code 1 if err is not nil, printing it after
// prefix if not "".
func (c *call) check(prefix string, err error) {
	if err != nil {
		c.fail(1, "%s", strings.TrimPrefix(prefix+" "+err.Error(), " "))
	}
}

// parse parses the command's flags before or after its other arguments
// ("test 3 --part 2" as well as "test --part 2 3"), and returns those, of
// which there must be lo to hi; else it ends the command with its usage.
func (c *call) parse(lo, hi int) []string {
	var pos []string
	for args := c.args; ; {
		err := c.fs.Parse(args)
		if err == nil && c.fs.NArg() > 0 {
			pos, args = append(pos, c.fs.Arg(0)), c.fs.Args()[1:]
			continue
		}
		if err != nil || len(pos) < lo || len(pos) > hi {
			c.fail(2, "%s", c.usage)
		}
		return pos
	}
}

// level parses a command that takes one level. If part is not nil, it is
// the --part flag, checked against the level.
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

// cmdHelp prints the usage text; --make prints it as make targets, for
// the Makefile's help target.
func cmdHelp(c *call) int {
	asMake := c.fs.Bool("make", false, "the make targets")
	c.parse(0, 0)
	writeUsage(c.stdout, *asMake)
	return 0
}

// cmdTest is ladder test N: the one command that grades a level.
func cmdTest(c *call) int {
	all := c.fs.Bool("all", false, "show every case that is not passing, in every part")
	part := c.fs.Int("part", 0, "test only this part")
	l := c.level(part)
	g, err := grade.TestLevel(c.root, l, *part)
	c.check("ladder test:", err)
	grade.Write(c.stdout, g, *part, *all)
	if grade.Passed(g, *part) {
		return 0
	}
	return 1
}

// cmdProgress prints the ladder. It exits 0 whatever state the learner's
// code is in: failing tests are what a ladder in progress looks like.
func cmdProgress(c *call) int {
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
	return 0
}

// useColor follows https://no-color.org: colour only on a terminal, and
// never when NO_COLOR is set to anything.
func useColor(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(f.Fd()))
}

// cmdCheckStubs is make test-stubs: every level's untouched stub compiles,
// and every case of every part, fuzz seeds included, ends as "not
// implemented". A stub that passes a case would be a stub called done.
func cmdCheckStubs(c *call) int {
	c.parse(0, 0)
	problems, err := grade.CheckStubs(context.Background(), c.root)
	c.check("ladder check-stubs:", err)
	if len(problems) > 0 {
		fmt.Fprintf(c.stdout, "stub check: %s\n", strings.Join(problems, "\nstub check: "))
		return 1
	}
	fmt.Fprintf(c.stdout, "stub check: the %d levels' stubs compile, and every case fails as not implemented\n", len(levels.All))
	return 0
}
