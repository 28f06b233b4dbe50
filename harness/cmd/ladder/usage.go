package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/levels"
)

// A command is one line of the usage text. The usage text is written
// once, here: the ladder command prints it with each command's own
// words (ladder help), and the Makefile's help target prints it with the
// make target that runs it (ladder help --make).
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
		{make: "make test", what: "everything that must always pass, in under a minute"},
		{make: "make test-go", what: "the harness's quick tests, and each spec's own mutation checks"},
		{make: "make test-solutions", what: "every reference against its spec, with the race detector"},
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
	n := len(levels.All)
	if n < len(countWords) {
		return countWords[n] + " katas"
	}
	return strconv.Itoa(n) + " katas"
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
		var lines [][2]string
		width := 0
		for _, c := range g.commands {
			name, what := c.ladder, c.what
			if asMake {
				name = c.make
			}
			if name == "" {
				continue
			}
			lines = append(lines, [2]string{name, what})
			width = max(width, len(name))
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", g.title)
		for _, l := range lines {
			fmt.Fprintf(w, "  %s%s  %s\n", l[0], strings.Repeat(" ", width-len(l[0])), l[1])
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

// oneLevel reads the arguments of a command that takes one level and
// nothing else. On a problem it says what, with the command's usage line,
// and returns false.
func oneLevel(name string, args []string, stderr io.Writer) (levels.Level, bool) {
	return levelArg(name, args, stderr, nil)
}

// levelArg parses a command's flags, which define (if not nil) adds to
// the command's flag set, before or after the level ("test 3 --part 2" as
// well as "test --part 2 3"), and the one level it takes. On a problem it
// says what, with the command's usage line, and returns false.
func levelArg(name string, args []string, stderr io.Writer, define func(fs *flag.FlagSet)) (levels.Level, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if define != nil {
		define(fs)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			fmt.Fprintln(stderr, usageLine(name))
			return levels.Level{}, false
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, usageLine(name))
		return levels.Level{}, false
	}
	l, err := levels.Find(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return levels.Level{}, false
	}
	return l, true
}

// levelPartArg is levelArg for a command that also takes --part, whose
// usage text is partUsage: it checks the part against the level, and
// returns 0 for no --part.
func levelPartArg(name string, args []string, stderr io.Writer, partUsage string, define func(fs *flag.FlagSet)) (levels.Level, int, bool) {
	var part int
	l, ok := levelArg(name, args, stderr, func(fs *flag.FlagSet) {
		fs.IntVar(&part, "part", 0, partUsage)
		if define != nil {
			define(fs)
		}
	})
	if !ok || !partArg(l, part, stderr) {
		return levels.Level{}, 0, false
	}
	return l, part, true
}

// everyFlag is --every, how often watch and interview look for changes.
func everyFlag(fs *flag.FlagSet, every *time.Duration) {
	fs.DurationVar(every, "every", 500*time.Millisecond, "how often to look for changes")
}

// partArg checks a --part flag's value against the level: 0 (no flag) or
// one of its parts. On a problem it says which parts there are and
// returns false.
func partArg(l levels.Level, part int, stderr io.Writer) bool {
	if part == 0 {
		return true
	}
	if _, ok := l.Part(part); !ok {
		fmt.Fprintf(stderr, "level %d has no part %d; its parts are 1 to %d\n", l.Number, part, len(l.Parts))
		return false
	}
	return true
}

// cmdHelp prints the usage text; --make prints it as make targets, for
// the Makefile's help target.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		writeUsage(stdout, false)
	case len(args) == 1 && args[0] == "--make":
		writeUsage(stdout, true)
	default:
		fmt.Fprintln(stderr, usageLine("help"))
		return 2
	}
	return 0
}
