// Command ladder is the learner's tool behind the make targets: it shows
// the whole ladder and what to do next.
//
//	go run ./harness/cmd/ladder progress [--json]
//
// It runs from the repository's top folder, the one with go.mod.
package main

import (
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
  progress [--json]   the ladder: parts done, status, and what to do next
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
	case "progress":
		return cmdProgress(root, args[1:], stdout, stderr)
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

// progress tests every built level once, in one go test run, so each
// package is compiled once and the levels build in parallel.
func progress(root string) (ladderReport, error) {
	levels, err := findLevels(root)
	if err != nil {
		return ladderReport{}, err
	}
	var dirs []string
	for _, l := range levels {
		if l.built() {
			dirs = append(dirs, l.Dir)
		}
	}
	pkgs, err := listPackages(root, dirs)
	if err != nil {
		return ladderReport{}, err
	}
	results, err := runTests(root, pkgs, "-run", "^Test", "-timeout", "5m")
	if err != nil {
		return ladderReport{}, err
	}
	return summarize(levels, results), nil
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
