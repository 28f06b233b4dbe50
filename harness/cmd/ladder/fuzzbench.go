package main

import (
	"bytes"
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// benchstat is run at a pinned version, so nothing is installed by hand and
// everyone's tables come from the same code.
const benchstat = "golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

var pkgLineRE = regexp.MustCompile(`(?m)^pkg: .*$`)

// cmdBench runs a level's benchmarks on the learner's code and on the
// reference, and shows them side by side with benchstat. The sides take
// turns, one run each, so that a passing load falls on both alike.
func cmdBench(root string, args []string, stdout, stderr io.Writer) int {
	var count int
	var benchTime string
	l, ok := levelArg("bench", args, stderr, nil, "", func(fs *flag.FlagSet) {
		fs.IntVar(&count, "count", 6, "runs of each benchmark; benchstat wants six or more")
		fs.StringVar(&benchTime, "benchtime", "100ms", "go test -benchtime for each run")
	})
	if !ok {
		return 2
	}
	dir, err := os.MkdirTemp("", "ladder-bench-")
	if err != nil {
		return failed(stderr, "", err)
	}
	defer os.RemoveAll(dir)

	sides := []*benchSide{{name: "yours", dir: l.Dir}}
	if hasReference(root, l) {
		sides = append([]*benchSide{{name: "reference", dir: l.SolutionDir()}}, sides...)
	} else {
		fmt.Fprintf(stdout, "There is no %s here (a workshop copy?), so these are your numbers alone.\n", l.SolutionDir())
	}
	for _, s := range sides {
		if err := s.build(root, dir); err != nil {
			fmt.Fprintln(stdout, err)
		}
	}
	fmt.Fprintf(stdout, "benchmarking %d runs of %s each, taking turns...\n", count, benchTime)
	for range count {
		for _, s := range sides {
			s.run(benchTime, l.Number)
		}
	}
	var inputs []string
	for _, s := range sides {
		if s.failed != "" {
			fmt.Fprintf(stdout, "%s: some benchmarks failed:\n%s\n", s.dir, grade.Indent(grade.FirstLines(failureLines(s.failed), 8), "  "))
		}
		if s.out.Len() == 0 {
			continue
		}
		file := filepath.Join(dir, s.name)
		if err := os.WriteFile(file, s.out.Bytes(), 0o644); err != nil {
			return failed(stderr, "", err)
		}
		inputs = append(inputs, s.name+"="+file)
	}
	if len(inputs) == 0 {
		fmt.Fprintln(stdout, "No benchmark ran.")
		return 1
	}
	fmt.Fprintln(stdout)
	cmd := exec.Command(grade.GoTool(), append([]string{"run", benchstat}, inputs...)...)
	cmd.Dir = root
	var table bytes.Buffer
	cmd.Stdout, cmd.Stderr = &table, stderr
	if err := cmd.Run(); err != nil {
		return failed(stderr, "benchstat:", err)
	}
	stdout.Write(withoutEmptyGeomean(table.Bytes()))
	fmt.Fprintln(stdout, "\nsec/op and B/op: lower is better; the column after yours is the change from the reference.")
	if rows := benchRows[l.Number]; len(rows) > 0 {
		fmt.Fprintln(stdout, "\nThe rows (the clock starts on 3 March 2025, not at the epoch):")
		for _, r := range rows {
			fmt.Fprintf(stdout, "  %s: %s\n", r.Name, r.Means)
		}
	}
	return 0
}

// benchRow explains one row of a level's benchmark table: Name is the end
// of the benchmark's name, as benchstat prints it, or a metric's unit.
type benchRow struct{ Name, Means string }

//go:embed benchrows.txt
var benchRowsText string

// benchRows explains every row each level's spec/bench.go prints, by
// level, as benchrows.txt says.
var benchRows = func() map[int][]benchRow {
	rows := map[int][]benchRow{}
	for _, line := range strings.Split(benchRowsText, "\n") {
		var n int
		var name string
		if _, err := fmt.Sscanf(line, "%d %s", &n, &name); err == nil && strings.HasSuffix(name, ":") {
			_, means, _ := strings.Cut(line, name+" ")
			rows[n] = append(rows[n], benchRow{strings.TrimSuffix(name, ":"), means})
		}
	}
	return rows
}()

// benchSide is one side of a comparison: its test binaries, built once
// (path and package folder), and what their runs printed.
type benchSide struct {
	name, dir string
	bins      [][2]string
	out       bytes.Buffer
	failed    string
}

// build compiles the side's test binaries, one per package with tests.
func (s *benchSide) build(root, tmp string) error {
	pkgs, err := grade.ListPackages(context.Background(), root, root, []string{"./" + s.dir + "/..."}, grade.Plain)
	if err != nil {
		return err
	}
	for i, p := range pkgs {
		bin := filepath.Join(tmp, fmt.Sprintf("%s-%d.test", s.name, i))
		cmd := exec.Command(grade.GoTool(), "test", "-c", "-o", bin, p.ImportPath)
		cmd.Dir = root
		cmd.Env = grade.LearnerEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s does not build:\n%s", p.ImportPath, grade.Indent(grade.FirstLines(string(out), 12), "  "))
		}
		if _, err := os.Stat(bin); err == nil { // no binary for a package without tests
			s.bins = append(s.bins, [2]string{bin, p.Dir})
		}
	}
	return nil
}

// run runs every benchmark of the side once.
func (s *benchSide) run(benchTime string, level int) {
	for _, b := range s.bins {
		cmd := exec.Command(b[0], "-test.run", "^$", "-test.bench", ".", "-test.benchmem", "-test.count", "1", "-test.benchtime", benchTime)
		cmd.Dir = b[1]
		cmd.Env = grade.LearnerEnv()
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

// cmdFuzz runs each of a level's fuzz targets against the learner's code
// for a bounded time. go test keeps a failing input under the package's
// testdata/fuzz, so make test-level-N runs it from then on. A later module
// (level 8's Redis form) is fuzzed once the parts before it pass.
func cmdFuzz(root string, args []string, stdout, stderr io.Writer) int {
	var fuzzTime time.Duration
	l, ok := levelArg("fuzz", args, stderr, nil, "", func(fs *flag.FlagSet) {
		fs.DurationVar(&fuzzTime, "time", 30*time.Second, "how long to fuzz each target")
	})
	if !ok {
		return 2
	}
	var saved []string
	found, ran := false, 0
	inProgress := -1 // not known yet
	for _, m := range l.Modules {
		if m.FirstPart > 1 && inProgress < 0 {
			fmt.Fprintf(stdout, "Checking which parts of level %d pass, to know whether to fuzz %s too…\n", l.Number, m.Dir)
			g, err := grade.TestLevel(root, l, 0)
			if err != nil {
				return failed(stderr, "", err)
			}
			inProgress = partInProgress(g)
		}
		if m.FirstPart > 1 && inProgress != 0 && inProgress < m.FirstPart {
			fmt.Fprintf(stdout, "Not fuzzing %s: its parts start at part %d, and the parts before it do not all pass yet.\n", m.Dir, m.FirstPart)
			continue
		}
		modDir := filepath.Join(root, filepath.FromSlash(m.Dir))
		pkgs, err := grade.ListPackages(context.Background(), root, modDir, []string{l.Patterns()[m.Dir]}, grade.Plain)
		if err != nil {
			return failed(stderr, "", err)
		}
		for _, p := range pkgs {
			rel := grade.RelDir(root, p.Dir)
			targets, err := listFuzzTargets(modDir, p.ImportPath)
			if err != nil {
				return failed(stderr, "", err)
			}
			for _, target := range targets {
				ran++
				fmt.Fprintf(stdout, "fuzzing %s in %s for %v\n", target, rel, fuzzTime)
				// A found input is shrunk for at most 10s: a slow target would
				// otherwise sit at "0/sec" for the default minute.
				cmd := exec.Command(grade.GoTool(), "test", "-run", "^$", "-fuzz", "^"+target+"$", "-fuzztime", fuzzTime.String(), "-fuzzminimizetime", "10s", p.ImportPath)
				cmd.Dir = modDir
				cmd.Env = grade.LearnerEnv()
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = io.MultiWriter(stdout, &grade.LimitedBuffer{Buf: &out, Left: 1 << 20}), stderr
				if cmd.Run() == nil {
					continue
				}
				if stoppedByItsDeadline(out.String(), target) {
					fmt.Fprintf(stdout, "(go test said \"context deadline exceeded\" as its %v ended: Go's fuzzer racing its own time limit, go.dev/issue/75804, fixed in Go 1.27. It found nothing wrong.)\n", fuzzTime)
					continue
				}
				found = true
				if m := failingInput.FindSubmatch(out.Bytes()); m != nil {
					saved = append(saved, filepath.ToSlash(filepath.Join(rel, string(m[1]))))
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

// stoppedByItsDeadline says whether a failed fuzz run of target failed only
// as Go's fuzzer can at the end of -fuzztime (go.dev/issue/75804, before Go
// 1.27): "context deadline exceeded", with no case failing and no input
// saved, where a timeline the code gets wrong fails a case of its own.
func stoppedByItsDeadline(out, target string) bool {
	if failingInput.MatchString(out) || strings.Count(out, "--- FAIL: ") != 1 {
		return false
	}
	return regexp.MustCompile(`(?m)^--- FAIL: ` + regexp.QuoteMeta(target) + ` \([0-9.]+s\)\n\s+context deadline exceeded\nFAIL$`).MatchString(out)
}

// failingInput is go test's line naming the input it saved.
var failingInput = regexp.MustCompile(`Failing input written to (testdata/fuzz/\S+)`)

// listFuzzTargets names the fuzz targets of pkg.
func listFuzzTargets(root, pkg string) ([]string, error) {
	cmd := exec.Command(grade.GoTool(), "test", "-list", "^Fuzz", pkg)
	cmd.Dir = root
	cmd.Env = grade.LearnerEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go test -list ^Fuzz %s: %v\n%s", pkg, err, out)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Fuzz") {
			names = append(names, strings.TrimSpace(line))
		}
	}
	return names, nil
}

// significant matches a benchstat row whose change passed its test: a
// percentage before the p-value, where a row that did not shows "~".
var significant = regexp.MustCompile(`[+-][0-9.]+% \(p=`)

// withoutEmptyGeomean replaces benchstat's geomean rows with "no
// significant difference" when no row differs significantly: a geomean of
// changes that are all noise reads as a result when it is not one.
func withoutEmptyGeomean(table []byte) []byte {
	if significant.Match(table) {
		return table
	}
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(string(table), "\n") {
		if strings.HasPrefix(line, "geomean") {
			line = "no significant difference from the reference (each row's ~)\n"
		}
		out.WriteString(line)
	}
	return out.Bytes()
}
