package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rateladder/rateladder/harness/levels"
)

// A command is one line of the usage text, written once, here: ladder help
// prints each command's own words, and make help (ladder help --make) the
// make target that runs it.
type command struct {
	ladder string // the ladder command and its arguments; "" for a make target alone
	make   string // the make target that runs it; "" for a ladder command alone
	what   string // what it does, in a few words
}

// A commandGroup is the usage text's section for one kind of user.
type commandGroup struct {
	title    string
	commands []command
}

// learnersTitle heads the learners' commands with the levels there are.
func learnersTitle() string {
	return fmt.Sprintf("For learners (N is a level, %d to %d):", levels.All[0].Number, levels.All[len(levels.All)-1].Number)
}

var commands = []commandGroup{
	{learnersTitle(), []command{
		{ladder: "progress [--json]", make: "make progress", what: "the ladder: what you have done, and what comes next"},
		{ladder: "test [--part K] [--all] N", make: "make test-level-N [PART=K] [ALL=1] [REDIS=1]", what: "level N's tests against your code in ladder/: one part, or every case in full (REDIS=1: on a real redis-server too)"},
		{ladder: "watch N", make: "make watch-level-N", what: "rerun level N's tests whenever you save a file"},
		{ladder: "hint [--part K] N", make: "make hint-N [PART=K]", what: "the next hint for the part of level N you are on, or for part K"},
		{ladder: "hints N", make: "make hints-N", what: "every hint of level N seen so far"},
		{ladder: "fuzz [--time 30s] N", make: "make fuzz-level-N [FUZZTIME=30s]", what: "fuzz your level N against its model"},
		{ladder: "bench [--count 6] [--benchtime 100ms] N", make: "make bench-level-N", what: "your benchmarks beside the reference's, taking turns"},
		{ladder: "compare N", make: "make compare-level-N", what: "your code beside the reference"},
		{ladder: "reset N", make: "make reset-level-N [FORCE=1]", what: "put level N's stub back as it was, keeping a backup (FORCE=1: no question)"},
		{make: "make plot-level-N [REF=1]", what: "pictures of your level N in plots/ (REF=1: the reference's)"},
		{ladder: "interview [--time 45m] N", make: "make interview-level-N [TIME=45m]", what: "a mock interview: one part at a time, on the clock"},
		{ladder: "debrief N", make: "make debrief-level-N", what: "after a level: the classic mistakes and the approaches"},
	}},
	{"For instructors:", []command{
		{ladder: "student-copy DEST", make: "make student-copy DEST=dir", what: "the ladder without solutions/, to hand out"},
		{ladder: "class-report [--format csv|html] DIR...", make: `make class-report DIRS="a b c" [FORMAT=csv|html]`, what: "every student's progress in one table, and why each is stuck; JOBS=, TIMEOUT=, SEED=, NO_SANDBOX=1, CLEAN=1 as --help says"},
		{make: "make class-report-prepare", what: "build what the class report needs before class, so that it starts warm"},
		{ladder: "classroom [--force] [--instructor-repo OWNER/NAME] [--instructor-ref COMMIT] [FILE]", make: "make classroom [FORCE=1] [INSTRUCTOR_REPO=owner/name] [INSTRUCTOR_REF=commit]", what: "a GitHub Classroom workflow that grades as the class report does, one graded step per part, in .github/workflows/classroom.yml"},
		{make: "make test-plots", what: "the pictures open in headless Chromium (installs it)"},
	}},
	{"For the repository:", []command{
		{make: "make test", what: "everything that must always pass: about a minute on two cores, more on a fresh clone, which compiles everything first"},
		{make: "make test-go", what: "the harness's quick tests, and each spec's quick self-checks"},
		{make: "make test-solutions", what: "every reference against its spec"},
		{make: "make test-mutants", what: "each spec's whole self-check: every known mistake caught by its part (in make ci)"},
		{make: "make test-race", what: "every reference under the race detector (in make ci)"},
		{ladder: "check-stubs", make: "make test-stubs", what: "the untouched stubs compile, hold nothing but stubs, and every case fails as not implemented"},
		{make: "make ci", what: "what CI runs after make test"},
		{make: "make test-e2e", what: "the ladder command end to end, in copies of the repository, and every probe of the grader"},
		{make: "make test-bench", what: "every benchmark once, so that none rots"},
		{make: "make vet", what: "gofmt and go vet"},
		{make: "make check", what: "gofmt, go vet and staticcheck, and go vet for Windows and macOS"},
		{make: "make test-redis", what: "level 8's Redis reference against a real redis-server (installs it)"},
		{make: "make peers-redis", what: "the Redis form beside go-redis/redis_rate on a real redis-server"},
		{make: "make peers", what: "the references beside production Go limiters (slow, several minutes)"},
		{make: "make peers-quick", what: "make peers in a few seconds, to check it runs"},
		{ladder: "help [--make]", make: "make help", what: "this list"},
	}},
}

// countWords spells the small numbers a heading uses.
var countWords = []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}

// katas is "eight katas", for the number of levels the registry has.
func katas() string {
	if n := len(levels.All); n >= len(countWords) {
		return strconv.Itoa(n) + " katas"
	}
	return countWords[len(levels.All)] + " katas"
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

// usageLine is one command's line of the usage text, for the command to
// print when its arguments are wrong: "usage: ladder reset N   (make
// reset-level-N [FORCE=1])".
func usageLine(name string) string {
	for _, g := range commands {
		for _, c := range g.commands {
			if first, _, _ := strings.Cut(c.ladder, " "); first == name && c.ladder != "" {
				line := "usage: ladder " + c.ladder
				if c.make != "" {
					line += "   (" + c.make + ")"
				}
				return line
			}
		}
	}
	panic("ladder: no usage text for command " + name)
}

// parseArgs parses a command's flags, which define (if not nil) adds,
// before or after its other arguments ("test 3 --part 2" as well as "test
// --part 2 3"), and returns those, of which there must be lo to hi. On a
// problem it prints the command's usage line and returns false.
func parseArgs(name string, args []string, stderr io.Writer, lo, hi int, define func(fs *flag.FlagSet)) ([]string, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if define != nil {
		define(fs)
	}
	var pos []string
	for {
		err := fs.Parse(args)
		if err == nil && fs.NArg() > 0 {
			pos = append(pos, fs.Arg(0))
			args = fs.Args()[1:]
			continue
		}
		if err != nil || len(pos) < lo || len(pos) > hi {
			fmt.Fprintln(stderr, usageLine(name))
			return nil, false
		}
		return pos, true
	}
}

// levelArg is parseArgs for a command that takes one level. If part is not
// nil, it is the --part flag, with partUsage, checked against the level.
func levelArg(name string, args []string, stderr io.Writer, part *int, partUsage string, define func(fs *flag.FlagSet)) (levels.Level, bool) {
	pos, ok := parseArgs(name, args, stderr, 1, 1, func(fs *flag.FlagSet) {
		if part != nil {
			fs.IntVar(part, "part", 0, partUsage)
		}
		if define != nil {
			define(fs)
		}
	})
	if !ok {
		return levels.Level{}, false
	}
	l, err := levels.Find(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return levels.Level{}, false
	}
	if part != nil && *part != 0 {
		if _, ok := l.Part(*part); !ok {
			fmt.Fprintf(stderr, "level %d has no part %d; its parts are 1 to %d\n", l.Number, *part, len(l.Parts))
			return levels.Level{}, false
		}
	}
	return l, true
}

// cmdHelp prints the usage text; --make prints it as make targets, for
// the Makefile's help target.
func cmdHelp(_ string, args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 || len(args) == 1 && args[0] != "--make" {
		fmt.Fprintln(stderr, usageLine("help"))
		return 2
	}
	writeUsage(stdout, len(args) == 1)
	return 0
}
