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

// learnerCmd runs name in dir, in the environment the learner's code runs in.
func learnerCmd(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
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

	type side struct {
		name, dir   string
		pkgs        []string
		out, failed bytes.Buffer
	}
	sides := []*side{{name: "yours", dir: l.Dir}}
	if hasReference(c.root, l) {
		sides = append([]*side{{name: "reference", dir: l.SolutionDir()}}, sides...)
	} else {
		fmt.Fprintf(c.stdout, "There is no %s here (a workshop copy?), so these are your numbers alone.\n", l.SolutionDir())
	}
	for _, s := range sides {
		pkgs, err := grade.ListPackages(context.Background(), c.root, c.root, []string{"./" + s.dir + "/..."}, grade.Plain)
		if err != nil {
			fmt.Fprintln(c.stdout, err)
		}
		for _, p := range pkgs {
			s.pkgs = append(s.pkgs, p.ImportPath)
		}
	}
	fmt.Fprintf(c.stdout, "benchmarking %d runs of %s each, taking turns...\n", *count, *benchTime)
	for range *count {
		for _, s := range sides {
			var out bytes.Buffer
			// -p 1: one package's benchmarks at a time.
			cmd := learnerCmd(c.root, grade.GoTool(), append([]string{"test", "-p", "1", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1", "-benchtime", *benchTime}, s.pkgs...)...)
			if cmd.Stdout, cmd.Stderr = &out, &out; len(s.pkgs) > 0 && cmd.Run() != nil {
				s.failed.Write(out.Bytes())
			}
			// One pkg: line for both sides, so that benchstat puts the
			// same benchmark of the two packages side by side.
			s.out.WriteString(pkgLineRE.ReplaceAllString(out.String(), fmt.Sprintf("pkg: level %d", l.Number)))
		}
	}
	args := []string{"run", benchstat}
	for _, s := range sides {
		if s.failed.Len() > 0 {
			fmt.Fprintf(c.stdout, "%s: some benchmarks failed:\n%s\n", s.dir, grade.Indent(grade.FirstLines(failureLines(s.failed.String()), 8), "  "))
		}
		if s.out.Len() > 0 {
			file := filepath.Join(tmp, s.name)
			c.check("", os.WriteFile(file, s.out.Bytes(), 0o644))
			args = append(args, s.name+"="+file)
		}
	}
	if len(args) == 2 {
		fmt.Fprintln(c.stdout, "No benchmark ran.")
		return 1
	}
	fmt.Fprintln(c.stdout)
	cmd := exec.Command(grade.GoTool(), args...)
	var table bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = c.root, &table, c.stderr
	c.check("benchstat:", cmd.Run())
	c.stdout.Write(withoutEmptyGeomean(table.Bytes()))
	fmt.Fprintln(c.stdout, "\nsec/op and B/op: lower is better; the column after yours is the change from the reference.")
	if rows := benchRows[l.Number]; len(rows) > 0 {
		fmt.Fprintln(c.stdout, "\nThe rows (the clock starts on 3 March 2025, not at the epoch):")
		for _, r := range rows {
			fmt.Fprintf(c.stdout, "  %s: %s\n", r.Name, r.Means)
		}
	}
	return 0
}

var pkgLineRE = regexp.MustCompile(`(?m)^pkg: .*$`)

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
		level, row, _ := strings.Cut(line, " ")
		name, means, ok := strings.Cut(row, ": ")
		if n, err := strconv.Atoi(level); err == nil && ok {
			rows[n] = append(rows[n], benchRow{name, means})
		}
	}
	return rows
}()

// failureLines keeps the lines of go test output that say what failed.
func failureLines(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.Contains(t, "not implemented") || strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "panic:") || strings.Contains(t, "[build failed]") || strings.Contains(t, ".go:") {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "\n")
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
	return regexp.MustCompile(`(?m)^geomean.*$`).ReplaceAll(table, []byte("no significant difference from the reference (each row's ~)"))
}

// cmdFuzz runs each of a level's fuzz targets against the learner's code
// for a bounded time. go test keeps a failing input under the package's
// testdata/fuzz, so make test-level-N runs it from then on. A later module
// (level 8's Redis form) is fuzzed once the parts before it pass.
func cmdFuzz(c *call) int {
	fuzzTime := c.fs.Duration("time", 30*time.Second, "how long to fuzz each target")
	l := c.level(nil)
	var saved []string
	found, ran := false, 0
	inProgress := -1 // not known yet
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
			rel := grade.RelDir(c.root, p.Dir)
			list, err := learnerCmd(modDir, grade.GoTool(), "test", "-list", "^Fuzz", p.ImportPath).Output()
			if err != nil {
				c.fail(1, "go test -list ^Fuzz %s: %v\n%s", p.ImportPath, err, list)
			}
			for _, target := range strings.Fields(string(list)) {
				if !strings.HasPrefix(target, "Fuzz") {
					continue // the ok line
				}
				ran++
				fmt.Fprintf(c.stdout, "fuzzing %s in %s for %v\n", target, rel, *fuzzTime)
				// A found input is shrunk for at most 10s: a slow target would
				// otherwise sit at "0/sec" for the default minute.
				cmd := learnerCmd(modDir, grade.GoTool(), "test", "-run", "^$", "-fuzz", "^"+target+"$", "-fuzztime", fuzzTime.String(), "-fuzzminimizetime", "10s", p.ImportPath)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = io.MultiWriter(c.stdout, &grade.LimitedBuffer{Buf: &out, Left: 1 << 20}), c.stderr
				if cmd.Run() == nil {
					continue
				}
				if stoppedByItsDeadline(out.String(), target) {
					fmt.Fprintf(c.stdout, "(go test said \"context deadline exceeded\" as its %v ended: Go's fuzzer racing its own time limit, go.dev/issue/75804, fixed in Go 1.27. It found nothing wrong.)\n", *fuzzTime)
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
		fmt.Fprintf(c.stdout, "Level %d has no fuzz target.\n", l.Number)
	case found && len(saved) > 0:
		fmt.Fprintf(c.stdout, "\nThe fuzzer found a timeline your code gets wrong (above). go test saved it as %s, so make test-level-%d runs it from now on.\n", strings.Join(saved, " and "), l.Number)
		return 1
	case found:
		fmt.Fprintf(c.stdout, "\nYour code gets a timeline wrong (above): one of the spec's own seed timelines, which make test-level-%d runs every time, so nothing new was saved.\n", l.Number)
		return 1
	default:
		fmt.Fprintf(c.stdout, "\nThe fuzzer found nothing wrong in %v per target.\n", *fuzzTime)
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
