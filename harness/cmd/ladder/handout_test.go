package main

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// TestNoTrackedFileIsABinary keeps compiled files out of the repository: a
// test binary once went into a commit (and from there into every student
// copy), 8 MB of machine code built with one machine's paths.
func TestNoTrackedFileIsABinary(t *testing.T) {
	root := repoRoot(t)
	files, err := gitFiles(root)
	if err != nil {
		t.Skip("no git history here")
	}
	n := 0
	for _, f := range files {
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree, or a symlink
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		n++
		if kind := instructor.BinaryKind(data); kind != "" {
			t.Errorf("git tracks %s, which is %s: remove it (git rm --cached %s) and ignore it in .gitignore", f, kind, f)
		}
	}
	if n < 100 {
		t.Errorf("read %d tracked files, want the whole repository", n)
	}
}

// answers are the files of testdata/answers/answers.txtar, by name.
var answers = []string{"01-compacting.go", "01-half-done.go", "01-working-counter_test.go", "02-remembers-everything.go"}

// answer returns a file of testdata/answers/answers.txtar: a learner's
// code that solves a level or a part of one. A student copy has none, and
// the test skips there, saying why.
func answer(t *testing.T, name string) string {
	t.Helper()
	files, err := txtarFiles(t, filepath.Join(repoRoot(t), filepath.FromSlash(instructor.AnswersDir), "answers.txtar"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no %s/ here (a student copy leaves out the code that solves a level), and this test plays %s", instructor.AnswersDir, name)
	}
	require.NoError(t, err)
	file, ok := files[name]
	require.True(t, ok, "answers.txtar has no file %s", name)
	return file
}

// halfDone is a learner's level 1 with part 1 done: right answers, with
// the re-slicing queue that part 2 rejects.
func halfDone(t *testing.T) string { return answer(t, "01-half-done.go") }

// A student copy holds no Go code, beside a level's stub, that would pass
// a part of the level if pasted over the stub: no test fixture, scenario or
// README block that solves it. answerCandidates finds the code that could:
// every Go source of the copy (a .go file, a string literal of one that is
// a Go file, a ```go block of Markdown) that declares each function and
// method of a level's stub. TestStudentCopyPassesItsOwnMakeTest grades
// whatever it finds against the level, in the copy it made.

// candidate is Go code that offers the API of a level's stub.
type candidate struct {
	file  string // where it was found
	level levels.Level
	src   string
}

// answerCandidates returns the code among files (by slash-separated path)
// that offers a level's whole API, but the stubs themselves.
func answerCandidates(files map[string][]byte) []candidate {
	// Each file is parsed once, not once per level.
	type source struct {
		src  string
		decl map[string]bool
	}
	parsed := map[string][]source{}
	var found []candidate
	for _, l := range levels.All {
		api, stubs := stubAPI(l, files)
		if len(api) == 0 {
			continue
		}
		var paths []string
		for p := range files {
			if !stubs[p] {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			srcs, ok := parsed[p]
			if !ok {
				for _, src := range goSources(p, files[p]) {
					_, decl := declarations(src)
					srcs = append(srcs, source{src, decl})
				}
				parsed[p] = srcs
			}
			for _, src := range srcs {
				if offers(src.decl, api) {
					found = append(found, candidate{file: p, level: l, src: src.src})
				}
			}
		}
	}
	return found
}

// stubAPI returns the functions and methods ("New", "Counter.Hit") the
// stubs in level l's own folder declare, and those stubs.
func stubAPI(l levels.Level, files map[string][]byte) (map[string]bool, map[string]bool) {
	api, stubs := map[string]bool{}, map[string]bool{}
	for p, data := range files {
		if path.Dir(p) != l.Dir || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || shipped.StubProblem(data) != "" {
			continue
		}
		stubs[p] = true
		_, decl := declarations(string(data))
		for name := range decl {
			api[name] = true
		}
	}
	return api, stubs
}

func offers(decl, api map[string]bool) bool {
	for name := range api {
		if !decl[name] {
			return false
		}
	}
	return true
}

// declarations parses src as a Go file and returns its package name and
// its functions and methods, a method as "Type.Name".
func declarations(src string) (string, map[string]bool) {
	f, err := parser.ParseFile(token.NewFileSet(), "src.go", src, parser.SkipObjectResolution)
	if err != nil {
		return "", nil
	}
	decl := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) == 1 {
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		decl[name] = true
	}
	return f.Name.Name, decl
}

// goSources returns the Go files that the file p holds: itself if it is
// one, each string literal of it that is one, and each ```go block of a
// Markdown file that is one.
func goSources(p string, data []byte) []string {
	var srcs []string
	isFile := func(s string) bool {
		_, err := parser.ParseFile(token.NewFileSet(), "src.go", s, parser.PackageClauseOnly)
		return err == nil
	}
	switch {
	case strings.HasSuffix(p, ".go"):
		f, err := parser.ParseFile(token.NewFileSet(), p, data, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		srcs = append(srcs, string(data))
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && isFile(s) {
					srcs = append(srcs, s)
				}
			}
			return true
		})
	case strings.HasSuffix(p, ".md"):
		for _, block := range regexp.MustCompile("(?ms)^```go\n(.*?)^```").FindAllStringSubmatch(string(data), -1) {
			if isFile(block[1]) {
				srcs = append(srcs, block[1])
			}
		}
	}
	return srcs
}

// asPackage renames the package of the Go file src.
func asPackage(src, pkg string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "src.go", src, parser.PackageClauseOnly)
	if err != nil {
		return src
	}
	start := fset.Position(f.Name.Pos()).Offset
	return src[:start] + pkg + src[start+len(f.Name.Name):]
}

// shippedFiles returns the files a student copy of the last commit holds.
func shippedFiles(t *testing.T, root string) (all, handedOut map[string][]byte) {
	t.Helper()
	tree, err := shipped.GitTree(root, "HEAD")
	if err != nil {
		t.Skipf("no git history here: %v", err)
	}
	modPath, err := shipped.ModulePath(root)
	require.NoError(t, err)
	files, _ := instructor.StudentCopyFiles(modPath, tree)
	all, handedOut = map[string][]byte{}, map[string][]byte{}
	for _, e := range tree {
		all[e.Path] = e.Data
	}
	for _, e := range files {
		handedOut[e.Path] = e.Data
	}
	return all, handedOut
}

func TestAStudentCopyHoldsNoCodeThatOffersALevelsAPI(t *testing.T) {
	root := repoRoot(t)
	all, shipped := shippedFiles(t, root)
	for _, c := range answerCandidates(shipped) {
		t.Errorf("a student copy holds, in %s, code that offers level %d's API: move it to %s/ (see handout.go), or make it no answer", c.file, c.level.Number, instructor.AnswersDir)
	}
	// The search finds the answers the tests keep, as files and as a
	// string in a test, and each for its own level.
	for _, name := range answers {
		all[instructor.AnswersDir+"/"+name] = []byte(answer(t, name))
	}
	compacting := answer(t, "01-compacting.go")
	all["harness/cmd/ladder/pasted_test.go"] = []byte("package main\n\nconst pasted = " + strconv.Quote(compacting) + "\n")
	found := map[string]int{}
	for _, c := range answerCandidates(all) {
		found[c.file] = c.level.Number
	}
	for file, level := range map[string]int{
		instructor.AnswersDir + "/01-compacting.go":           1,
		instructor.AnswersDir + "/01-half-done.go":            1,
		instructor.AnswersDir + "/02-remembers-everything.go": 2,
		"harness/cmd/ladder/pasted_test.go":                   1,
	} {
		if found[file] != level {
			t.Errorf("answerCandidates(the repository) finds %s for level %d, want level %d", file, found[file], level)
		}
	}
}

// donePart matches a part that passes in ladder test's output.
var donePart = regexp.MustCompile(`(?m)^part \d+, .*: done \(.*$`)

// partsDonePasted pastes c over its level's stub in a copy of dest, and
// returns the parts that then pass, as ladder test prints them.
func partsDonePasted(t *testing.T, dest string, files map[string][]byte, c candidate) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pasted")
	copyTree(t, dest, dir)
	_, stubs := stubAPI(c.level, files)
	var paths []string
	for p := range stubs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	pkg, _ := declarations(string(files[paths[0]]))
	for _, p := range paths[1:] {
		require.NoError(t, os.Remove(filepath.Join(dir, filepath.FromSlash(p))))
	}
	addFile(t, dir, filepath.FromSlash(paths[0]), asPackage(c.src, pkg))
	out, _ := runLadder(t, dir, "test", strconv.Itoa(c.level.Number))
	return donePart.FindAllString(out, -1)
}

// checkNoAnswers fails if a Go source of the copy in dest passes a part of
// a level when pasted over the level's stub.
func checkNoAnswers(t *testing.T, dest string) {
	t.Helper()
	files := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" {
			if err == nil && d.IsDir() {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dest, p)
		files[filepath.ToSlash(rel)] = data
		return err
	}))
	for _, c := range answerCandidates(files) {
		if done := partsDonePasted(t, dest, files, c); len(done) > 0 {
			t.Errorf("the student copy's %s, pasted over level %d's stub, passes: %s", c.file, c.level.Number, strings.Join(done, "; "))
		}
	}
	// The same check sees an answer: the one the tests keep for level 1.
	l, _ := levels.Find("1")
	if done := partsDonePasted(t, dest, files, candidate{file: "01-compacting.go", level: l, src: answer(t, "01-compacting.go")}); len(done) == 0 {
		t.Error("01-compacting.go of testdata/answers/answers.txtar pasted over level 1's stub passes no part: the check of the copy cannot see an answer")
	}
}
