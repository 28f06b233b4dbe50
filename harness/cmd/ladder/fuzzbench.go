package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// benchstat is run at a pinned version, so nothing is installed by hand and
// everyone's tables come from the same code.
const benchstat = "golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

// cmdFuzz runs each of a level's fuzz targets against the learner's code
// for a bounded time. A timeline the fuzzer finds is printed by the runner
// like any failing case, with Go source to paste into the spec, and go test
// keeps the input under testdata/fuzz, so the next run tries it first.
func cmdFuzz(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fuzzTime := fs.Duration("time", 30*time.Second, "how long to fuzz each target")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: ladder fuzz [--time 30s] LEVEL")
		return 2
	}
	l, err := findLevel(root, fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	pkgs, err := listPackages(root, []string{l.Dir})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	found := false
	ran := 0
	for _, pkg := range pkgs {
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

var pkgLineRE = regexp.MustCompile(`(?m)^pkg: .*$`)

// cmdBench runs a level's benchmarks on the learner's code and on the
// reference in the same run, and shows them side by side with benchstat.
func cmdBench(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	count := fs.Int("count", 6, "runs of each benchmark; benchstat wants six or more")
	benchTime := fs.String("benchtime", "100ms", "go test -benchtime for each run")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: ladder bench [--count 6] [--benchtime 100ms] LEVEL")
		return 2
	}
	l, err := findLevel(root, fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "ladder-bench-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)

	bench := func(name, levelDir string) (string, error) {
		pkgs, err := listPackages(root, []string{levelDir})
		if err != nil {
			return "", err
		}
		file := filepath.Join(dir, name)
		fmt.Fprintf(stdout, "benchmarking %s (%d runs of %s each)...\n", levelDir, *count, *benchTime)
		cmd := exec.Command(goTool(), append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem",
			"-count", fmt.Sprint(*count), "-benchtime", *benchTime}, pkgs...)...)
		cmd.Dir = root
		cmd.Env = learnerEnv()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		runErr := cmd.Run()
		// One pkg: line for both runs, so that benchstat puts the same
		// benchmark of the two packages side by side.
		text := pkgLineRE.ReplaceAllString(out.String(), "pkg: level "+fmt.Sprint(l.Number))
		if werr := os.WriteFile(file, []byte(text), 0o644); werr != nil {
			return "", werr
		}
		if runErr != nil {
			return file, fmt.Errorf("%s: some benchmarks failed:\n%s", levelDir, indent(firstLines(failureLines(out.String()), 8), "  "))
		}
		return file, nil
	}

	refDir := "solutions/" + filepath.Base(l.Dir)
	var inputs []string
	if _, err := os.Stat(filepath.Join(root, refDir)); err == nil {
		ref, err := bench("reference", refDir)
		if err != nil {
			fmt.Fprintln(stdout, err)
		}
		if ref != "" {
			inputs = append(inputs, "reference="+ref)
		}
	} else {
		fmt.Fprintf(stdout, "There is no %s here (a workshop copy?), so these are your numbers alone.\n", refDir)
	}
	yours, err := bench("yours", l.Dir)
	if err != nil {
		fmt.Fprintln(stdout, err)
	}
	if yours != "" {
		inputs = append(inputs, "yours="+yours)
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

// cmdCompare shows the learner's files beside the reference, as a unified
// diff. Before the level is done it asks first: the reference is a
// spoiler.
func cmdCompare(root string, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: ladder compare LEVEL")
		return 2
	}
	l, err := findLevel(root, args[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	refDir := "solutions/" + filepath.Base(l.Dir)
	if _, err := os.Stat(filepath.Join(root, refDir)); err != nil {
		fmt.Fprintf(stdout, "There is no %s here (a workshop copy?): ask your instructor for the reference.\n", refDir)
		return 0
	}
	fmt.Fprintf(stdout, "Checking level %d first...\n", l.Number)
	lr := testLevel(root, l, false, io.Discard, stderr)
	if lr.Status != statusDone {
		fmt.Fprintf(stdout, "The level is not done yet (%d of %d parts); show the reference anyway? [y/N] ", lr.PartsDone, len(lr.Parts))
		if !yes() {
			fmt.Fprintln(stdout, "Not shown. make hint-"+fmt.Sprint(l.Number)+" may help instead.")
			return 0
		}
	}
	files, err := stubFiles(root, l)
	if err != nil {
		files = goFiles(root, l.Dir)
	}
	for _, f := range files {
		ref := filepath.Join(refDir, strings.TrimPrefix(f, l.Dir+"/"))
		fmt.Fprintf(stdout, "\n=== %s (-reference +yours)\n", f)
		if err := unifiedDiff(root, ref, f, stdout); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	return 0
}

// goFiles lists the non-test .go files under dir, for a folder without git.
func goFiles(root, dir string) []string {
	var files []string
	filepath.Walk(filepath.Join(root, dir), func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.Contains(path, "/spec/") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files
}

// unifiedDiff writes a unified diff of two files with git, or diff where
// git is missing. Files that differ are the expected case, not an error.
func unifiedDiff(root, a, b string, w io.Writer) error {
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--", a, b)
	if _, err := exec.LookPath("git"); err != nil {
		cmd = exec.Command("diff", "-u", a, b)
	}
	cmd.Dir = root
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("diff %s %s: %v %s", a, b, err, stderr.String())
	}
	fmt.Fprintln(w, "(the same)")
	return nil
}
