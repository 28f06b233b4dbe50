package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// cmdTest is ladder test N: the one command that grades a level.
func cmdTest(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	part := fs.Int("part", 0, "test only this part")
	all := fs.Bool("all", false, "show every case that is not passing, in every part")
	l, ok := levelArg("test", fs, args, stderr)
	if !ok || !partArg(l, *part, stderr) {
		return 2
	}
	g, err := grade.TestLevel(root, l, *part)
	if err != nil {
		fmt.Fprintln(stderr, "ladder test:", err)
		return 1
	}
	grade.Write(stdout, g, *part, *all)
	if grade.Passed(g, *part) {
		return 0
	}
	return 1
}
