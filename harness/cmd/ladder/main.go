// Command ladder is the learner's tool behind the make targets: make
// test-level-N is ladder test N, make progress is ladder progress, and so
// on. Its usage text, which make help prints too, is written once, in
// usage.go; go run ./harness/cmd/ladder help shows it.
//
// It runs from the repository's top folder, the one with go.mod.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/levels"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeUsage(stderr, false)
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
	case "classroom":
		return cmdClassroom(root, args[1:], stdout, stderr)
	case "interview":
		return cmdInterview(root, args[1:], stdout, stderr)
	case "debrief":
		return cmdDebrief(root, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		return cmdHelp(args[1:], stdout, stderr)
	case sandbox.CacheLayerCommand:
		// Not in the usage text: the go command runs it inside a class
		// report's sandbox, as its GOCACHEPROG.
		if len(args) != 3 {
			fmt.Fprintln(stderr, "usage: ladder cache-layer BASE OWN (the go command runs it)")
			return 2
		}
		if err := sandbox.ServeCacheLayers(args[1], args[2], os.Stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "ladder cache-layer:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "ladder: unknown command %q\n", args[0])
	writeUsage(stderr, false)
	return 2
}

// cmdTest is ladder test N: the one command that grades a level.
func cmdTest(root string, args []string, stdout, stderr io.Writer) int {
	var all bool
	l, part, ok := levelPartArg("test", args, stderr, "test only this part", func(fs *flag.FlagSet) {
		fs.BoolVar(&all, "all", false, "show every case that is not passing, in every part")
	})
	if !ok {
		return 2
	}
	g, err := grade.TestLevel(root, l, part)
	if err != nil {
		fmt.Fprintln(stderr, "ladder test:", err)
		return 1
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
		if err := grade.WriteJSON(stdout, rep); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	grade.WriteText(stdout, rep, grade.Style{Color: useColor(stdout)})
	return 0
}

// progress grades every level, in as few go test runs as possible, so each
// package is compiled once and the levels build in parallel.
func progress(root string) (grade.Ladder, error) {
	grades, err := grade.Levels(context.Background(), root, levels.All)
	if err != nil {
		return grade.Ladder{}, err
	}
	rep := grade.Report(grades)
	interview.AddInterviews(root, &rep)
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
