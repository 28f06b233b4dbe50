package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// benchstat is run at a pinned version, so nothing is installed by hand and
// everyone's tables come from the same code.
const benchstat = "golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

// learnerCmd runs go in dir, in the environment the learner's code runs in.
func learnerCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(grade.GoTool(), args...)
	cmd.Dir, cmd.Env = dir, grade.LearnerEnv()
	return cmd
}

// cmdBench runs a level's benchmarks on the learner's code and on the
// reference, and shows them side by side with benchstat. The sides take
// turns, one run each, so that a passing load falls on both alike; go
// test's build cache builds each side once.
func cmdBench(c *call) int {
	count := c.fs.Int("count", 6, "runs of each benchmark; benchstat wants six or more")
	benchTime := c.fs.String("benchtime", "100ms", "go test -benchtime for each run")
	l := c.level(nil)
	tmp, err := os.MkdirTemp("", "ladder-bench-")
	c.check("", err)
	defer os.RemoveAll(tmp)
	names, dirs := []string{"yours"}, []string{l.Dir}
	if hasReference(c.root, l) {
		names, dirs = []string{"reference", "yours"}, []string{l.SolutionDir(), l.Dir}
	} else {
		fmt.Fprintf(c.stdout, "There is no %s here (a workshop copy?), so these are your numbers alone.\n", l.SolutionDir())
	}
	outs, failed := make([]bytes.Buffer, len(dirs)), make([]bytes.Buffer, len(dirs))
	fmt.Fprintf(c.stdout, "benchmarking %d runs of %s each, taking turns...\n", *count, *benchTime)
	for range *count {
		for i, dir := range dirs {
			// -p 1: one package's benchmarks at a time.
			out, err := learnerCmd(c.root, "test", "-p", "1", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1", "-benchtime", *benchTime, "./"+dir+"/...").CombinedOutput()
			if err != nil {
				failed[i].Write(out)
			}
			// One pkg: line for both sides, so that benchstat puts the
			// same benchmark of the two packages side by side.
			outs[i].WriteString(pkgLine.ReplaceAllString(string(out), fmt.Sprintf("pkg: level %d", l.Number)))
		}
	}
	args := []string{"run", benchstat}
	for i, dir := range dirs {
		if failed[i].Len() > 0 {
			lines := strings.Join(failureLine.FindAllString(failed[i].String(), 8), "\n")
			fmt.Fprintf(c.stdout, "%s: some benchmarks failed:\n%s\n", dir, grade.Indent(lines, "  "))
		}
		if bytes.Contains(outs[i].Bytes(), []byte("\nBenchmark")) {
			file := filepath.Join(tmp, names[i])
			c.check("", os.WriteFile(file, outs[i].Bytes(), 0o644))
			args = append(args, names[i]+"="+file)
		}
	}
	if len(args) == 2 {
		fmt.Fprintln(c.stdout, "No benchmark ran.")
		return 1
	}
	cmd := exec.Command(grade.GoTool(), args...)
	cmd.Dir, cmd.Stderr = c.root, c.stderr
	table, err := cmd.Output()
	c.check("benchstat:", err)
	fmt.Fprintf(c.stdout, "\n%s\nsec/op and B/op: lower is better; the column after yours is the change from the reference.\n", withoutEmptyGeomean(table))
	if rows := benchRows(l.Number); len(rows) > 0 {
		fmt.Fprintf(c.stdout, "\nThe rows (the clock starts on 3 March 2025, not at the epoch):\n  %s\n", strings.Join(rows, "\n  "))
	}
	return 0
}

// withoutEmptyGeomean replaces benchstat's geomean rows when no row
// differs significantly: a geomean of changes that are all noise reads as
// a result when it is not one.
func withoutEmptyGeomean(table []byte) []byte {
	if significant.Match(table) {
		return table
	}
	return regexp.MustCompile(`(?m)^geomean.*$`).ReplaceAll(table, []byte("no significant difference from the reference (each row's ~)"))
}

var (
	pkgLine = regexp.MustCompile(`(?m)^pkg: .*$`)
	// failureLine is a line of go test's output that says what failed.
	failureLine = regexp.MustCompile(`(?m)^\s*(--- FAIL|panic:|.*not implemented|.*\[build failed\]|.*\.go:).*$`)
	// significant matches a benchstat row whose change passed its test:
	// a percentage before the p-value, where a row that did not shows "~".
	significant = regexp.MustCompile(`[+-][0-9.]+% \(p=`)
)

//go:embed benchrows.txt
var benchRowsText string

// benchRows explains every row level n's spec/bench.go prints, as
// benchrows.txt says: "Name: what it means", where Name is the end of the
// benchmark's name, as benchstat prints it, or a metric's unit.
func benchRows(n int) []string {
	var rows []string
	for _, line := range strings.Split(benchRowsText, "\n") {
		if row, ok := strings.CutPrefix(line, strconv.Itoa(n)+" "); ok {
			rows = append(rows, row)
		}
	}
	return rows
}

// cmdFuzz runs each of a level's fuzz targets against the learner's code
// for a bounded time. go test keeps a failing input under the package's
// testdata/fuzz, so make test-level-N runs it from then on. A later module
// (level 8's Redis form) is fuzzed once the parts before it pass.
func cmdFuzz(c *call) int {
	fuzzTime := c.fs.Duration("time", 30*time.Second, "how long to fuzz each target")
	l := c.level(nil)
	var saved []string
	found, ran, inProgress := false, 0, -1 // -1: not known yet
	for _, m := range l.Modules {
		if m.FirstPart > 1 && inProgress < 0 {
			fmt.Fprintf(c.stdout, "Checking which parts of level %d pass, to know whether to fuzz %s too…\n", l.Number, m.Dir)
			g, err := grade.TestLevel(c.root, l, 0)
			c.check("", err)
			inProgress = partInProgress(g)
		}
		if m.FirstPart > 1 && inProgress != 0 && inProgress < m.FirstPart {
			fmt.Fprintf(c.stdout, "Not fuzzing %s: its parts start at part %d, and the parts before it do not all pass yet.\n", m.Dir, m.FirstPart)
			continue
		}
		modDir := filepath.Join(c.root, filepath.FromSlash(m.Dir))
		pkgs, err := grade.ListPackages(context.Background(), c.root, modDir, []string{l.Patterns()[m.Dir]}, grade.Plain)
		c.check("", err)
		for _, p := range pkgs {
			list, err := learnerCmd(modDir, "test", "-list", "^Fuzz", p.ImportPath).Output()
			if err != nil {
				c.fail(1, "go test -list ^Fuzz %s: %v\n%s", p.ImportPath, err, list)
			}
			for _, target := range strings.Fields(string(list)) {
				if !strings.HasPrefix(target, "Fuzz") {
					continue // the ok line
				}
				ran++
				fmt.Fprintf(c.stdout, "fuzzing %s in %s for %v\n", target, grade.RelDir(c.root, p.Dir), *fuzzTime)
				// A found input is shrunk for at most 10s: a slow target would
				// otherwise sit at "0/sec" for the default minute.
				cmd := learnerCmd(modDir, "test", "-run", "^$", "-fuzz", "^"+target+"$", "-fuzztime", fuzzTime.String(), "-fuzzminimizetime", "10s", p.ImportPath)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = io.MultiWriter(c.stdout, &grade.LimitedBuffer{Buf: &out, Left: 1 << 20}), c.stderr
				if cmd.Run() == nil {
					continue
				} else if stoppedByItsDeadline(out.String(), target) {
					fmt.Fprintf(c.stdout, "(go test said \"context deadline exceeded\" as its %v ended: Go's fuzzer racing its own time limit, go.dev/issue/75804, fixed in Go 1.27. It found nothing wrong.)\n", *fuzzTime)
					continue
				}
				found = true
				if m := failingInput.FindSubmatch(out.Bytes()); m != nil {
					saved = append(saved, filepath.ToSlash(filepath.Join(grade.RelDir(c.root, p.Dir), string(m[1]))))
				}
			}
		}
	}
	switch {
	case ran == 0:
		fmt.Fprintf(c.stdout, "Level %d has no fuzz target.\n", l.Number)
	case found && len(saved) > 0:
		fmt.Fprintf(c.stdout, "\nThe fuzzer found a timeline your code gets wrong (above). go test saved it as %s, so make test-level-%d runs it from now on.\n", strings.Join(saved, " and "), l.Number)
	case found:
		fmt.Fprintf(c.stdout, "\nYour code gets a timeline wrong (above): one of the spec's own seed timelines, which make test-level-%d runs every time, so nothing new was saved.\n", l.Number)
	default:
		fmt.Fprintf(c.stdout, "\nThe fuzzer found nothing wrong in %v per target.\n", *fuzzTime)
	}
	return map[bool]int{false: 0, true: 1}[found]
}

// stoppedByItsDeadline says whether a failed fuzz run of target failed only
// as Go's fuzzer can at the end of -fuzztime (go.dev/issue/75804, before Go
// 1.27): "context deadline exceeded", with no case failing and no input
// saved, where a timeline the code gets wrong fails a case of its own.
func stoppedByItsDeadline(out, target string) bool {
	return !failingInput.MatchString(out) && strings.Count(out, "--- FAIL: ") == 1 &&
		regexp.MustCompile(`(?m)^--- FAIL: `+regexp.QuoteMeta(target)+` \([0-9.]+s\)\n\s+context deadline exceeded\nFAIL$`).MatchString(out)
}

// failingInput is go test's line naming the input it saved.
var failingInput = regexp.MustCompile(`Failing input written to (testdata/fuzz/\S+)`)
