package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
)

// cmdTestReferences runs every reference's tests, against its spec and its
// own, with the go test flags given. The levels about concurrency run
// under the race detector, as their learners' tests do; the others do not:
// their code starts no goroutine, so the detector has nothing to find, and
// it would cost much of make test's time. (make ci runs them all under it.)
func cmdTestReferences(root string, args []string, stdout, stderr io.Writer) int {
	if _, err := os.Stat(filepath.Join(root, "solutions")); err != nil {
		fmt.Fprintln(stdout, "no solutions/ here (a student copy): skipping the reference tests")
		return 0
	}
	type run struct {
		dir  string // the module's folder
		race bool
	}
	var order []run
	patterns := map[run][]string{}
	for _, l := range levels.All {
		for _, m := range l.Modules {
			r, p := run{".", l.Race}, "./"+l.SolutionDir()+"/..."
			if m.Dir != "." { // a module of its own, inside the level's folder
				r.dir, p = l.SolutionDir()+strings.TrimPrefix(m.Dir, l.Dir), "./..."
			}
			if patterns[r] == nil {
				order = append(order, r)
			}
			patterns[r] = append(patterns[r], p)
		}
	}
	for _, r := range order {
		goArgs := append([]string{"test"}, args...)
		if r.race {
			goArgs = append(goArgs, "-race")
		}
		goArgs = append(goArgs, patterns[r]...)
		fmt.Fprintf(stdout, "go -C %s %s\n", r.dir, strings.Join(goArgs, " "))
		cmd := exec.Command("go", goArgs...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = filepath.Join(root, r.dir), stdout, stderr
		if err := cmd.Run(); err != nil {
			return failed(stderr, "ladder test-references:", err)
		}
	}
	return 0
}
