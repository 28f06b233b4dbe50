package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

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
