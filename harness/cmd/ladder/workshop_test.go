package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// insideCopyEnv is set while a student copy's make test runs, so that the
// copy does not make a copy of itself.
const insideCopyEnv = "LADDER_INSIDE_STUDENT_COPY"

func TestStudentCopyPassesItsOwnMakeTest(t *testing.T) {
	if testing.Short() || os.Getenv(insideCopyEnv) != "" {
		t.Skip("builds a student copy and runs its make test")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	root := repoRoot(t)
	dest := filepath.Join(t.TempDir(), "student")
	out, code := runLadder(t, root, "student-copy", dest)
	require.Equal(t, 0, code, out)

	if _, err := os.Stat(filepath.Join(dest, "solutions")); !os.IsNotExist(err) {
		t.Fatalf("the student copy has a solutions/ folder")
	}
	checkNoSolutionImports(t, dest)
	checkNoSolutionText(t, root, dest)

	cmd := exec.Command("make", "test")
	cmd.Dir = dest
	cmd.Env = append(os.Environ(), insideCopyEnv+"=1")
	outb, err := cmd.CombinedOutput()
	require.NoError(t, err, "make test in the student copy:\n%s", outb)
	for _, want := range []string{"no solutions/ here (a student copy)", "make test: all green"} {
		require.Contains(t, string(outb), want)
	}
}

// importsSolutions matches an import path of a solutions package: the
// module path, then /solutions/ and the level's folder.
var importsSolutions = regexp.MustCompile(`"[a-z0-9.-]+\.[a-z]+/[^"\s]*/solutions(/[^"\s]*)?"`)

// checkNoSolutionImports fails if any Go file under ladder/ or harness/
// imports solutions/: a workshop copy must build without it.
func checkNoSolutionImports(t *testing.T, root string) {
	t.Helper()
	for _, top := range []string{"ladder", "harness"} {
		filepath.Walk(filepath.Join(root, top), func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			data, _ := os.ReadFile(path)
			if m := importsSolutions.Find(data); m != nil {
				t.Errorf("%s imports %s", path, m)
			}
			return nil
		})
	}
}

// checkNoSolutionText fails if a file of the copy shares a good part of a
// reference solution's code that its stub does not have: a reference
// pasted over a stub, or into a README. Comments and short lines ("return
// nil", "}") are everyone's, and a few shared lines are a coincidence: a
// spec's brute-force model may well write floorDiv the same way.
func checkNoSolutionText(t *testing.T, root, dest string) {
	t.Helper()
	secret := map[string]string{}
	secretLines := map[string]int{} // per reference file
	refs, _ := filepath.Glob(filepath.Join(root, "solutions", "*", "*.go"))
	for _, ref := range refs {
		if strings.HasSuffix(ref, "_test.go") {
			continue // the tiny test file is the same in ladder/ by design
		}
		stubLines := lineSet(filepath.Join(root, "ladder", filepath.Base(filepath.Dir(ref)), filepath.Base(ref)))
		for line := range lineSet(ref) {
			if len(line) >= 30 && !strings.HasPrefix(line, "//") && !stubLines[line] {
				secret[line] = ref
				secretLines[ref]++
			}
		}
	}
	filepath.Walk(dest, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || strings.Contains(path, "/.git/") {
			return nil
		}
		shared := map[string][]string{}
		for line := range lineSet(path) {
			if ref, ok := secret[line]; ok {
				shared[ref] = append(shared[ref], line)
			}
		}
		for ref, lines := range shared {
			// A leak is a fifth of the reference's own lines, or ten.
			if len(lines) >= min(10, max(3, secretLines[ref]/5)) {
				t.Errorf("%s has %d lines of %s, such as %q", path, len(lines), ref, lines[0])
			}
		}
		return nil
	})
}

func lineSet(path string) map[string]bool {
	set := map[string]bool{}
	f, err := os.Open(path)
	if err != nil {
		return set
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		set[strings.TrimSpace(sc.Text())] = true
	}
	return set
}

func TestClassReportShowsEachStudentsState(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three checkouts' tests")
	}
	class := t.TempDir()
	var dirs []string
	for _, name := range []string{"alice", "bob", "carol"} {
		dir := filepath.Join(class, name)
		copyTree(t, copyLadder(t), dir)
		dirs = append(dirs, dir)
	}
	stub := "ladder/01-hit-counter/hitcounter.go"
	require.NoError(t, os.WriteFile(filepath.Join(class, "bob", stub), []byte(halfDone), 0o644))
	ref, err := os.ReadFile(filepath.Join(repoRoot(t), "solutions/01-hit-counter/hitcounter.go"))
	carolDone := err == nil
	if carolDone {
		require.NoError(t, os.WriteFile(filepath.Join(class, "carol", stub), ref, 0o644))
	}

	out, code := runLadder(t, class, append([]string{"class-report"}, dirs...)...)
	require.Equal(t, 0, code, out)
	want := []string{
		"| alice | 0/2 | 0/2 | 0/3 | 0/3 | 0/3 | 0/3 | 0/3 | 0/8 | - |  |",
		"| bob | 1/2 | 0/2 | 0/3 | 0/3 | 0/3 | 0/3 | 0/3 | 0/8 | - |  |",
	}
	if carolDone {
		want = append(want, "| carol | 2/2 | 0/2 | 0/3 | 0/3 | 0/3 | 0/3 | 0/3 | 0/8 | 1 |  |")
	}
	for _, w := range want {
		require.Contains(t, out, w)
	}

	out, code = runLadder(t, class, "class-report", "--format", "csv", dirs[1], filepath.Join(class, "nobody"))
	require.Equal(t, 0, code, out)
	require.Equal(t, "student,level_1,level_2,level_3,level_4,level_5,level_6,level_7,level_8,last_level_done,note\n"+
		"bob,1/2,0/2,0/3,0/3,0/3,0/3,0/3,0/8,-,\n"+
		"nobody,,,,,,,,,-,not a rateladder checkout\n", out)
}
