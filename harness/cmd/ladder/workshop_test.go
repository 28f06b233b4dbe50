package main

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// insideCopyEnv is set while a student copy's make test runs, so that the
// copy does not make a copy of itself.
const insideCopyEnv = "LADDER_INSIDE_STUDENT_COPY"

// reportCacheEnv names the folder in which the class-report tests keep the
// build cache they share (class-report --cache). By default it is in the
// user's cache folder, beside Go's own build cache, and kept between runs:
// the first run builds the standard library with -trimpath, minutes on a
// busy machine, and later runs reuse it.
const reportCacheEnv = "LADDER_TEST_REPORT_CACHE"

// testTmp is a folder for the whole test binary, deleted by TestMain.
var testTmp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ladder-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testTmp = dir
	code := m.Run()
	removeAll(dir)
	os.Exit(code)
}

// reportCache is the build cache every class report of these tests shares.
func reportCache() string {
	if dir := os.Getenv(reportCacheEnv); dir != "" {
		return dir
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "rateladder", "class-report-test")
	}
	return filepath.Join(testTmp, "report-cache")
}

// skipSlow skips a test that builds and runs ladders when -short is set,
// or inside a student copy's make test, which the test that made the copy
// runs: the tests ran outside it already.
func skipSlow(t *testing.T, what string) {
	t.Helper()
	if testing.Short() || os.Getenv(insideCopyEnv) != "" {
		t.Skip(what)
	}
}

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

// checkNoSolutionImports fails if any Go file of the copy imports
// solutions/: a workshop copy must build without it. It reads the import
// declarations only: a test here holds such an import in a string.
func checkNoSolutionImports(t *testing.T, root string) {
	t.Helper()
	filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		for _, imp := range f.Imports {
			if importsSolutions.MatchString(imp.Path.Value) {
				t.Errorf("%s imports %s", path, imp.Path.Value)
			}
		}
		return nil
	})
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

// reference returns level 1's reference, or, in a copy without
// solutions/, a version that passes part 1: either is not the stub.
func reference(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "solutions/01-hit-counter/hitcounter.go"))
	if err != nil {
		return halfDone
	}
	return string(data)
}

// instructorRepo is a small instructor's checkout under git: the module
// files, the harness, levels 1 and 3, and their references when this
// repository has them.
func instructorRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := repoRoot(t)
	dir := t.TempDir()
	for _, p := range []string{"go.mod", "go.sum", "harness/clock", "harness/remote", "harness/timeline", "ladder/01-hit-counter", "ladder/03-token-bucket", "solutions/01-hit-counter", "solutions/03-token-bucket"} {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			copyTree(t, filepath.Join(root, p), filepath.Join(dir, p))
		}
	}
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "the ladder")
	return dir
}

// listFiles lists the files under dir, slash-separated, but .git/.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(files)
	return files
}

// refImport is the import path of level 1's reference, built from two
// pieces so that no file of the harness holds an import of solutions/.
const refImport = "github.com/rateladder/rateladder/" + "solutions/01-hit-counter"

// strayTest is a test folder left in the instructor's checkout that
// imports a reference.
const strayTest = "package scratch\n\nimport (\n\t\"testing\"\n\n\thitcounter \"" + refImport + "\"\n)\n\n" +
	"func TestReference(t *testing.T) { _ = hitcounter.New }\n"

func TestStudentCopyTakesTheLastCommitOnly(t *testing.T) {
	skipSlow(t, "runs the stub check")
	repo := instructorRepo(t)
	stub := filepath.Join(repo, "ladder/01-hit-counter/hitcounter.go")
	committed, err := os.ReadFile(stub)
	require.NoError(t, err)
	// What an instructor's checkout may hold beside the last commit: the
	// reference pasted over a stub, notes, a symlink to a reference, and a
	// stray test folder that imports one.
	require.NoError(t, os.WriteFile(stub, []byte(reference(t)), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "notes"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "notes/answers.md"), []byte("# Answers\n\n"+reference(t)), 0o644))
	require.NoError(t, os.Symlink("../../solutions/03-token-bucket/tokenbucket.go", filepath.Join(repo, "ladder/03-token-bucket/reference.go")))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "scratch"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "scratch/ref_test.go"), []byte(strayTest), 0o644))

	dest := filepath.Join(t.TempDir(), "workshop")
	out, code := runLadder(t, repo, "student-copy", dest)
	require.Equal(t, 0, code, out)
	for _, want := range []string{
		"warning: the working tree has uncommitted changes. The copy is made from the last commit",
		" M ladder/01-hit-counter/hitcounter.go",
		"?? notes/answers.md",
		"?? ladder/03-token-bucket/reference.go",
		"?? scratch/ref_test.go",
		fmt.Sprintf("Wrote %d files to %s: the ladder without solutions/, from commit ", committedOutsideSolutions(t, repo), dest),
	} {
		require.Contains(t, out, want)
	}
	got, err := os.ReadFile(filepath.Join(dest, "ladder/01-hit-counter/hitcounter.go"))
	require.NoError(t, err)
	require.Equal(t, string(committed), string(got), "the copy's stub is not the committed one")
	files := listFiles(t, dest)
	for _, f := range files {
		if strings.HasPrefix(f, "notes/") || strings.HasPrefix(f, "scratch/") || strings.HasPrefix(f, "solutions/") || strings.HasSuffix(f, "/reference.go") {
			t.Errorf("the copy has %s", f)
		}
	}
	require.Len(t, files, committedOutsideSolutions(t, repo))
	checkNoSolutionImports(t, dest)
	checkNoSolutionText(t, repoRoot(t), dest)
	require.Equal(t, "1\n", gitIn(t, dest, "rev-list", "--count", "HEAD"), "the copy is one commit")
	require.Empty(t, gitIn(t, dest, "status", "--porcelain"), "the copy's commit holds all of it")
}

// workingCounter passes every case of level 1, in a test file: the stub
// check must see that a case passed.
const workingCounter = `package hitcounter

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/ladder/01-hit-counter/spec"
)

type queue struct {
	window time.Duration
	hits   []time.Time
}

func (q *queue) Hit(now time.Time) { q.hits = append(q.hits, now) }

func (q *queue) Count(now time.Time) int {
	for len(q.hits) > 0 && !q.hits[0].After(now.Add(-q.window)) {
		q.hits = q.hits[1:]
	}
	return len(q.hits)
}

func TestHitCounter(t *testing.T) {
	spec.Test(t, func(w time.Duration) *queue {
		if w <= 0 {
			panic("bad window " + w.String())
		}
		return &queue{window: w}
	})
}
`

func TestStudentCopyRefusesWhatItMustNotHandOut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		slow  bool // runs the stub check
		setup func(t *testing.T, repo string)
		want  string
	}{
		{
			name: "a reference committed over a stub",
			setup: func(t *testing.T, repo string) {
				require.NoError(t, os.WriteFile(filepath.Join(repo, "ladder/01-hit-counter/hitcounter.go"), []byte(reference(t)), 0o644))
			},
			want: `ladder/01-hit-counter/hitcounter.go is not the stub as shipped (a function body other than panic("not implemented: ..."))`,
		},
		{
			name: "a file of code added to a level",
			setup: func(t *testing.T, repo string) {
				require.NoError(t, os.WriteFile(filepath.Join(repo, "ladder/01-hit-counter/ring.go"), []byte("package hitcounter\n\nfunc grow(n int) int { return 2 * n }\n"), 0o644))
			},
			want: `ladder/01-hit-counter/ring.go is not the stub as shipped`,
		},
		{
			name: "a committed symlink to a reference",
			setup: func(t *testing.T, repo string) {
				require.NoError(t, os.Symlink("../../solutions/03-token-bucket/tokenbucket.go", filepath.Join(repo, "ladder/03-token-bucket/reference.go")))
			},
			want: "ladder/03-token-bucket/reference.go is a symlink (to ../../solutions/03-token-bucket/tokenbucket.go): a student copy takes none",
		},
		{
			name: "a stray test folder that imports solutions/",
			setup: func(t *testing.T, repo string) {
				require.NoError(t, os.MkdirAll(filepath.Join(repo, "scratch"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(repo, "scratch/ref_test.go"), []byte(strayTest), 0o644))
			},
			want: "scratch/ref_test.go imports " + refImport + ": nothing handed out may import solutions/",
		},
		{
			name: "a test file that makes the stub pass",
			slow: true,
			setup: func(t *testing.T, repo string) {
				require.NoError(t, os.WriteFile(filepath.Join(repo, "ladder/01-hit-counter/hitcounter_test.go"), []byte(workingCounter), 0o644))
			},
			want: "ladder/01-hit-counter is not the stub as shipped: the stub check fails ",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.slow {
				skipSlow(t, "runs the stub check")
			}
			repo := instructorRepo(t)
			tc.setup(t, repo)
			gitIn(t, repo, "add", "-A")
			gitIn(t, repo, "commit", "-qm", tc.name)
			dest := filepath.Join(t.TempDir(), "workshop")
			out, code := runLadder(t, repo, "student-copy", dest)
			require.Equal(t, 1, code, out)
			require.Contains(t, out, "student-copy: refused, nothing written.")
			require.Contains(t, out, tc.want)
			_, err := os.Stat(dest)
			require.True(t, os.IsNotExist(err), "student-copy wrote %s", dest)
		})
	}
}

// forgedTest is a test file a student wrote to pass every part without
// code: empty subtests named like the spec's.
const forgedTest = `package hitcounter

import "testing"

func TestHitCounter(t *testing.T) {
	t.Run("part_1/all_good", func(t *testing.T) {})
	t.Run("part_2/all_good", func(t *testing.T) {})
}
`

// splitDone is halfDone in two files, the second one added by the student.
var splitDone = [2]string{
	strings.Split(halfDone, "func (c *Counter) Hit")[0],
	"package hitcounter\n\nimport \"time\"\n\nfunc (c *Counter) Hit" + strings.Split(halfDone, "func (c *Counter) Hit")[1],
}

func TestClassReportGradesWithTheInstructorsFiles(t *testing.T) {
	skipSlow(t, "runs the tests of three checkouts")
	instructor := gitLadder(t)
	class := t.TempDir()
	var dirs []string
	for _, name := range []string{"bob", "carol", "dave"} {
		dir := filepath.Join(class, name)
		copyTree(t, copyLadder(t), dir)
		dirs = append(dirs, dir)
	}
	write := func(student, file, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(class, student, "ladder/01-hit-counter", file), []byte(text), 0o644))
	}
	// bob passes part 1, with a file of his own beside the stub, and has
	// deleted the README's part headings.
	write("bob", "hitcounter.go", splitDone[0])
	write("bob", "hit.go", splitDone[1])
	readme, err := os.ReadFile(filepath.Join(instructor, "ladder/01-hit-counter/README.md"))
	require.NoError(t, err)
	write("bob", "README.md", regexp.MustCompile(`(?m)^## Part .*\n`).ReplaceAllString(string(readme), ""))
	// carol is done.
	write("carol", "hitcounter.go", reference(t))
	// dave kept the stub and made the tests pass without it.
	write("dave", "hitcounter_test.go", forgedTest)

	out, code := runLadder(t, instructor, append([]string{"class-report", "--cache", reportCache(), "--parallel", "3"}, dirs...)...)
	require.Equal(t, 0, code, out)
	carol := "| carol | 2/2* |  |  |  |  |  |  |  | 1 |  |" // part 2 counts allocations in carol's process
	if reference(t) == halfDone {
		carol = "| carol | 1/2 |  |  |  |  |  |  |  | - |  |"
	}
	want := "| student | L1 | L2 | L3 | L4 | L5 | L6 | L7 | L8 | last level done | note |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|\n" +
		"| bob | 1/2 |  |  |  |  |  |  |  | - |  |\n" +
		carol + "\n" +
		"| dave | 0/2 |  |  |  |  |  |  |  | - | tests edited: graded with the original tests (ladder/01-hit-counter/hitcounter_test.go) |\n"
	if reference(t) != halfDone {
		want += "\n" + inProcessFootnote + "\n"
	}
	require.Equal(t, want, out)

	out, code = runLadder(t, instructor, "class-report", "--cache", reportCache(), "--format", "csv", filepath.Join(class, "nobody"))
	require.Equal(t, 0, code, out)
	require.Equal(t, "student,level_1,level_2,level_3,level_4,level_5,level_6,level_7,level_8,last_level_done,note\n"+
		"nobody,,,,,,,,,-,not a rateladder checkout\n", out)
}

// initWrites is a student's stub whose init writes files where it can:
// relative to HOME, TMPDIR and its working folder, and, at an absolute
// path, what it saw.
const initWrites = `
func init() {
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	for _, p := range []string{
		filepath.Join(home, "from-init"),
		filepath.Join(os.TempDir(), "from-init"),
		"from-init",
		filepath.Join("..", "..", "from-init"),
	} {
		os.WriteFile(p, []byte("written by a student's init\n"), 0o644)
	}
	env := strings.Join(append(os.Environ(), "CWD="+wd), "\n")
	os.WriteFile(filepath.Join(SPY, "env"), []byte(env), 0o644)
}
`

// initSleeps is a student's stub whose init sleeps an hour, with a child
// process that does the same, after writing both process IDs.
const initSleeps = `
func init() {
	os.WriteFile(filepath.Join(SPY, "test.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	child := exec.Command("sleep", "3600")
	if child.Start() == nil {
		os.WriteFile(filepath.Join(SPY, "child.pid"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
	}
	time.Sleep(time.Hour)
}
`

// withInit adds an init function and the imports it needs to the stub.
func withInit(t *testing.T, stub []byte, spy, init string) string {
	t.Helper()
	src := strings.Replace(string(stub), `import "time"`, "import (\n\t\"os\"\n\t\"os/exec\"\n\t\"path/filepath\"\n\t\"strconv\"\n\t\"strings\"\n\t\"time\"\n)\n\nvar _ = exec.Command\nvar _ = strconv.Itoa\nvar _ = strings.Join", 1)
	require.NotEqual(t, string(stub), src, "the stub no longer imports time alone")
	return src + strings.ReplaceAll(init, "SPY", fmt.Sprintf("%q", spy))
}

func TestClassReportContainsTheStudentsCode(t *testing.T) {
	skipSlow(t, "runs the tests of two checkouts, one for 45s")
	if runtime.GOOS == "windows" {
		t.Skip("process groups, sh and sleep are Unix")
	}
	cache := reportCache() // before HOME moves
	instructor := gitLadder(t)
	class := t.TempDir()
	spy := t.TempDir() // outside everything: an absolute path reaches it
	home, tmp := t.TempDir(), t.TempDir()
	for _, name := range []string{"alice", "bob"} {
		copyTree(t, copyLadder(t), filepath.Join(class, name))
		require.NoError(t, os.MkdirAll(filepath.Join(spy, name), 0o755))
	}
	stub, err := os.ReadFile(filepath.Join(instructor, "ladder/01-hit-counter/hitcounter.go"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(class, "alice/ladder/01-hit-counter/hitcounter.go"), []byte(withInit(t, stub, filepath.Join(spy, "alice"), initWrites)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(class, "bob/ladder/01-hit-counter/hitcounter.go"), []byte(withInit(t, stub, filepath.Join(spy, "bob"), initSleeps)), 0o644))
	before := map[string][]string{}
	for _, d := range []string{filepath.Join(class, "alice"), filepath.Join(class, "bob"), instructor} {
		before[d] = listFiles(t, d)
	}

	// The instructor's Go caches stay where they are; HOME and TMPDIR move
	// to empty folders, to see what is left in them afterwards.
	for _, name := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", name).Output()
		require.NoError(t, err)
		t.Setenv(name, strings.TrimSpace(string(out)))
	}
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", tmp)
	// The go command the report runs as the instructor (go mod download)
	// keeps telemetry counters in the configuration folder, under HOME.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GITHUB_TOKEN", "ghp_not_for_students")
	t.Setenv("RATELADDER_API_KEY", "not for students")
	t.Setenv("SSH_AUTH_SOCK", filepath.Join(tmp, "agent.sock"))

	start := time.Now()
	out, code := runLadder(t, instructor, "class-report", "--cache", cache, "--timeout", "45s", filepath.Join(class, "alice"), filepath.Join(class, "bob"))
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "| alice | 0/2 |  |  |  |  |  |  |  | - |  |\n")
	// A run that was stopped counts for nothing: no cell, only the note.
	require.Contains(t, out, "| bob |  |  |  |  |  |  |  |  | - | stopped after 45s |\n")

	// alice's init ran in a sandbox: a minimal environment, and every
	// folder it knew of inside the report's temporary folder.
	envData, err := os.ReadFile(filepath.Join(spy, "alice/env"))
	require.NoError(t, err, "alice's init did not run")
	env := map[string]string{}
	for _, kv := range strings.Split(string(envData), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, k := range []string{"GITHUB_TOKEN", "RATELADDER_API_KEY", "SSH_AUTH_SOCK"} {
		if _, ok := env[k]; ok {
			t.Errorf("the student's code saw %s", k)
		}
	}
	for _, k := range []string{"HOME", "TMPDIR", "GOCACHE", "GOMODCACHE", "CWD"} {
		if !strings.HasPrefix(env[k], tmp+string(filepath.Separator)+"ladder-report-") {
			t.Errorf("the student's code saw %s=%s, want a folder in the report's temporary folder under %s", k, env[k], tmp)
		}
	}

	// bob's test binary and its child were killed at the limit.
	info, err := os.Stat(filepath.Join(spy, "bob/test.pid"))
	if err != nil {
		t.Fatalf("bob's test binary never started within the 45s limit (a very slow machine?): %v", err)
	}
	t.Logf("bob's test binary started %v after the report", info.ModTime().Sub(start).Round(time.Second))
	waitGone(t, readPID(t, filepath.Join(spy, "bob/test.pid")))
	waitGone(t, readPID(t, filepath.Join(spy, "bob/child.pid")))

	// Nothing is left on disk: not in HOME, not in TMPDIR (the report's
	// folder, its build folders and what the init wrote there are gone),
	// not in the students' or the instructor's folders.
	require.Empty(t, listFiles(t, home), "files left in HOME")
	require.Empty(t, listFiles(t, tmp), "files left in TMPDIR")
	for d, files := range before {
		require.Equal(t, files, listFiles(t, d), "files changed in %s", d)
	}
	require.Empty(t, gitIn(t, instructor, "status", "--porcelain", "--untracked-files=all"))
}

// committedOutsideSolutions counts the files of the last commit of repo
// that a student copy takes: all but solutions/.
func committedOutsideSolutions(t *testing.T, repo string) int {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "ls-files").Output()
	require.NoError(t, err)
	n := 0
	for _, f := range strings.Fields(string(out)) {
		if !strings.HasPrefix(f, "solutions/") {
			n++
		}
	}
	return n
}
