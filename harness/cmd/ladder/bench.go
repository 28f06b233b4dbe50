package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// benchstat is run at a pinned version, so nothing is installed by hand and
// everyone's tables come from the same code.
const benchstat = "golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

var pkgLineRE = regexp.MustCompile(`(?m)^pkg: .*$`)

// cmdBench runs a level's benchmarks on the learner's code and on the
// reference, and shows them side by side with benchstat. The two sides take
// turns, one run each, so that a load that comes and goes on the machine
// falls on both alike.
func cmdBench(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	count := fs.Int("count", 6, "runs of each benchmark; benchstat wants six or more")
	benchTime := fs.String("benchtime", "100ms", "go test -benchtime for each run")
	l, ok := levelArg("bench", fs, args, stderr)
	if !ok {
		return 2
	}
	dir, err := os.MkdirTemp("", "ladder-bench-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)

	sides := []*benchSide{{name: "yours", dir: l.Dir}}
	if _, err := os.Stat(filepath.Join(root, l.SolutionDir())); err == nil {
		sides = append([]*benchSide{{name: "reference", dir: l.SolutionDir()}}, sides...)
	} else {
		fmt.Fprintf(stdout, "There is no %s here (a workshop copy?), so these are your numbers alone.\n", l.SolutionDir())
	}
	for _, s := range sides {
		if err := s.build(root, dir); err != nil {
			fmt.Fprintln(stdout, err)
		}
	}
	fmt.Fprintf(stdout, "benchmarking %d runs of %s each, taking turns...\n", *count, *benchTime)
	for range *count {
		for _, s := range sides {
			s.run(*benchTime, l.Number)
		}
	}
	var inputs []string
	for _, s := range sides {
		if s.failed != "" {
			fmt.Fprintf(stdout, "%s: some benchmarks failed:\n%s\n", s.dir, indent(firstLines(failureLines(s.failed), 8), "  "))
		}
		if s.out.Len() == 0 {
			continue
		}
		file := filepath.Join(dir, s.name)
		if err := os.WriteFile(file, s.out.Bytes(), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		inputs = append(inputs, s.name+"="+file)
	}
	if len(inputs) == 0 {
		fmt.Fprintln(stdout, "No benchmark ran.")
		return 1
	}
	fmt.Fprintln(stdout)
	cmd := exec.Command(goTool(), append([]string{"run", benchstat}, inputs...)...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(stderr, "benchstat:", err)
		return 1
	}
	fmt.Fprintln(stdout, "\nsec/op and B/op: lower is better; the column after yours is the change from the reference.")
	return 0
}

// benchSide is one side of a comparison: its test binaries, built once,
// and what their runs printed.
type benchSide struct {
	name, dir string
	bins      []benchBinary
	out       bytes.Buffer
	failed    string
}

type benchBinary struct{ path, dir string }

// build compiles the side's test binaries, one per package with tests.
func (s *benchSide) build(root, tmp string) error {
	pkgs, err := listLearnerPackages(context.Background(), root, []string{"./" + s.dir + "/..."}, plainRunner)
	if err != nil {
		return err
	}
	for i, p := range pkgs {
		bin := filepath.Join(tmp, fmt.Sprintf("%s-%d.test", s.name, i))
		cmd := exec.Command(goTool(), "test", "-c", "-o", bin, p.ImportPath)
		cmd.Dir = root
		cmd.Env = learnerEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s does not build:\n%s", p.ImportPath, indent(firstLines(string(out), 12), "  "))
		}
		if _, err := os.Stat(bin); err == nil { // no binary for a package without tests
			s.bins = append(s.bins, benchBinary{path: bin, dir: p.Dir})
		}
	}
	return nil
}

// run runs every benchmark of the side once.
func (s *benchSide) run(benchTime string, level int) {
	for _, b := range s.bins {
		cmd := exec.Command(b.path, "-test.run", "^$", "-test.bench", ".", "-test.benchmem", "-test.count", "1", "-test.benchtime", benchTime)
		cmd.Dir = b.dir
		cmd.Env = learnerEnv()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			s.failed += out.String()
		}
		// One pkg: line for both sides, so that benchstat puts the same
		// benchmark of the two packages side by side.
		s.out.WriteString(pkgLineRE.ReplaceAllString(out.String(), fmt.Sprintf("pkg: level %d", level)))
	}
}

// failureLines keeps the lines of go test output that say what failed.
func failureLines(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.Contains(t, "not implemented") || strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "panic:") {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "\n")
}
