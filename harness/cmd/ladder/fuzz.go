package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
)

// cmdFuzz runs each of a level's fuzz targets against the learner's code
// for a bounded time. A timeline the fuzzer finds is printed by the runner
// like any failing case, and go test keeps the input under the package's
// testdata/fuzz, so make test-level-N runs it from then on. A later module
// (level 8's Redis form) is fuzzed once the parts before it pass.
func cmdFuzz(root string, args []string, stdout, stderr io.Writer) int {
	var fuzzTime time.Duration
	l, ok := levelArg("fuzz", args, stderr, func(fs *flag.FlagSet) {
		fs.DurationVar(&fuzzTime, "time", 30*time.Second, "how long to fuzz each target")
	})
	if !ok {
		return 2
	}
	var saved []string
	found, ran := false, 0
	var reached func(levels.Module) bool
	for _, m := range l.Modules {
		if m.FirstPart > 1 && reached == nil {
			fmt.Fprintf(stdout, "Checking which parts of level %d pass, to know whether to fuzz %s too…\n", l.Number, m.Dir)
			g, err := grade.TestLevel(root, l, 0)
			if err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			reached = func(m levels.Module) bool {
				for _, p := range g.Parts {
					if p.Number < m.FirstPart && !p.Done {
						return false
					}
				}
				return true
			}
		}
		if m.FirstPart > 1 && !reached(m) {
			fmt.Fprintf(stdout, "Not fuzzing %s: its parts start at part %d, and the parts before it do not all pass yet.\n", m.Dir, m.FirstPart)
			continue
		}
		modDir := filepath.Join(root, filepath.FromSlash(m.Dir))
		pkgs, err := grade.ListPackages(context.Background(), root, modDir, []string{l.Patterns()[m.Dir]}, grade.Plain)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		for _, p := range pkgs {
			pkg := p.ImportPath
			if m.Dir == "." && nestedModule(l, grade.RelDir(root, p.Dir)) {
				continue
			}
			targets, err := listTests(modDir, pkg, "^Fuzz")
			if err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			for _, target := range targets {
				ran++
				fmt.Fprintf(stdout, "fuzzing %s in %s for %v\n", target, grade.RelDir(root, p.Dir), fuzzTime)
				// A found input is shrunk for at most 10s: a slow target would
				// otherwise sit at "0/sec" for the default minute.
				cmd := exec.Command(grade.GoTool(), "test", "-run", "^$", "-fuzz", "^"+target+"$", "-fuzztime", fuzzTime.String(), "-fuzzminimizetime", "10s", pkg)
				cmd.Dir = modDir
				cmd.Env = grade.LearnerEnv()
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = io.MultiWriter(stdout, &grade.LimitedBuffer{Buf: &out, Left: 1 << 20}), stderr
				if err := cmd.Run(); err != nil {
					found = true
					if m := failingInput.FindSubmatch(out.Bytes()); m != nil {
						saved = append(saved, filepath.ToSlash(filepath.Join(grade.RelDir(root, p.Dir), string(m[1]))))
					}
				}
			}
		}
	}
	switch {
	case ran == 0:
		fmt.Fprintf(stdout, "Level %d has no fuzz target.\n", l.Number)
	case found && len(saved) > 0:
		fmt.Fprintf(stdout, "\nThe fuzzer found a timeline your code gets wrong (above). go test saved it as %s, so make test-level-%d runs it from now on.\n", strings.Join(saved, " and "), l.Number)
		return 1
	case found:
		fmt.Fprintf(stdout, "\nYour code gets a timeline wrong (above): one of the spec's own seed timelines, which make test-level-%d runs every time, so nothing new was saved.\n", l.Number)
		return 1
	default:
		fmt.Fprintf(stdout, "\nThe fuzzer found nothing wrong in %v per target.\n", fuzzTime)
	}
	return 0
}

// failingInput is go test's line naming the input it saved.
var failingInput = regexp.MustCompile(`Failing input written to (testdata/fuzz/\S+)`)

// nestedModule says whether rel lies in one of the level's nested modules.
func nestedModule(l levels.Level, rel string) bool {
	return grade.ModuleOf(l, rel).Dir != "."
}

// listTests names the tests, benchmarks or fuzz targets of pkg that match.
func listTests(root, pkg, pattern string) ([]string, error) {
	cmd := exec.Command(grade.GoTool(), "test", "-list", pattern, pkg)
	cmd.Dir = root
	cmd.Env = grade.LearnerEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go test -list %s %s: %v\n%s", pattern, pkg, err, out)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Fuzz") || strings.HasPrefix(line, "Test") || strings.HasPrefix(line, "Benchmark") {
			names = append(names, strings.TrimSpace(line))
		}
	}
	return names, nil
}
