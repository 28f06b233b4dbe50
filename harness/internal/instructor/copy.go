package instructor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// inStudentCopy says which repository files a student gets: no reference,
// no tests' answers, no spec's own tests or oracle.go (answers too), and
// nothing the tools write.
func inStudentCopy(path string) bool {
	for _, prefix := range []string{"solutions/", AnswersDir + "/", learner.StateDir + "/", "plots/"} {
		if strings.HasPrefix(path, prefix) {
			return false
		}
	}
	_, role := levels.RoleOf(path)
	return role != levels.Spec || !strings.HasSuffix(path, "_test.go") && !strings.HasSuffix(path, "/"+oracleFile)
}

// oracleFile is a spec's file that only the instructor's checkout has.
const oracleFile = "oracle.go"

// A student copy refuses a file that shares referenceRun lines in a row,
// each of referenceLine bytes or more, with a reference.
const (
	referenceRun  = 6
	referenceLine = 8
)

// significantLines are the lines of data worth comparing, trimmed.
func significantLines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); len(l) >= referenceLine {
			out = append(out, l)
		}
	}
	return out
}

// referenceRuns indexes every run of referenceRun significant lines of the
// references in tree to its file, but those a level's code holds too (the
// stub check sees to those files).
func referenceRuns(tree []shipped.TreeEntry) map[string]string {
	runs := map[string]string{}
	each := func(data []byte, f func(run string)) {
		lines := significantLines(data)
		for i := 0; i+referenceRun <= len(lines); i++ {
			f(strings.Join(lines[i:i+referenceRun], "\n"))
		}
	}
	for _, e := range tree {
		if strings.HasPrefix(e.Path, "solutions/") && !strings.HasSuffix(e.Path, "_test.go") && (strings.HasSuffix(e.Path, ".go") || strings.HasSuffix(e.Path, ".lua")) {
			each(e.Data, func(run string) { runs[run] = e.Path })
		}
	}
	for _, e := range tree {
		if _, role := levels.RoleOf(e.Path); role == levels.Code {
			each(e.Data, func(run string) { delete(runs, run) })
		}
	}
	return runs
}

// carriesReference names the reference whose lines data carries, or "".
func carriesReference(runs map[string]string, data []byte) string {
	lines := significantLines(data)
	for i := 0; i+referenceRun <= len(lines); i++ {
		if ref, ok := runs[strings.Join(lines[i:i+referenceRun], "\n")]; ok {
			return ref
		}
	}
	return ""
}

// WarnUncommitted tells the instructor what the copy leaves out because it
// is not committed.
func WarnUncommitted(root, head string, stderr io.Writer) {
	out, err := shipped.Git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil || out == "" {
		return
	}
	var lines []string
	recs := strings.Split(out, "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		lines = append(lines, r)
		if r[0] == 'R' || r[0] == 'C' {
			i++ // a rename carries its old name in the next record
		}
	}
	fmt.Fprintf(stderr, "warning: the working tree has uncommitted changes. The copy is made from the last commit (%s) and does not contain them:\n", head[:7])
	for i, l := range lines {
		if i == 10 {
			fmt.Fprintf(stderr, "  ... and %d more (git status)\n", len(lines)-10)
			break
		}
		fmt.Fprintf(stderr, "  %s\n", l)
	}
}

// StudentCopyFiles picks the files of the commit a student gets, and lists
// the problems that forbid a copy.
func StudentCopyFiles(modPath string, tree []shipped.TreeEntry) (files []shipped.TreeEntry, problems []string) {
	levelFiles := map[int]map[string][]byte{} // level number → its files
	refs := referenceRuns(tree)
	for _, e := range tree {
		if !inStudentCopy(e.Path) {
			continue
		}
		if _, role := levels.RoleOf(e.Path); role != levels.Code {
			if ref := carriesReference(refs, e.Data); ref != "" {
				problems = append(problems, fmt.Sprintf("%s carries lines of the reference %s: a student copy hands out no answer, whatever the file's name", e.Path, ref))
				continue
			}
		}
		switch e.Mode {
		case "120000":
			problems = append(problems, fmt.Sprintf("%s is a symlink (to %s): a student copy takes none", e.Path, e.Data))
			continue
		case "160000":
			problems = append(problems, e.Path+" is a submodule: a student copy takes none")
			continue
		}
		if p := handoutProblem(e.Path, e.Data); p != "" {
			problems = append(problems, p)
			continue
		}
		if imp := solutionsImport(modPath, e.Path, e.Data); imp != "" {
			problems = append(problems, fmt.Sprintf("%s imports %s: nothing handed out may import solutions/", e.Path, imp))
		}
		if n, role := levels.RoleOf(e.Path); n != 0 && role != levels.Reference {
			if levelFiles[n] == nil {
				levelFiles[n] = map[string][]byte{}
			}
			levelFiles[n][e.Path] = e.Data
		} else if strings.HasPrefix(e.Path, "ladder/") && strings.HasSuffix(e.Path, ".go") {
			problems = append(problems, e.Path+" is Go code outside every level's folder")
		}
		files = append(files, e)
	}
	for _, l := range levels.All {
		for _, p := range shipped.Classify(modPath, levelFiles[l.Number]).Other {
			problems = append(problems, p+" is not the stub as shipped ("+shipped.StubProblem(levelFiles[l.Number][p])+")")
		}
	}
	return files, problems
}

// solutionsImport returns the solutions/ package a Go file or go.mod
// imports, or "".
func solutionsImport(modPath, name string, data []byte) string {
	sol := modPath + "/solutions"
	isSol := func(ip string) bool { return ip == sol || strings.HasPrefix(ip, sol+"/") }
	switch {
	case strings.HasSuffix(name, ".go"):
		ips, err := shipped.Imports(name, data)
		if err != nil {
			// Not Go that parses: search the text instead.
			if i := bytes.Index(data, []byte(`"`+sol)); i >= 0 {
				end := bytes.IndexByte(data[i+1:], '"')
				if end > 0 {
					return string(data[i+1 : i+1+end])
				}
				return sol
			}
			return ""
		}
		for _, ip := range ips {
			if isSol(ip) {
				return ip
			}
		}
	case path.Base(name) == "go.mod":
		for _, w := range strings.Fields(string(data)) {
			if isSol(strings.Trim(w, `"`)) {
				return w
			}
		}
	}
	return ""
}

// CheckStubsOf runs the stub check of make test-stubs on files, and returns
// the levels whose cases do not all fail as not implemented.
func CheckStubsOf(files []shipped.TreeEntry, stderr io.Writer) ([]string, error) {
	tmp, err := os.MkdirTemp("", "ladder-stubcheck-")
	if err != nil {
		return nil, err
	}
	defer sandbox.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	if err := WriteEntries(src, files); err != nil {
		return nil, err
	}
	codeByDir := map[string][]string{}
	for _, e := range files {
		if n, role := levels.RoleOf(e.Path); role == levels.Code {
			l, _ := levels.Numbered(n)
			codeByDir[l.Dir] = append(codeByDir[l.Dir], e.Path)
		}
	}
	if len(codeByDir) == 0 {
		return nil, nil
	}
	fmt.Fprintln(stderr, "Checking that every stub fails every case as not implemented...")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	found, err := grade.CheckStubs(ctx, src)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, p := range found {
		for dir, code := range codeByDir {
			if strings.HasPrefix(p, dir+":") || strings.HasPrefix(p, dir+" ") || strings.HasPrefix(p, dir+"/") {
				sort.Strings(code)
				p += fmt.Sprintf(" (the level's code: %s)", strings.Join(code, ", "))
				break
			}
		}
		problems = append(problems, p)
	}
	return problems, nil
}

// WriteEntries writes commit files under dir.
func WriteEntries(dir string, files []shipped.TreeEntry) error {
	for _, e := range files {
		target := filepath.Join(dir, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if e.Mode == "100755" {
			mode = 0o755
		}
		if err := os.WriteFile(target, e.Data, mode); err != nil {
			return err
		}
	}
	return nil
}

// WithoutGitRepoEnv drops the variables that would point git elsewhere.
func WithoutGitRepoEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR":
			continue
		}
		out = append(out, kv)
	}
	return out
}
