package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// cmdFuzz runs each of a level's fuzz targets against the learner's code
// for a bounded time. A timeline the fuzzer finds is printed by the runner
// like any failing case, and go test keeps the input under testdata/fuzz,
// so make test-level-N runs it from then on.
func cmdFuzz(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fuzzTime := fs.Duration("time", 30*time.Second, "how long to fuzz each target")
	l, ok := levelArg("fuzz", fs, args, stderr)
	if !ok {
		return 2
	}
	pkgs, err := listLearnerPackages(context.Background(), root, []string{"./" + l.Dir + "/..."}, plainRunner)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	found := false
	ran := 0
	for _, p := range pkgs {
		pkg := p.ImportPath
		targets, err := listTests(root, pkg, "^Fuzz")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		for _, target := range targets {
			ran++
			fmt.Fprintf(stdout, "fuzzing %s in %s for %v\n", target, strings.TrimPrefix(pkg, modulePrefix(pkg)), *fuzzTime)
			// A found input is shrunk for at most 10s: a slow target would
			// otherwise sit at "0/sec" for the default minute.
			cmd := exec.Command(goTool(), "test", "-run", "^$", "-fuzz", "^"+target+"$", "-fuzztime", fuzzTime.String(), "-fuzzminimizetime", "10s", pkg)
			cmd.Dir = root
			cmd.Env = learnerEnv()
			cmd.Stdout, cmd.Stderr = stdout, stderr
			if err := cmd.Run(); err != nil {
				found = true
			}
		}
	}
	switch {
	case ran == 0:
		fmt.Fprintf(stdout, "Level %d has no fuzz target.\n", l.Number)
	case found:
		fmt.Fprintf(stdout, "\nThe fuzzer found a timeline your code gets wrong (above). go test saved it under %s/testdata/fuzz/, so make test-level-%d runs it from now on.\n", l.Dir, l.Number)
		return 1
	default:
		fmt.Fprintf(stdout, "\nThe fuzzer found nothing wrong in %v per target.\n", *fuzzTime)
	}
	return 0
}

// listTests names the tests, benchmarks or fuzz targets of pkg that match.
func listTests(root, pkg, pattern string) ([]string, error) {
	cmd := exec.Command(goTool(), "test", "-list", pattern, pkg)
	cmd.Dir = root
	cmd.Env = learnerEnv()
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

func modulePrefix(pkg string) string {
	if i := strings.Index(pkg, "/ladder/"); i >= 0 {
		return pkg[:i+1]
	}
	if i := strings.Index(pkg, "/solutions/"); i >= 0 {
		return pkg[:i+1]
	}
	return ""
}
