package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"go/parser"
	"go/token"
	"html"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
	instr "github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/sandbox/sandboxtest"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
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
	sandbox.RemoveAll(dir)
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
	skipSlow(t, "builds a student copy and runs its make test")
	needTools(t, "make")
	root := repoRoot(t)
	dest := filepath.Join(t.TempDir(), "student")
	out, code := runLadder(t, root, "student-copy", dest)
	require.Equal(t, 0, code, out)

	if _, err := os.Stat(filepath.Join(dest, "solutions")); !os.IsNotExist(err) {
		t.Fatalf("the student copy has a solutions/ folder")
	}
	checkNoSolutionImports(t, dest)
	checkNoSolutionText(t, root, dest)
	checkNoAnswers(t, dest)

	cmd := exec.Command("make", "test")
	cmd.Dir = dest
	cmd.Env = append(os.Environ(), insideCopyEnv+"=1")
	outb, err := cmd.CombinedOutput()
	require.NoError(t, err, "make test in the student copy:\n%s", outb)
	containsAll(t, string(outb), "no solutions/ here (a student copy)", "make test: all green")
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
		return halfDone(t)
	}
	return string(data)
}

// instructorRepo is a small instructor's checkout under git: the module
// files, the harness, levels 1 and 3, and their references when this
// repository has them.
func instructorRepo(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	return clonedRepo(t, "instructor", func(dir string) {
		for _, p := range []string{"go.mod", "go.sum", "harness/clock", "harness/internal/procgroup", "harness/levels", "harness/internal/instructor/remote", "harness/timeline", "ladder/01-hit-counter", "ladder/03-token-bucket", "solutions/01-hit-counter", "solutions/03-token-bucket"} {
			if _, err := os.Stat(filepath.Join(root, p)); err == nil {
				copyTree(t, filepath.Join(root, p), filepath.Join(dir, p))
			}
		}
	})
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
	containsAll(t, out,
		"warning: the working tree has uncommitted changes. The copy is made from the last commit",
		" M ladder/01-hit-counter/hitcounter.go",
		"?? notes/answers.md",
		"?? ladder/03-token-bucket/reference.go",
		"?? scratch/ref_test.go",
		fmt.Sprintf("Wrote %d files to %s: the ladder without solutions/, from commit ", committedOutsideSolutions(t, repo), dest),
	)
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

// TestStudentCopyRefusesWhatItMustNotHandOut: student-copy refuses a
// commit that holds any of these, and writes nothing. The command runs
// end to end on the first; the rest are played on the commit's files, as
// it reads them, through the same two checks.
func TestStudentCopyRefusesWhatItMustNotHandOut(t *testing.T) {
	const stubPath = "ladder/01-hit-counter/hitcounter.go"
	repo := instructorRepo(t)
	tree, err := shipped.GitTree(repo, "HEAD")
	require.NoError(t, err)
	modPath, err := shipped.ModulePath(repo)
	require.NoError(t, err)
	stub, err := os.ReadFile(filepath.Join(repo, stubPath))
	require.NoError(t, err)
	self, err := os.ReadFile(executable(t))
	require.NoError(t, err)
	for i, tc := range []struct {
		name string
		slow bool // runs the stub check
		file shipped.TreeEntry
		want string
	}{
		{
			name: "a reference committed over a stub",
			file: shipped.TreeEntry{Path: stubPath, Data: []byte(reference(t))},
			want: `ladder/01-hit-counter/hitcounter.go is not the stub as shipped (a function body other than panic("not implemented: ..."))`,
		},
		{
			name: "a file of code added to a level",
			file: shipped.TreeEntry{Path: "ladder/01-hit-counter/ring.go", Data: []byte("package hitcounter\n\nfunc grow(n int) int { return 2 * n }\n")},
			want: `ladder/01-hit-counter/ring.go is not the stub as shipped`,
		},
		{
			name: "a committed symlink to a reference",
			file: shipped.TreeEntry{Path: "ladder/03-token-bucket/reference.go", Mode: "120000", Data: []byte("../../solutions/03-token-bucket/tokenbucket.go")},
			want: "ladder/03-token-bucket/reference.go is a symlink (to ../../solutions/03-token-bucket/tokenbucket.go): a student copy takes none",
		},
		{
			name: "a stray test folder that imports solutions/",
			file: shipped.TreeEntry{Path: "scratch/ref_test.go", Data: []byte(strayTest)},
			want: "scratch/ref_test.go imports " + refImport + ": nothing handed out may import solutions/",
		},
		{
			name: "a stub that holds the answer in a var",
			file: shipped.TreeEntry{Path: stubPath, Data: append(slices.Clip(stub), varReference...)},
			want: "ladder/01-hit-counter/hitcounter.go is not the stub as shipped (var reference holds a value other than a name, a constant or a literal)",
		},
		{
			name: "a compiled test binary",
			file: shipped.TreeEntry{Path: "spec.test", Mode: "100755", Data: self[:64<<10]},
			want: "spec.test is " + instr.BinaryKind(self[:4096]) + ": a student copy takes no binary",
		},
		{
			name: "a file over 1 MiB",
			file: shipped.TreeEntry{Path: "ladder/01-hit-counter/trace.log", Data: []byte(strings.Repeat("a line of a log that nobody meant to commit\n", 30_000))},
			want: "ladder/01-hit-counter/trace.log is 1.3 MiB, over the 1 MiB a student copy takes for one file",
		},
		{
			name: "a test file that makes the stub pass",
			slow: true,
			file: shipped.TreeEntry{Path: "ladder/01-hit-counter/hitcounter_test.go", Data: []byte(answer(t, "01-working-counter_test.go"))},
			want: "ladder/01-hit-counter is not the stub as shipped: the stub check fails ",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.slow {
				skipSlow(t, "runs the stub check")
			}
			if i == 0 { // end to end, through git and the command
				require.NoError(t, os.WriteFile(filepath.Join(repo, tc.file.Path), tc.file.Data, 0o644))
				gitIn(t, repo, "commit", "-qam", tc.name)
				dest := filepath.Join(t.TempDir(), "workshop")
				out, code := runLadder(t, repo, "student-copy", dest)
				require.Equal(t, 1, code, out)
				containsAll(t, out, "student-copy: refused, nothing written.", tc.want)
				_, err := os.Stat(dest)
				require.True(t, os.IsNotExist(err), "student-copy wrote %s", dest)
				return
			}
			if tc.file.Mode == "" {
				tc.file.Mode = "100644"
			}
			changed := slices.DeleteFunc(slices.Clone(tree), func(e shipped.TreeEntry) bool { return e.Path == tc.file.Path })
			files, problems := instr.StudentCopyFiles(modPath, append(changed, tc.file))
			if len(problems) == 0 {
				problems, err = instr.CheckStubsOf(files, io.Discard)
				require.NoError(t, err)
			}
			require.NotEmpty(t, problems, "student-copy would hand out %s", tc.name)
			containsAll(t, strings.Join(problems, "\n"), tc.want)
		})
	}
}

// varReference is an answer hidden in a stub: the methods still panic,
// so no case passes, but a var holds the code.
const varReference = `
var reference = struct {
	Count func(hits []time.Time, now time.Time, window time.Duration) int
}{
	Count: func(hits []time.Time, now time.Time, window time.Duration) int {
		n := 0
		for _, h := range hits {
			if h.After(now.Add(-window)) && !h.After(now) {
				n++
			}
		}
		return n
	},
}
`

// executable is this test binary's path.
func executable(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	return self
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

// level1Parts is how the class report writes done of level 1's parts
// passed: 1/2, for as many parts as the level has.
func level1Parts(done int) string { return fmt.Sprintf("%d/%d", done, len(levels.All[0].Parts)) }

// halfDoneParts is how many of level 1's parts halfDone passes, as the
// grader finds them: part 1, and any later part that a re-slicing queue
// passes too.
func halfDoneParts(t *testing.T) int {
	t.Helper()
	dir := copyLadder(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go"), []byte(halfDone(t)), 0o644))
	g, err := grade.TestLevel(dir, levels.All[0], 0)
	require.NoError(t, err)
	n := 0
	for _, p := range g.Parts {
		if p.Done {
			n++
		}
	}
	return n
}

// splitDone is halfDone in two files, the second one added by the student.
func splitDone(t *testing.T) [2]string {
	before, after, _ := strings.Cut(halfDone(t), "func (c *Counter) Hit")
	return [2]string{before, "package hitcounter\n\nimport \"time\"\n\nfunc (c *Counter) Hit" + after}
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
	split := splitDone(t)
	write("bob", "hitcounter.go", split[0])
	write("bob", "hit.go", split[1])
	readme, err := os.ReadFile(filepath.Join(instructor, "ladder/01-hit-counter/README.md"))
	require.NoError(t, err)
	write("bob", "README.md", regexp.MustCompile(`(?m)^## Part .*\n`).ReplaceAllString(string(readme), ""))
	// carol is done.
	write("carol", "hitcounter.go", reference(t))
	// dave kept the stub and made the tests pass without it.
	write("dave", "hitcounter_test.go", forgedTest)

	out, code := runLadder(t, instructor, append([]string{"class-report", "--cache", reportCache(), "--parallel", "3"}, dirs...)...)
	require.Equal(t, 0, code, out)
	rows := tableRows(out)
	_, of := instr.Result{}.PartsDone()
	parts := func(n int) string { return fmt.Sprintf("%d/%d", n, of) }
	carol := []string{level1Parts(2), parts(2), "1"} // part 2 counts allocations in carol's process
	if reference(t) == halfDone(t) {
		carol = []string{level1Parts(halfDoneParts(t)), parts(halfDoneParts(t)), "-"}
	}
	for name, want := range map[string][]string{"bob": {level1Parts(halfDoneParts(t)), parts(halfDoneParts(t)), "-", ""}, "carol": append(carol, ""),
		"dave": {level1Parts(0), parts(0), "-", "tests edited: graded with the original tests (ladder/01-hit-counter/hitcounter\\_test.go)"}} {
		row := rows[name]
		require.Len(t, row, 1+len(levels.All)+3, "%s's row in:\n%s", name, out)
		got := []string{row[1], row[len(row)-3], row[len(row)-2], row[len(row)-1]}
		require.Equal(t, want, got, "%s: level 1, parts, last level done, note", name)
	}
	// bob's part 2 fails as the mutant that re-slices its queue.
	require.Contains(t, out, "\nKnown mistakes (a failing part whose cases fail the way a known mistake does), the most made first:\n\n"+
		"- level 1 part 2 \"right answers, but a re-slicing queue that reallocates\": 1 student (bob)\n")

	out, code = runLadder(t, instructor, "class-report", "--cache", reportCache(), "--format", "csv", filepath.Join(class, "nobody"))
	require.Equal(t, 0, code, out)
	csvOut, _, _ := strings.Cut(out, "class-report: ") // stderr's lines come after the CSV
	records, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	require.NoError(t, err, out)
	require.Len(t, records, 2, out)
	col := func(name string) string { return records[1][slices.Index(records[0], name)] }
	require.Equal(t, []string{"nobody", "0", "0", "not a rateladder checkout"}, []string{col("student"), col("level_1"), col("total"), col("note")})
}

// studentSource is level 1's halfDone (part 1 passes, part 2 fails) or
// its stub, with the imports an init of a student's needs and the init,
// in which each {{NAME}} is replaced by the Go string of its value.
func studentSource(t *testing.T, base, init string, values map[string]string) string {
	t.Helper()
	imports := "import (\n\t\"bytes\"\n\t\"net\"\n\t\"os\"\n\t\"os/exec\"\n\t\"path/filepath\"\n\t\"syscall\"\n\t\"time\"\n)\n\n" +
		"var _, _, _, _, _ = bytes.Contains, net.Dial, os.Getenv, exec.Command, filepath.Join\nvar _ syscall.SysProcAttr\n"
	src := strings.Replace(base, `import "time"`, imports, 1)
	require.NotEqual(t, base, src, "the stub no longer imports time alone")
	for name, v := range values {
		init = strings.ReplaceAll(init, name, fmt.Sprintf("%q", v))
	}
	return src + init
}

// escapes is an init that tries to get out of its sandbox. Whatever it
// reaches makes Count answer -1: the report then shows part 1 failing,
// and a report that reads 1/2 says the code ran and reached nothing. It
// leaves a setsid daemon behind, with {{MARKER}} in its command line.
const escapes = `
var leaks []string

func init() {
	if c, err := net.DialTimeout("tcp", {{ADDR}}, time.Second); err == nil {
		c.Close()
		leaks = append(leaks, "the instructor's loopback")
	}
	if os.Getenv("MY_SECRET_TOKEN") != "" {
		leaks = append(leaks, "the environment")
	}
	// Every process's environment and command line, its parent's too.
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		for _, f := range []string{"environ", "cmdline"} {
			data, _ := os.ReadFile(filepath.Join(p, f))
			if bytes.Contains(data, []byte({{SECRET}})) || bytes.Contains(data, []byte("class-report")) {
				leaks = append(leaks, p+"/"+f)
			}
		}
	}
	wd, _ := os.Getwd()
	for _, dir := range []string{{{INSTRUCTOR}}, {{CLASS}}, wd} {
		if os.WriteFile(filepath.Join(dir, {{MARKER}}), []byte("x"), 0o644) == nil {
			leaks = append(leaks, "wrote in "+dir)
		}
	}
	os.WriteFile(filepath.Join("/tmp", {{MARKER}}), []byte("x"), 0o644)
	// The folder that holds the sandbox: its own folder, and nothing else.
	home, _ := os.UserHomeDir()
	if entries, _ := os.ReadDir(filepath.Dir(filepath.Dir(home))); len(entries) != 1 {
		leaks = append(leaks, "beside the sandbox")
	}
	d := exec.Command("sh", "-c", "while :; do date > /tmp/$0; sleep 1; done; : $0", {{MARKER}})
	d.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	d.Start()
}
`

// hangs is an init that leaves a setsid daemon, with {{MARKER}} in its command
// line, and sleeps an hour.
const hangs = `
func init() {
	d := exec.Command("sh", "-c", "sleep 3600; : $0", {{MARKER}})
	d.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	d.Start()
	time.Sleep(time.Hour)
}
`

func TestClassReportContainsTheStudentsCode(t *testing.T) {
	skipSlow(t, "runs the tests of two checkouts, one for 45s")
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	needJail(t)
	bin, err := ladderBin()
	require.NoError(t, err)
	cache := reportCache() // before HOME moves
	instructor := gitLadder(t)
	class := t.TempDir()
	for _, name := range []string{"alice", "bob"} {
		copyTree(t, copyLadder(t), filepath.Join(class, name))
	}
	marker := fmt.Sprintf("ladder-escape-%d", time.Now().UnixNano())
	secret := "tok-" + marker
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	stub, err := os.ReadFile(filepath.Join(instructor, "ladder/01-hit-counter/hitcounter.go"))
	require.NoError(t, err)
	alice := studentSource(t, strings.Replace(halfDone(t), "func (c *Counter) Count(now time.Time) int {\n", "func (c *Counter) Count(now time.Time) int {\n\tif len(leaks) > 0 {\n\t\treturn -1\n\t}\n", 1), escapes, map[string]string{
		"{{ADDR}}": ln.Addr().String(), "{{SECRET}}": secret, "{{INSTRUCTOR}}": instructor, "{{CLASS}}": class, "{{MARKER}}": marker + "-alice",
	})
	bob := studentSource(t, string(stub), hangs, map[string]string{"{{MARKER}}": marker + "-bob"})
	require.NoError(t, os.WriteFile(filepath.Join(class, "alice/ladder/01-hit-counter/hitcounter.go"), []byte(alice), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(class, "bob/ladder/01-hit-counter/hitcounter.go"), []byte(bob), 0o644))
	before := map[string][]string{}
	for _, d := range []string{filepath.Join(class, "alice"), filepath.Join(class, "bob"), instructor} {
		before[d] = listFiles(t, d)
	}

	// The report runs as its own process, as an instructor runs it: with
	// a secret in its environment (and so in /proc/PID/environ), and HOME
	// and TMPDIR in empty folders, to see what is left in them afterwards.
	home, tmp := t.TempDir(), t.TempDir()
	env := grade.LearnerEnv()
	for _, name := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", name).Output()
		require.NoError(t, err)
		env = append(env, name+"="+strings.TrimSpace(string(out)))
	}
	env = append(env, "HOME="+home, "TMPDIR="+tmp, "XDG_CONFIG_HOME="+t.TempDir(), "MY_SECRET_TOKEN="+secret,
		"SSH_AUTH_SOCK="+filepath.Join(tmp, "agent.sock"))
	report := exec.Command(bin, "class-report", "--cache", cache, "--timeout", "45s", filepath.Join(class, "alice"), filepath.Join(class, "bob"))
	report.Dir = instructor
	report.Env = env
	// Watch the daemons while the report runs: each must start, and none
	// may outlive the report.
	seen := map[string]bool{}
	var mu sync.Mutex
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			for _, who := range []string{"alice", "bob"} {
				if len(sandboxtest.ProcessesWith(marker+"-"+who)) > 0 {
					mu.Lock()
					seen[who] = true
					mu.Unlock()
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	outb, err := report.CombinedOutput()
	close(stop)
	<-watched
	out := string(outb)
	require.NoError(t, err, out)
	// alice's code ran, passed what halfDone passes, and its init
	// reached nothing.
	rows := tableRows(out)
	require.Equal(t, []string{"alice", level1Parts(halfDoneParts(t))}, rows["alice"][:2], out)
	require.Equal(t, "", rows["alice"][len(rows["alice"])-1], out)
	// A run that was stopped counts for nothing: no cell, only the note.
	require.Equal(t, []string{"bob", ""}, rows["bob"][:2], out)
	require.Equal(t, "stopped after 45s", rows["bob"][len(rows["bob"])-1], out)
	require.True(t, seen["alice"], "alice's daemon never started")
	require.True(t, seen["bob"], "bob's daemon never started within the 45s limit (a very slow machine?)")
	for _, who := range []string{"alice", "bob"} {
		sandboxtest.WaitNoProcessWith(t, marker+"-"+who)
	}
	require.Zero(t, accepted.Load(), "the students' code reached the instructor's loopback")
	if _, err := os.Stat(filepath.Join("/tmp", marker+"-alice")); err == nil {
		t.Errorf("alice's code wrote /tmp/%s-alice", marker)
		os.Remove(filepath.Join("/tmp", marker+"-alice"))
	}
	// Nothing is left on disk: not in HOME, not in TMPDIR (the report's
	// folder, with every sandbox, is gone), not in the students' or the
	// instructor's folders.
	require.Empty(t, listFiles(t, home), "files left in HOME")
	require.Empty(t, listFiles(t, tmp), "files left in TMPDIR")
	for d, files := range before {
		require.Equal(t, files, listFiles(t, d), "files changed in %s", d)
	}
	require.Empty(t, gitIn(t, instructor, "status", "--porcelain", "--untracked-files=all"))
}

// forgedName is a student's folder name that would add a row of its own
// to a table that took it as Markdown. A folder name has no "/": its
// fractions are written with "∕", the division slash, which looks the same.
const forgedName = "eve | 0∕2 |\n| mallory | 2∕2 | 2∕2 | 3∕3 | 3∕3 | 3∕3 | 3∕3 | 3∕3 | 8∕8 | 8 |"

func TestClassReportGradesAClass(t *testing.T) {
	skipSlow(t, "makes a student copy and grades every level of four checkouts")
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's; a folder name with a newline is Unix's")
	}
	needJail(t)
	if !onPath("redis-server") {
		// Level 8's part 8 has cases that need a real server.
		if os.Getenv(sandboxtest.E2EEnv) != "" {
			t.Fatalf("no redis-server, which level 8's part 8 needs: apt-get install redis-server (make test-e2e installs it)")
		}
		t.Skip("no redis-server, which level 8's part 8 needs (make test-e2e fails instead)")
	}
	root := repoRoot(t)
	if out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err != nil || len(out) > 0 {
		t.Skipf("the student copy is made from the last commit, and the working tree differs from it (git status: %v):\n%s", err, out)
	}
	class := t.TempDir()
	alice := filepath.Join(class, "alice")
	out, code := runLadder(t, root, "student-copy", alice)
	require.Equal(t, 0, code, out)
	carol := filepath.Join(class, "carol")
	copyTree(t, alice, carol)
	if !pasteReferences(t, carol, levels.All...) {
		t.Skip("no solutions/ here (a student copy)")
	}
	// dan has every reference too, but level 8's without its locks: part
	// 5 fails under the race detector, so the Redis form's parts 6 to 8,
	// which pass on their own, do not count.
	dan := filepath.Join(class, "dan")
	copyTree(t, carol, dan)
	withoutLocks(t, filepath.Join(dan, "ladder", "08-group-throttle"))
	eve := filepath.Join(class, forgedName)
	copyTree(t, alice, eve)

	start := time.Now()
	out, code = runLadder(t, root, "class-report", "--cache", reportCache(), alice, carol, dan, eve)
	t.Logf("four students graded in %v", time.Since(start).Round(time.Second))
	require.Equal(t, 0, code, out)
	// The lines on stderr while it runs are not the report.
	out = regexp.MustCompile(`(?m)^class-report: .*\n`).ReplaceAllString(out, "")
	// Every row is one line, and no name adds one.
	table, _, _ := strings.Cut(out, "\n\n")
	require.Len(t, strings.Split(table, "\n"), 2+4, out)
	// INSTRUCTORS.md shows this very output.
	doc, err := os.ReadFile(filepath.Join(root, "INSTRUCTORS.md"))
	require.NoError(t, err)
	shown, ok := sampleAfter(string(doc), `$ make class-report DIRS="class/*"`)
	require.True(t, ok, "INSTRUCTORS.md shows no output of make class-report")
	// The sample stops before the why-lines, whose words for dan's crash
	// are the runtime's and vary; TestClassReportSaysWhy shows them.
	out, _, _ = strings.Cut(out, "\nWhy, for each level")
	if diff := cmp.Diff(shown, out); diff != "" {
		t.Errorf("INSTRUCTORS.md's sample of make class-report is not this test's output (-INSTRUCTORS.md +got):\n%s\nthe output:\n%s", diff, out)
	}
}

// lockCall is a call, deferred or not, that locks or unlocks a mutex
// named mu.
var lockCall = regexp.MustCompile(`(defer[ \t]+)?[\w.]*\bmu\.R?(Lock|Unlock)\(\)`)

// withoutLocks deletes every lockCall from the Go files in dir, but its
// tests and subfolders.
func withoutLocks(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	removed := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		removed += len(lockCall.FindAll(data, -1))
		require.NoError(t, os.WriteFile(p, lockCall.ReplaceAll(data, nil), 0o644))
	}
	require.NotZero(t, removed, "no line in %s locks a mutex named mu: the reference changed, and this test must break part 5 another way", dir)
}

// sampleAfter returns the lines of a code block that follow the line
// command, up to the block's end.
func sampleAfter(doc, command string) (string, bool) {
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != command {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		var b strings.Builder
		for _, s := range lines[i+1:] {
			if strings.TrimSpace(s) == "```" {
				return b.String(), true
			}
			b.WriteString(strings.TrimPrefix(s, indent) + "\n")
		}
	}
	return "", false
}

// committedOutsideSolutions counts the files of the last commit of repo
// that a student copy takes: all but solutions/ and the specs' own tests.
func committedOutsideSolutions(t *testing.T, repo string) int {
	t.Helper()
	files, err := gitFiles(repo)
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		_, role := levels.RoleOf(f)
		if !strings.HasPrefix(f, "solutions/") && !(role == levels.Spec && strings.HasSuffix(f, "_test.go")) {
			n++
		}
	}
	return n
}

// TestClassReportSaysWhy grades a class of three: ann's copy untouched;
// ben with level 1 done and a boundary slip in level 2; cat with level 1
// done and a level 2 that does not compile. The report says on stderr
// when each is graded, names ben's first failing case of level 2 (the
// one ben's own make test-level-2 shows first) and says cat's level 2
// does not compile; the CSV sums, and the HTML page names them all.
func TestClassReportSaysWhy(t *testing.T) {
	skipSlow(t, "makes a student copy and grades three checkouts")
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	needJail(t)
	root := repoRoot(t)
	if out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err != nil || len(out) > 0 {
		t.Skipf("the student copy is made from the last commit, and the working tree differs from it (git status: %v):\n%s", err, out)
	}
	class := t.TempDir()
	ann, ben, cat := filepath.Join(class, "ann"), filepath.Join(class, "ben"), filepath.Join(class, "cat")
	out, code := runLadder(t, root, "student-copy", ann)
	require.Equal(t, 0, code, out)
	copyTree(t, ann, ben)
	if !pasteReferences(t, ben, levels.All[0], levels.All[1]) {
		t.Skip("no solutions/ here (a student copy)")
	}
	copyTree(t, ann, cat)
	pasteReferences(t, cat, levels.All[0], levels.All[1])
	logger := filepath.Join(ben, "ladder", "02-logger-limiter", "logger.go")
	src, err := os.ReadFile(logger)
	require.NoError(t, err)
	slipped := strings.Replace(string(src), "!l.queue[l.head].at.After(cutoff)", "l.queue[l.head].at.Before(cutoff)", 1)
	require.NotEqual(t, string(src), slipped, "the reference changed: slip its boundary another way")
	require.NoError(t, os.WriteFile(logger, []byte(slipped), 0o644))
	broken := filepath.Join(cat, "ladder", "02-logger-limiter", "logger.go")
	f, err := os.OpenFile(broken, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	fmt.Fprintln(f, "var _ = notDeclaredAnywhere")
	require.NoError(t, f.Close())

	own, _ := runLadder(t, ben, "test", "2")
	first := regexp.MustCompile(`(?m)^  case "([^"]+)"`).FindStringSubmatch(own)
	require.NotNil(t, first, "ben's make test-level-2 names no failing case:\n%s", own)

	var stdout, stderr bytes.Buffer
	wd, _ := os.Getwd()
	require.NoError(t, os.Chdir(root))
	code = runAt(root, []string{"class-report", "--cache", reportCache(), ann, ben, cat}, &stdout, &stderr)
	os.Chdir(wd)
	require.Equal(t, 0, code, stderr.String())
	for _, name := range []string{"ann", "ben", "cat"} {
		require.Regexp(t, `class-report: \d of 3: `+name+`, \d+ of \d+ parts done, in \d`, stderr.String())
	}
	report := stdout.String()
	containsAll(t, report, fmt.Sprintf("- ben\n  - L2.1 case %q", first[1]), "- cat\n  - L2.1 does not compile: ", "undefined: notDeclaredAnywhere")
	doc, err := os.ReadFile(filepath.Join(root, "INSTRUCTORS.md"))
	require.NoError(t, err)
	shown, ok := sampleAfter(string(doc), `$ make class-report DIRS="ann ben cat"`)
	require.True(t, ok, "INSTRUCTORS.md shows no why-lines of make class-report")
	_, why, _ := strings.Cut(report, "\nWhy, for each level")
	if diff := cmp.Diff(shown, "…\nWhy, for each level"+why); diff != "" {
		t.Errorf("INSTRUCTORS.md's sample of the why-lines is not this report's (-INSTRUCTORS.md +got):\n%s\nthe report:\n%s", diff, report)
	}

	stdout.Reset()
	require.NoError(t, os.Chdir(root))
	code = runAt(root, []string{"class-report", "--format", "csv", "--cache", reportCache(), ann, ben, cat}, &stdout, &stderr)
	os.Chdir(wd)
	require.Equal(t, 0, code, stderr.String())
	rows, err := csv.NewReader(&stdout).ReadAll()
	require.NoError(t, err)
	col := func(name string) int { return slices.Index(rows[0], name) }
	require.Equal(t, []string{"ann", "0", "0", "0"}, []string{rows[1][0], rows[1][col("level_1")], rows[1][col("level_2")], rows[1][col("total")]})
	require.Equal(t, []string{"ben", "2", "0", "2"}, []string{rows[2][0], rows[2][col("level_1")], rows[2][col("level_2")], rows[2][col("total")]})
	require.Equal(t, "2", rows[3][col("level_1")])

	stdout.Reset()
	require.NoError(t, os.Chdir(root))
	code = runAt(root, []string{"class-report", "--format", "html", "--cache", reportCache(), ann, ben, cat}, &stdout, &stderr)
	os.Chdir(wd)
	require.Equal(t, 0, code, stderr.String())
	containsAll(t, stdout.String(), ">ann<", ">ben<", ">cat<", html.EscapeString(first[1]))
}
