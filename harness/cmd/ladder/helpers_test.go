package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// The helpers the package's tests share: where the repository is, copies
// of it, and running the ladder command, make, git or a shell in a copy.

// slow skips a test under -short, saying why it takes long, and where a
// command it runs (tools) is not on the PATH.
func slow(t *testing.T, why string, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	needTools(t, tools...)
}

// needTools skips a test where a command it runs is not on the PATH.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if !onPath(tool) {
			t.Skip("no " + tool + " on the PATH")
		}
	}
}

// onPath reports whether a command is on the PATH.
func onPath(tool string) bool {
	_, err := exec.LookPath(tool)
	return err == nil
}

// gitFiles is what git ls-files lists in dir with args, as slash paths.
// The error is git's, where dir has no git history.
func gitFiles(dir string, args ...string) ([]string, error) {
	out, err := shipped.Git(dir, append([]string{"ls-files", "-z"}, args...)...)
	return strings.FieldsFunc(out, func(r rune) bool { return r == 0 }), err
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "go.mod"))
	require.NoError(t, err, "the ladder command's tests run from harness/cmd/ladder")
	return dir
}

// copyTree copies a file, or a folder and all below it, as the class
// report copies a folder; src must exist.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	_, err := os.Stat(src)
	require.NoError(t, err)
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(target), 0o755)
		}
		if err == nil {
			err = os.WriteFile(target, data, info.Mode().Perm())
		}
		return err
	}))
}

// copyLadder makes a small ladder in a temporary folder: the module files,
// the harness and level 1, as a learner's checkout has them.
func copyLadder(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	dst := t.TempDir()
	for _, p := range []string{"go.mod", "go.sum", "harness/clock", "harness/internal/procgroup", "harness/levels", "harness/internal/instructor/remote", "harness/timeline", "ladder/01-hit-counter"} {
		copyTree(t, filepath.Join(root, p), filepath.Join(dst, p))
	}
	return dst
}

// txtarFiles reads a txtar archive: after a comment, each file follows a
// line "-- NAME --". It returns the files' text by name.
func txtarFiles(t *testing.T, path string) (map[string]string, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	files := map[string]string{}
	for _, f := range strings.Split(string(data), "\n-- ")[1:] {
		name, text, ok := strings.Cut(f, " --\n")
		require.True(t, ok, "%s: a file header without its end: -- %s", path, name)
		files[name] = strings.TrimSuffix(text, "\n") + "\n"
	}
	return files, err
}

// fixtureDir writes testdata/fixture.txtar, the files of fixtureLevels,
// into a new folder, and returns it.
func fixtureDir(t *testing.T) string {
	t.Helper()
	files, err := txtarFiles(t, filepath.Join("testdata", "fixture.txtar"))
	require.NoError(t, err)
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		addFile(t, dir, filepath.FromSlash(name), text)
	}
	return dir
}

// fixtureLevels is the ladder the tests that must not depend on the live
// one play: level 1 is ladder/01-tally of testdata/fixture.txtar, whose
// files the tests read and grade; level 2 has a README and hints alone,
// for interviews graded by a fake; levels 3 and 4 are registry entries
// alone.
var fixtureLevels = []levels.Level{
	{Number: 1, Dir: "ladder/01-tally", Title: "Tally", Modules: []levels.Module{{Dir: ".", FirstPart: 1}},
		Parts: []levels.Part{{Number: 1, Title: "Count the calls"}, {Number: 2, Title: "Start again"}}},
	threeParts(2), threeParts(3), threeParts(4),
}

// threeParts is fixture level n: parts First, Second and Third.
func threeParts(n int) levels.Level {
	l := levels.Level{Number: n, Dir: fmt.Sprintf("ladder/%02d-fixture", n), Title: fmt.Sprintf("Fixture %d", n)}
	for i, title := range []string{"First", "Second", "Third"} {
		l.Parts = append(l.Parts, levels.Part{Number: i + 1, Title: title})
	}
	return l
}

// useFixture makes fixtureLevels the ladder until the test ends, and
// returns its level 1. Tests that use it run in this process, and never
// in parallel.
func useFixture(t *testing.T) levels.Level {
	t.Helper()
	live := levels.All
	levels.All = fixtureLevels
	t.Cleanup(func() { levels.All = live })
	return fixtureLevels[0]
}

// fixtureLadder is copyLadder with the fixture level in place of the live
// one, and useFixture's ladder.
func fixtureLadder(t *testing.T) (string, levels.Level) {
	t.Helper()
	root := repoRoot(t)
	dst := t.TempDir()
	for _, p := range []string{"go.mod", "go.sum", "harness/clock", "harness/internal/procgroup", "harness/levels", "harness/internal/instructor/remote", "harness/timeline"} {
		copyTree(t, filepath.Join(root, p), filepath.Join(dst, p))
	}
	copyTree(t, fixtureDir(t), dst)
	return dst, useFixture(t)
}

// copyRepo copies the module files, the Makefile, the harness and the
// given paths of the repository into a temporary folder.
func copyRepo(t *testing.T, paths ...string) string {
	t.Helper()
	root := repoRoot(t)
	dst := t.TempDir()
	for _, p := range append([]string{"go.mod", "go.sum", "Makefile", "harness"}, paths...) {
		copyTree(t, filepath.Join(root, p), filepath.Join(dst, p))
	}
	return dst
}

// gitLadder is copyLadder under git, as a learner's clone is.
func gitLadder(t *testing.T) string {
	t.Helper()
	return clonedRepo(t, "ladder", func(dir string) { copyTree(t, copyLadder(t), dir) })
}

// templates are the git repositories clonedRepo clones, by key.
var templates = map[string]string{}

// clonedRepo returns a new clone of a repository of one commit, which
// build fills, and which is made once per test binary for each key: a
// clone costs one git process, where a copy and a commit cost a walk of
// the files and three. Tests that use it run one at a time.
func clonedRepo(t *testing.T, key string, build func(dir string)) string {
	t.Helper()
	needTools(t, "git")
	tmpl, ok := templates[key]
	if !ok {
		tmpl = filepath.Join(testTmp, "template-"+key)
		build(tmpl)
		gitCommitAll(t, tmpl)
		templates[key] = tmpl
	}
	dir := filepath.Join(t.TempDir(), "repo")
	gitIn(t, "", "clone", "-q", tmpl, dir)
	return dir
}

// gitCommitAll makes dir a git repository of one commit that holds it all.
func gitCommitAll(t *testing.T, dir string) {
	t.Helper()
	needTools(t, "git")
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "ladder")
}

// gitIn runs git in dir and fails the test if it fails.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "-c", "maintenance.auto=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = instructor.WithoutGitRepoEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// edit rewrites a file of the copy: each pair replaces old with new once.
func edit(t *testing.T, path string, pairs ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(data)
	for i := 0; i+1 < len(pairs); i += 2 {
		require.Contains(t, s, pairs[i], "edit of %s", path)
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
}

func addFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644))
}

// runLadder runs the ladder command in this process, in dir, and returns
// its stdout and stderr together and its exit code.
func runLadder(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	wd, _ := os.Getwd()
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	root, _ := os.Getwd()
	code := runAt(root, args, &out, &errOut)
	return out.String() + errOut.String(), code
}

// runIn runs a command in dir, in the environment a learner's has, and
// returns its output and exit code.
func runIn(t *testing.T, dir string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	// A make that runs these tests (make test-e2e) must not make the
	// make they run a sub-make, which prints "Entering directory".
	var env []string
	for _, kv := range grade.LearnerEnv() {
		if !strings.HasPrefix(kv, "MAKE") && !strings.HasPrefix(kv, "MFLAGS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s %v:\n%s", name, args, out)
		code = exit.ExitCode()
	}
	return string(out), code
}

// containsAll reports each of wants that out lacks, with out, in one
// message.
func containsAll(t *testing.T, out string, wants ...string) {
	t.Helper()
	var missing []string
	for _, want := range wants {
		if !strings.Contains(out, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the output lacks %q:\n%s", missing, out)
	}
}
