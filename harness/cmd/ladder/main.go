// Command ladder is the learner's tool behind the make targets: make
// test-level-N is ladder test N, make progress is ladder progress, and so
// on. Its usage text, which make help prints too, is in usage.go.
//
// It runs from the repository's top folder, the one with go.mod.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/levels"
)

// A subcommand runs in the repository's top folder, root, with its own
// arguments, and returns the exit code.
type subcommand func(root string, args []string, stdout, stderr io.Writer) int

// subcommands are the ladder command's commands, by name.
var subcommands = map[string]subcommand{
	"test": cmdTest, "check-stubs": cmdCheckStubs, "progress": cmdProgress,
	"hint": cmdHint, "hints": cmdHints, "reset": cmdReset, "watch": cmdWatch,
	"fuzz": cmdFuzz, "bench": cmdBench, "compare": cmdCompare,
	"student-copy": cmdStudentCopy, "class-report": cmdClassReport, "classroom": cmdClassroom,
	"interview": cmdInterview, "debrief": cmdDebrief,
	"help": cmdHelp, "-h": cmdHelp, "--help": cmdHelp,
	// Not in the usage text: the go command runs it inside a class
	// report's sandbox, as its GOCACHEPROG.
	sandbox.CacheLayerCommand: cmdCacheLayer,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeUsage(stderr, false)
		return 2
	}
	cmd, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ladder: unknown command %q\n", args[0])
		writeUsage(stderr, false)
		return 2
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return cmd(root, args[1:], stdout, stderr)
}

// failed prints err, after prefix if not "", and returns exit code 1.
func failed(stderr io.Writer, prefix string, err error) int {
	fmt.Fprintln(stderr, strings.TrimPrefix(prefix+" "+err.Error(), " "))
	return 1
}

// cmdCacheLayer is the GOCACHEPROG of a class report's sandbox.
func cmdCacheLayer(_ string, args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: ladder cache-layer BASE OWN (the go command runs it)")
		return 2
	}
	if err := sandbox.ServeCacheLayers(args[0], args[1], os.Stdin, stdout); err != nil {
		return failed(stderr, "ladder cache-layer:", err)
	}
	return 0
}

// cmdTest is ladder test N: the one command that grades a level.
func cmdTest(root string, args []string, stdout, stderr io.Writer) int {
	var all bool
	var part int
	l, ok := levelArg("test", args, stderr, &part, "test only this part", func(fs *flag.FlagSet) {
		fs.BoolVar(&all, "all", false, "show every case that is not passing, in every part")
	})
	if !ok {
		return 2
	}
	g, err := grade.TestLevel(root, l, part)
	if err != nil {
		return failed(stderr, "ladder test:", err)
	}
	grade.Write(stdout, g, part, all)
	if grade.Passed(g, part) {
		return 0
	}
	return 1
}

// cmdProgress prints the ladder. It exits 0 whatever state the learner's
// code is in: failing tests are what a ladder in progress looks like.
func cmdProgress(root string, args []string, stdout, stderr io.Writer) int {
	var asJSON bool
	if _, ok := parseArgs("progress", args, stderr, 0, 0, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "write the ladder as JSON, for tools")
	}); !ok {
		return 2
	}
	grades, err := grade.Levels(context.Background(), root, levels.All, grade.Plain)
	if err != nil {
		return failed(stderr, "ladder progress:", err)
	}
	rep := grade.Report(grades)
	interview.AddInterviews(root, &rep)
	if asJSON {
		if err := grade.WriteJSON(stdout, rep); err != nil {
			return failed(stderr, "", err)
		}
		return 0
	}
	grade.WriteText(stdout, rep, grade.Style{Color: useColor(stdout)})
	return 0
}

// useColor follows https://no-color.org: colour only on a terminal, and
// never when NO_COLOR is set to anything.
func useColor(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// cmdCheckStubs is make test-stubs: every level's untouched stub compiles,
// and every case of every part, fuzz seeds included, ends as "not
// implemented". A stub that passes a case would be a stub called done.
func cmdCheckStubs(root string, args []string, stdout, stderr io.Writer) int {
	if len(args) != 0 {
		fmt.Fprintln(stderr, usageLine("check-stubs"))
		return 2
	}
	problems, err := grade.CheckStubs(context.Background(), root)
	if err != nil {
		fmt.Fprintln(stderr, "ladder check-stubs:", err)
		return 1
	}
	if len(problems) > 0 {
		fmt.Fprintf(stdout, "stub check: %s\n", strings.Join(problems, "\nstub check: "))
		return 1
	}
	fmt.Fprintf(stdout, "stub check: the %d levels' stubs compile, and every case fails as not implemented\n", len(levels.All))
	return 0
}
