package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
)

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
