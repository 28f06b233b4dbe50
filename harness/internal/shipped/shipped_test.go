package shipped

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/levels"
)

const (
	stub     = "package counter\n\ntype Counter struct{}\n\nfunc New() *Counter { panic(\"not implemented: New\") }\n"
	answer   = "package counter\n\ntype Counter struct{ n int }\n\nfunc New() *Counter { return &Counter{} }\n"
	specFile = "package spec\n\nimport _ \"example.com/m/ladder/01-hit-counter/shared\"\n"
	shared   = "package shared\n\nfunc Helper() int { return 1 }\n"
)

func TestIsStubSource(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want bool
	}{
		{"the shipped stub", "package p\n\ntype T struct{}\n\nfunc New() *T { panic(\"not implemented: New\") }\n\nfunc (t *T) Hit() { panic(\"not implemented: T.Hit\") }\n", true},
		{"no message after the prefix", "package p\nfunc F() { panic(\"not implemented\") }\n", true},
		{"one body written", "package p\nfunc New() int { return 1 }\nfunc F() { panic(\"not implemented: F\") }\n", false},
		{"a statement before the panic", "package p\nfunc F() { println(); panic(\"not implemented: F\") }\n", false},
		{"another panic", "package p\nfunc F() { panic(\"todo\") }\n", false},
		{"a raw string, which no shipped stub writes", "package p\nfunc F() { panic(`not implemented: F`) }\n", false},
		{"an init with side effects", "package p\nfunc init() { println() }\nfunc F() { panic(\"not implemented: F\") }\n", false},
		{"types only", "package p\ntype T int\n", false},
		{"does not parse", "package p\nfunc F( {\n", false},
		{"names of another package, and a constant expression", "package p\nimport (\n\t\"errors\"\n\t\"time\"\n)\nvar ErrX = errors.ErrUnsupported\nconst D = 3 * time.Second\nfunc F() { panic(\"not implemented: F\") }\n", true},
		{"a var that holds the answer in func literals", "package p\nvar reference = struct{ Count func(n int) int }{Count: func(n int) int { return n + 1 }}\nfunc F() { panic(\"not implemented: F\") }\n", false},
		{"a var that calls a function", "package p\nvar answer = compute()\nfunc compute() int { panic(\"not implemented: compute\") }\n", false},
	} {
		if got := StubProblem([]byte(tc.src)) == ""; got != tc.want {
			t.Errorf("StubProblem(%s) == \"\" is %v, want %v", tc.name, got, tc.want)
		}
	}
	src := "package p\nvar reference = struct{ F func() }{F: func() {}}\nfunc F() { panic(\"not implemented: F\") }\n"
	if got, want := StubProblem([]byte(src)), "var reference holds a value other than a name, a constant or a literal"; got != want {
		t.Errorf("StubProblem(a var of func literals) = %q, want %q", got, want)
	}
}

// repo makes a git repository in a temporary folder with level 1 as
// shipped: a stub, a spec that imports a shared package, and the shared
// package. It returns the folder and level 1.
func repo(t *testing.T) (string, levels.Level) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	l := levels.All[0]
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/m\n")
	write(t, dir, l.Dir+"/counter.go", stub)
	write(t, dir, l.Dir+"/counter_test.go", "package counter\n")
	write(t, dir, l.Dir+"/spec/spec.go", specFile)
	write(t, dir, l.Dir+"/shared/shared.go", shared)
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "ship level 1")
	return dir, l
}

func write(t *testing.T, root, name, data string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestClassifySortsStubsSharedFilesAndTheRest(t *testing.T) {
	l := levels.All[0]
	got := Classify("example.com/m", map[string][]byte{
		l.Dir + "/counter.go":         []byte(stub),
		l.Dir + "/mine.go":            []byte(answer),
		l.Dir + "/shared/shared.go":   []byte(shared),
		l.Dir + "/spec/spec.go":       []byte(specFile),
		l.Dir + "/counter_test.go":    []byte("package counter\n"),
		l.Dir + "/testdata/answer.go": []byte(answer), // never built: not code
		l.Dir + "/README.md":          []byte("# Level 1\n"),
	})
	want := Code{Stubs: []string{l.Dir + "/counter.go"}, Shared: []string{l.Dir + "/shared/shared.go"}, Other: []string{l.Dir + "/mine.go"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Classify mismatch (-want +got):\n%s", diff)
	}
}

func TestFindSkipsTheLearnersCommits(t *testing.T) {
	dir, l := repo(t)
	shippedAt := git(t, dir, "rev-parse", "HEAD")
	write(t, dir, l.Dir+"/counter.go", answer)
	git(t, dir, "commit", "-qam", "my answer")

	got, err := Find(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	if got.Commit != shippedAt {
		t.Errorf("Find: commit %s, want the one that shipped the stub, %s", got.Commit, shippedAt)
	}
	if diff := cmp.Diff(map[string][]byte{l.Dir + "/counter.go": []byte(stub), l.Dir + "/shared/shared.go": []byte(shared)}, got.Files); diff != "" {
		t.Errorf("Find: files mismatch (-want +got):\n%s", diff)
	}

	plan, err := ResetPlan(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{l.Dir + "/counter.go"}, plan.Restore); diff != "" {
		t.Errorf("ResetPlan: restore mismatch (-want +got):\n%s", diff)
	}
	if len(plan.Move) != 0 {
		t.Errorf("ResetPlan: move = %q, want nothing: every file is tracked", plan.Move)
	}
}

func TestFindWithoutAShippedStubSaysWhy(t *testing.T) {
	dir, l := repo(t)
	git(t, dir, "rm", "-q", l.Dir+"/counter.go")
	write(t, dir, l.Dir+"/counter.go", answer)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "answer only")
	git(t, dir, "checkout", "-q", "--orphan", "fresh")
	git(t, dir, "commit", "-qm", "history without the stub")
	_, err := Find(dir, l)
	if err == nil || !strings.Contains(err.Error(), "no commit holds level 1 as shipped") {
		t.Errorf("Find on a history without the stub: err = %v, want \"no commit holds level 1 as shipped\"", err)
	}
}

func TestUntouchedReadsTheWorkingTree(t *testing.T) {
	dir, l := repo(t)
	if !Untouched(dir, l) {
		t.Errorf("Untouched(as shipped) = false, want true")
	}
	write(t, dir, l.Dir+"/mine.go", answer)
	if Untouched(dir, l) {
		t.Errorf("Untouched(with a file of the learner's) = true, want false")
	}
}

// TestImportsReadsSourceOrTheFile: Imports reads src when given, and the
// file named when src is nil; code that does not parse is an error.
func TestImportsReadsSourceOrTheFile(t *testing.T) {
	src := "package x\n\nimport (\n\t\"C\"\n\tm \"example.com/mod/solutions/01\"\n)\n"
	want := []string{"C", "example.com/mod/solutions/01"}
	path := filepath.Join(t.TempDir(), "x.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		src  []byte
	}{{"x.go", []byte(src)}, {path, nil}} {
		got, err := Imports(tc.name, tc.src)
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("Imports(%s, %d bytes) = %v, %v; want (-want +got):\n%s", tc.name, len(tc.src), got, err, diff)
		}
	}
	if got, err := Imports("x.go", []byte("not Go")); err == nil {
		t.Errorf("Imports(x.go, \"not Go\") = %v, nil; want an error", got)
	}
}
