package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
)

// A command is one line of the usage text. The usage text is written
// once, here: the ladder command prints it with each command's own
// words (ladder help), and the Makefile's help target prints it with the
// make target that runs it (ladder help --make).
type command struct {
	ladder string // the ladder command and its arguments; "" for a make target alone
	make   string // the make target that runs it; "" for a ladder command alone
	what   string
}

// A commandGroup is the usage text's section for one kind of user.
type commandGroup struct {
	title    string
	commands []command
}

var commands = []commandGroup{
	{"For learners (N is a level, 1 to 8):", []command{
		{"progress [--json]", "make progress", "the ladder: what you have done, and what comes next"},
		{"test [--part K] [--all] N", "make test-level-N [PART=K] [ALL=1] [REDIS=1]", "level N's tests against your code in ladder/: one part, or every case in full (REDIS=1: on a real redis-server too)"},
		{"watch N", "make watch-level-N", "rerun level N's tests whenever you save a file"},
		{"hint [--part K] N", "make hint-N [PART=K]", "the next hint for the part of level N you are on, or for part K"},
		{"hints N", "make hints-N", "every hint of level N seen so far"},
		{"fuzz [--time 30s] N", "make fuzz-level-N [FUZZTIME=30s]", "fuzz your level N against its model"},
		{"bench [--count 6] [--benchtime 100ms] N", "make bench-level-N", "your benchmarks beside the reference's, taking turns"},
		{"compare N", "make compare-level-N", "your code beside the reference"},
		{"reset N", "make reset-level-N [FORCE=1]", "put level N's stub back as it was, keeping a backup (FORCE=1: no question)"},
		{"", "make plot-level-N [REF=1]", "pictures of your level N in plots/ (REF=1: the reference's)"},
		{"interview [--time 45m] N", "make interview-level-N [TIME=45m]", "a mock interview: one part at a time, on the clock"},
		{"debrief N", "make debrief-level-N", "after a level: the classic mistakes and the approaches"},
	}},
	{"For instructors:", []command{
		{"student-copy DEST", "make student-copy DEST=dir", "the ladder without solutions/, to hand out"},
		{"class-report [--format csv] DIR...", `make class-report DIRS="a b c" [FORMAT=csv]`, "every student's progress in one table"},
		{"", "make test-plots", "the pictures open in headless Chromium (installs it)"},
	}},
	{"For the repository:", []command{
		{"", "make test", "everything that must stay green, in under a minute (what CI runs)"},
		{"", "make test-go", "make test's first part: the harness's quick tests, and each spec's own mutation checks"},
		{"", "make test-solutions", "make test's second part: every reference against its spec, with the race detector"},
		{"", "make test-e2e", "the ladder command end to end, in copies of the repository (CI runs it too)"},
		{"", "make test-bench", "every benchmark once, so that none rots (CI runs it too)"},
		{"check-stubs", "make test-stubs", "make test's third part: the untouched stubs compile, and every case fails as not implemented"},
		{"", "make vet", "make test's fourth part: gofmt and go vet"},
		{"", "make check", "gofmt, go vet and staticcheck"},
		{"", "make test-redis", "level 8's Redis reference against a real redis-server (installs it)"},
		{"", "make peers-redis", "the Redis form beside go-redis/redis_rate on a real redis-server"},
		{"", "make peers", "the references beside production Go limiters (slow, several minutes)"},
		{"", "make peers-quick", "make peers in a few seconds, to check it runs (CI runs it)"},
		{"help [--make]", "make help", "this list"},
	}},
}

// writeUsage writes the usage text: with the make targets if asMake, else
// with the ladder command's own words.
func writeUsage(w io.Writer, asMake bool) {
	if asMake {
		fmt.Fprint(w, "rateladder: eight katas on rolling windows and rate limiters.\n")
	} else {
		fmt.Fprint(w, "usage: go run ./harness/cmd/ladder <command>, from the repository's top folder\n")
	}
	for _, g := range commands {
		var lines [][2]string
		width := 0
		for _, c := range g.commands {
			name := c.ladder
			if asMake {
				name = c.make
			}
			if name == "" {
				continue
			}
			lines = append(lines, [2]string{name, c.what})
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
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return levelArg(name, fs, args, stderr)
}

// levelArg parses a command's flags, before or after the level ("test 3
// --part 2" as well as "test --part 2 3"), and the one level it takes. On
// a problem it says what, with the command's usage line, and returns false.
func levelArg(name string, fs *flag.FlagSet, args []string, stderr io.Writer) (levels.Level, bool) {
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
