package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
)

// cmdCompare shows the learner's files beside the reference, as a unified
// diff. Before the level is done it asks first: the reference is a
// spoiler.
func cmdCompare(root string, args []string, stdout, stderr io.Writer) int {
	l, ok := levelArg("compare", args, stderr, nil, "", nil)
	if !ok {
		return 2
	}
	refDir := l.SolutionDir()
	if !hasReference(root, l) {
		fmt.Fprintf(stdout, "This copy has no reference for level %d (a workshop copy?): ask your instructor for it.\n", l.Number)
		return 0
	}
	fmt.Fprintf(stdout, "Checking level %d first...\n", l.Number)
	g, err := grade.TestLevel(root, l, 0)
	if err != nil {
		return failed(stderr, "", err)
	}
	if g.Status() != grade.Done {
		fmt.Fprintf(stdout, "The level is not done yet (%d of %d parts); show the reference anyway? [y/N] ", g.PartsDone(), len(g.Parts))
		if !yes() {
			fmt.Fprintln(stdout, "Not shown. make hint-"+fmt.Sprint(l.Number)+" may help instead.")
			return 0
		}
	}
	// The level's code files as they are, and the reference's own, such
	// as level 3's exact.go: a side without the file diffs as empty.
	names := map[string]bool{}
	filepath.WalkDir(filepath.Join(root, l.Dir), func(p string, d fs.DirEntry, err error) error {
		if rel, _ := filepath.Rel(root, p); err == nil && l.HasRole(filepath.ToSlash(rel), levels.Code) {
			names[strings.TrimPrefix(filepath.ToSlash(rel), l.Dir+"/")] = true
		}
		return nil
	})
	refGo, _ := filepath.Glob(filepath.Join(root, refDir, "*.go"))
	for _, f := range refGo {
		if name := filepath.Base(f); !strings.HasSuffix(name, "_test.go") {
			names[name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		fmt.Fprintf(stdout, "\n=== %s/%s (-reference +yours)\n", l.Dir, name)
		sides := []string{refDir + "/" + name, l.Dir + "/" + name}
		for i, p := range sides {
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				sides[i] = os.DevNull
			}
		}
		if err := unifiedDiff(root, sides[0], sides[1], stdout); err != nil {
			return failed(stderr, "", err)
		}
	}
	return 0
}

// hasReference says whether this copy has the level's reference (a
// student copy has none).
func hasReference(root string, l levels.Level) bool {
	_, err := os.Stat(filepath.Join(root, l.SolutionDir()))
	return err == nil
}

// unifiedDiff writes a unified diff of two files with git, or diff where
// git is missing. Files that differ are the expected case, not an error.
func unifiedDiff(root, a, b string, w io.Writer) error {
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--", a, b)
	if _, err := exec.LookPath("git"); err != nil {
		cmd = exec.Command("diff", "-u", a, b)
	}
	var stderr bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, w, &stderr
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
