// Command ladder is the learner's tool behind the make targets.
//
//	go run ./harness/cmd/ladder progress [--json]   the ladder and what to do next
//	go run ./harness/cmd/ladder hint N              the next hint of level N
//	go run ./harness/cmd/ladder hints N             every hint of level N seen so far
//	go run ./harness/cmd/ladder reset N             restore level N's stub (FORCE=1: no question)
//	go run ./harness/cmd/ladder watch N             rerun level N's tests on every change
//	go run ./harness/cmd/ladder fuzz N              fuzz level N against its model
//	go run ./harness/cmd/ladder bench N             your benchmarks beside the reference's
//	go run ./harness/cmd/ladder compare N           your code beside the reference
//	go run ./harness/cmd/ladder interview N         a mock interview on level N (--time 45m)
//	go run ./harness/cmd/ladder debrief N           the classic mistakes and approaches of a level done
//	go run ./harness/cmd/ladder student-copy DEST   the repository without solutions/
//	go run ./harness/cmd/ladder class-report DIR... a table of a class's checkouts
//
// It runs from the repository's top folder, the one with go.mod.
package main

import (
	"context"
	"github.com/rateladder/rateladder/harness/levels"

	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: go run ./harness/cmd/ladder <command>

commands:
  progress [--json]                 the ladder: parts done, status, and what to do next
  hint LEVEL                        the next hint you have not seen
  hints LEVEL                       every hint you have seen so far
  reset LEVEL                       restore the level's stub as committed (FORCE=1 skips the question)
  watch [--poll] [--race] LEVEL     rerun the level's tests whenever a .go file changes
  fuzz [--time 30s] LEVEL           fuzz your code against the level's model
  bench [--count 6] LEVEL           your benchmarks beside the reference's, with benchstat
  compare LEVEL                     your code beside the reference, as a diff
  interview [--time 45m] LEVEL      a mock interview: one part at a time, on the clock, with a summary
  debrief LEVEL                     after a level: the classic mistakes and the approaches

for instructors:
  student-copy DEST                 the repository without solutions/, to hand out
  class-report [--format csv] DIR...   every student's ladder in one table
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	switch args[0] {
	case "test":
		return cmdTest(root, args[1:], stdout, stderr)
	case "check-stubs":
		return cmdCheckStubs(root, args[1:], stdout, stderr)
	case "progress":
		return cmdProgress(root, args[1:], stdout, stderr)
	case "hint":
		return cmdHint(root, args[1:], stdout, stderr)
	case "hints":
		return cmdHints(root, args[1:], stdout, stderr)
	case "reset":
		return cmdReset(root, args[1:], stdout, stderr)
	case "watch":
		return cmdWatch(root, args[1:], stdout, stderr)
	case "fuzz":
		return cmdFuzz(root, args[1:], stdout, stderr)
	case "bench":
		return cmdBench(root, args[1:], stdout, stderr)
	case "compare":
		return cmdCompare(root, args[1:], stdout, stderr)
	case "student-copy":
		return cmdStudentCopy(root, args[1:], stdout, stderr)
	case "class-report":
		return cmdClassReport(root, args[1:], stdout, stderr)
	case "interview":
		return cmdInterview(root, args[1:], stdout, stderr)
	case "debrief":
		return cmdDebrief(root, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "ladder: unknown command %q\n%s", args[0], usage)
	return 2
}

// cmdProgress prints the ladder. It exits 0 whatever state the learner's
// code is in: failing tests are what a ladder in progress looks like.
func cmdProgress(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("progress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "write the ladder as JSON, for tools")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rep, err := progress(root)
	if err != nil {
		fmt.Fprintln(stderr, "ladder progress:", err)
		return 1
	}
	if *asJSON {
		if err := writeJSON(stdout, rep); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	writeText(stdout, rep, style{color: useColor(stdout)})
	return 0
}

// progress grades every level, in as few go test runs as possible, so each
// package is compiled once and the levels build in parallel.
func progress(root string) (ladderReport, error) {
	grades, err := gradeLevels(context.Background(), root, levels.All, "")
	if err != nil {
		return ladderReport{}, err
	}
	rep := report(grades)
	addInterviews(root, &rep)
	return rep, nil
}

// useColor follows https://no-color.org: colour only on a terminal, and
// never when NO_COLOR is set to anything.
func useColor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
