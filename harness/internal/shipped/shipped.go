// Package shipped knows the ladder as shipped: its stubs, and the commit
// that shipped each level's, so that reset, the stub check, student-copy
// and the class report agree on what is the ladder's and the learner's.
package shipped

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
)

// Git runs git in root: what it printed, or an error with what git said.
func Git(root string, args ...string) (string, error) { return runGit(root, "", args...) }

func runGit(root, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = root, strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v %s (reset needs the repository's git history)", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// StubProblem says why src is not a stub as the ladder ships one, or ""
// when it is: Go that parses, with at least one function, every function
// body a single panic("not implemented: ..."), and every constant or
// variable a name, a literal or arithmetic of those, so that no code
// hides in a value.
func StubProblem(src []byte) string {
	if src == nil {
		return "a symbolic link" // as Working reads one
	}
	f, err := parser.ParseFile(token.NewFileSet(), "stub.go", src, parser.SkipObjectResolution)
	if err != nil {
		return "it does not parse"
	}
	funcs := 0
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			if funcs++; !isNotImplemented(fn.Body) {
				return `a function body other than panic("not implemented: ...")`
			}
			continue
		}
		g := d.(*ast.GenDecl)
		for _, spec := range g.Specs {
			if vs, ok := spec.(*ast.ValueSpec); ok {
				for i, v := range vs.Values {
					if !isPlainValue(v) {
						return fmt.Sprintf("%s %s holds a value other than a name, a constant or a literal", g.Tok, vs.Names[min(i, len(vs.Names)-1)])
					}
				}
			}
		}
	}
	if funcs == 0 {
		return "it declares no function"
	}
	return ""
}

// isNotImplemented reports whether a function body is a single
// panic("not implemented...").
func isNotImplemented(b *ast.BlockStmt) bool {
	if b == nil || len(b.List) != 1 {
		return false
	}
	stmt, ok := b.List[0].(*ast.ExprStmt)
	return ok && notImplemented.MatchString(types.ExprString(stmt.X))
}

// notImplemented is the one call a stub's function makes, as go/types prints it.
var notImplemented = regexp.MustCompile(`^panic\("not implemented(?:[^"\\]|\\.)*"\)$`)

// isPlainValue reports whether a package-level value of a stub holds no
// code: a name (viewerr.ErrNegativeViews), a literal, or an arithmetic of
// those (3 * time.Second).
func isPlainValue(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.SelectorExpr:
		_, ok := e.X.(*ast.Ident)
		return ok
	case *ast.UnaryExpr:
		return isPlainValue(e.X)
	case *ast.BinaryExpr:
		return isPlainValue(e.X) && isPlainValue(e.Y)
	}
	return false
}

// Code sorts a level's code files: stubs the learner fills in, shared
// files of a package the spec imports (the ladder's, such as level 8's
// limits/), and the rest (a learner's work, or a reference).
type Code struct {
	Stubs, Shared, Other []string
}

// Imports returns the paths a Go file imports, reading only its import
// declarations: from src, or from the file named when src is nil.
func Imports(filename string, src []byte) ([]string, error) {
	var from any // a nil []byte would be read as an empty file
	if src != nil {
		from = src
	}
	f, err := parser.ParseFile(token.NewFileSet(), filename, from, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, imp := range f.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value) // the parser checked it
		out = append(out, ip)
	}
	return out, nil
}

// Classify sorts the code files among files (one level's files by
// path, slash-separated from the repository's top).
func Classify(modPath string, files map[string][]byte) Code {
	imported := map[string]bool{}
	for p, src := range files {
		if _, role := levels.RoleOf(p); role == levels.Spec && strings.HasSuffix(p, ".go") {
			ips, _ := Imports(p, src)
			for _, ip := range ips {
				imported[ip] = true
			}
		}
	}
	var c Code
	for p, src := range files {
		switch _, role := levels.RoleOf(p); {
		case role != levels.Code:
		case StubProblem(src) == "":
			c.Stubs = append(c.Stubs, p)
		case imported[modPath+"/"+path.Dir(p)]:
			c.Shared = append(c.Shared, p)
		default:
			c.Other = append(c.Other, p)
		}
	}
	for _, list := range [][]string{c.Stubs, c.Shared, c.Other} {
		slices.Sort(list)
	}
	return c
}

// ModulePath reads the module path from root's go.mod.
func ModulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("%s has no module line", filepath.Join(root, "go.mod"))
}

// TreeEntry is one file of a git commit.
type TreeEntry struct {
	Path string // slash-separated, from the repository's top
	Mode string // as git writes it: 100644, 100755, 120000 (a symlink), 160000 (a submodule)
	Data []byte // nil for a submodule
}

// GitTree reads the files of commit rev under paths (all of it when none
// is given), with two git processes whatever the number of files.
func GitTree(root, rev string, paths ...string) ([]TreeEntry, error) {
	out, err := Git(root, append([]string{"ls-tree", "-r", "-z", "--full-tree", rev, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	var entries []TreeEntry
	var blobs []int // the entries that are files, in the order of want
	var want strings.Builder
	for _, rec := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		if f[1] == "blob" {
			blobs = append(blobs, len(entries))
			want.WriteString(f[2] + "\n")
		}
		entries = append(entries, TreeEntry{Path: p, Mode: f[0]})
	}
	data, err := runGit(root, want.String(), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for _, i := range blobs {
		// Each blob comes as "HASH blob SIZE\n", its content, and "\n".
		header, rest, _ := strings.Cut(data, "\n")
		var size int
		if _, err := fmt.Sscanf(header, "%s blob %d", new(string), &size); err != nil || size < 0 || size >= len(rest) {
			return nil, fmt.Errorf("git cat-file: unexpected %q", header)
		}
		entries[i].Data, data = []byte(rest[:size]), rest[size+1:]
	}
	return entries, nil
}

// Level is a level as the ladder shipped it.
type Level struct {
	Commit string
	Code   Code
	Files  map[string][]byte // the stubs and the shared files, by path
}

// Find finds level l in the newest commit that changed its stubs or spec
// and holds only stubs (one at least) and shared files: never a learner's
// commit, but an update of the ladder pulled later.
func Find(root string, l levels.Level) (Level, error) {
	modPath, err := ModulePath(root)
	// Each commit that changed the level, newest first, with its files.
	out, gerr := Git(root, "log", "--format=%x00%H", "--name-only", "--no-renames", "HEAD", "--", l.Dir)
	if err = cmp.Or(err, gerr); err != nil {
		return Level{}, err
	}
	recs := strings.Split(out, "\x00")[1:]
	for _, rec := range recs {
		lines := strings.Fields(rec) // the hash, then the files it changed
		c, changed := lines[0], lines[1:]
		entries, err := GitTree(root, c, l.Dir)
		if err != nil {
			return Level{}, err
		}
		files := map[string][]byte{}
		for _, e := range entries {
			if e.Data != nil && e.Mode != "120000" {
				files[e.Path] = e.Data
			}
		}
		code := Classify(modPath, files)
		if len(code.Stubs) == 0 || len(code.Other) > 0 ||
			!slices.ContainsFunc(changed, func(p string) bool { return slices.Contains(code.Stubs, p) || l.HasRole(p, levels.Spec) }) {
			continue
		}
		maps.DeleteFunc(files, func(p string, _ []byte) bool { return !slices.Contains(slices.Concat(code.Stubs, code.Shared), p) })
		return Level{Commit: c, Code: code, Files: files}, nil
	}
	hint := ""
	if shallow, _ := Git(root, "rev-parse", "--is-shallow-repository"); strings.TrimSpace(shallow) == "true" {
		hint = " This clone is shallow: git fetch --unshallow brings the rest of the history."
	}
	return Level{}, fmt.Errorf("no commit holds level %d as shipped: none of the %d commits that changed %s both changed its stubs or spec and holds nothing but stubs (every function body a panic(\"not implemented: ...\")) and the files its spec imports.%s", l.Number, len(recs), l.Dir, hint)
}

// A Plan is what reset does to a level: the shipped files it restores
// (changed or missing), and the files it moves away (other code files, and
// untracked files outside the spec and testdata/).
type Plan struct {
	Shipped       Level
	Restore, Move []string
}

// ResetPlan finds level l as shipped and plans its reset.
func ResetPlan(root string, l levels.Level) (Plan, error) {
	as, err := Find(root, l)
	if err != nil {
		return Plan{}, err
	}
	files, werr := Working(root, l)
	untracked, gerr := Git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", l.Dir)
	if err = cmp.Or(werr, gerr); err != nil {
		return Plan{}, err
	}
	plan := Plan{Shipped: as}
	for p, want := range as.Files {
		if got, ok := files[p]; !ok || got == nil || string(got) != string(want) {
			plan.Restore = append(plan.Restore, p)
		}
	}
	for p := range files {
		if _, ok := as.Files[p]; !ok && l.HasRole(p, levels.Code) {
			plan.Move = append(plan.Move, p)
		}
	}
	for _, p := range strings.Split(untracked, "\x00") {
		// Fuzzing keeps the failures it found in testdata/, of the spec
		// or of the level: they stay, like everything of the spec.
		if _, role := levels.RoleOf(p); p != "" && role != levels.Testdata && role != levels.Spec && as.Files[p] == nil {
			plan.Move = append(plan.Move, p)
		}
	}
	slices.Sort(plan.Restore)
	slices.Sort(plan.Move)
	plan.Move = slices.Compact(plan.Move) // an untracked code file is both
	return plan, nil
}

// Untouched reports whether a level's code in the working tree is the
// stub as shipped (only stubs and shared files, with at least one stub),
// so that progress and the class report say "not started" without a build.
func Untouched(root string, l levels.Level) bool {
	modPath, err := ModulePath(root)
	files, werr := Working(root, l)
	code := Classify(modPath, files)
	// A symbolic link is not as shipped.
	return err == nil && werr == nil && len(code.Stubs) > 0 && len(code.Other) == 0 &&
		!slices.ContainsFunc(slices.Collect(maps.Values(files)), func(d []byte) bool { return d == nil })
}

// Working reads the .go files under level l's folder in root's working
// tree, by slash path from root; a symbolic link's data is nil.
func Working(root string, l levels.Level) (map[string][]byte, error) {
	files, fsys := map[string][]byte{}, os.DirFS(root)
	err := fs.WalkDir(fsys, l.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		var data []byte
		if d.Type().IsRegular() {
			if data, err = fs.ReadFile(fsys, p); data == nil {
				data = []byte{}
			}
		}
		files[p] = data
		return err
	})
	return files, err
}
