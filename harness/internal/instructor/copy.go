package instructor

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// inStudentCopy says which repository files a student gets: no reference,
// no tests' answers, no spec's own tests or oracle.go (answers too), and
// nothing the tools write.
func inStudentCopy(path string) bool {
	for _, prefix := range []string{"solutions/", AnswersDir + "/", interview.StateDir + "/", "plots/"} {
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

// referenceRuns lists the runs of referenceRun significant lines (each
// trimmed) of data.
func referenceRuns(data []byte) []string {
	var lines, runs []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); len(l) >= referenceLine {
			lines = append(lines, l)
		}
	}
	for i := 0; i+referenceRun <= len(lines); i++ {
		runs = append(runs, strings.Join(lines[i:i+referenceRun], "\n"))
	}
	return runs
}

// references indexes every run of the references in tree to its file, but
// those a level's code holds too (the stub check sees to those files).
func references(tree []shipped.TreeEntry) map[string]string {
	runs := map[string]string{}
	for _, e := range tree {
		if strings.HasPrefix(e.Path, "solutions/") && !strings.HasSuffix(e.Path, "_test.go") && (strings.HasSuffix(e.Path, ".go") || strings.HasSuffix(e.Path, ".lua")) {
			for _, r := range referenceRuns(e.Data) {
				runs[r] = e.Path
			}
		}
	}
	for _, e := range tree {
		if _, role := levels.RoleOf(e.Path); role == levels.Code {
			for _, r := range referenceRuns(e.Data) {
				delete(runs, r)
			}
		}
	}
	return runs
}

// WarnUncommitted tells the instructor what the copy leaves out because it
// is not committed.
func WarnUncommitted(root, head string, stderr io.Writer) {
	out, err := shipped.Git(root, "status", "--porcelain=v1", "--untracked-files=all")
	if err != nil || out == "" {
		return
	}
	fmt.Fprintf(stderr, "warning: the working tree has uncommitted changes. The copy is made from the last commit (%s) and does not contain them:\n", head[:7])
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if i == 10 {
			fmt.Fprintf(stderr, "  ... and %d more (git status)\n", strings.Count(out, "\n")-10)
			break
		}
		fmt.Fprintf(stderr, "  %s\n", l)
	}
}

// StudentCopyFiles picks the files of the commit a student gets, and lists
// the problems that forbid a copy.
func StudentCopyFiles(modPath string, tree []shipped.TreeEntry) (files []shipped.TreeEntry, problems []string) {
	levelFiles := map[int]map[string][]byte{} // level number → its files
	refs := references(tree)
	for _, e := range tree {
		if !inStudentCopy(e.Path) {
			continue
		}
		ref := ""
		if _, role := levels.RoleOf(e.Path); role != levels.Code {
			for _, r := range referenceRuns(e.Data) {
				ref = cmp.Or(ref, refs[r])
			}
		}
		kind := BinaryKind(e.Data)
		if p := cmp.Or(
			cond(ref != "", fmt.Sprintf("%s carries lines of the reference %s: a student copy hands out no answer, whatever the file's name", e.Path, ref)),
			cond(e.Mode == "120000", fmt.Sprintf("%s is a symlink (to %s): a student copy takes none", e.Path, e.Data)),
			cond(e.Mode == "160000", e.Path+" is a submodule: a student copy takes none"),
			cond(kind != "", fmt.Sprintf("%s is %s: a student copy takes no binary", e.Path, kind)),
			cond(len(e.Data) > maxStudentFile, fmt.Sprintf("%s is %.1f MiB, over the %d MiB a student copy takes for one file", e.Path, float64(len(e.Data))/(1<<20), maxStudentFile>>20)),
		); p != "" {
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
// names, or "".
func solutionsImport(modPath, name string, data []byte) string {
	if !strings.HasSuffix(name, ".go") && path.Base(name) != "go.mod" {
		return ""
	}
	ip := regexp.MustCompile(regexp.QuoteMeta(modPath+"/solutions") + `(/[^"\s]*)?(["\s]|$)`).Find(data)
	return strings.TrimRight(string(ip), "\" \t\r\n")
}

// CheckStubsOf runs the stub check of make test-stubs on files, and returns
// the levels whose cases do not all fail as not implemented.
func CheckStubsOf(files []shipped.TreeEntry, stderr io.Writer) ([]string, error) {
	if !slices.ContainsFunc(files, func(e shipped.TreeEntry) bool { _, role := levels.RoleOf(e.Path); return role == levels.Code }) {
		return nil, nil
	}
	tmp, err := os.MkdirTemp("", "ladder-stubcheck-")
	if err != nil {
		return nil, err
	}
	defer sandbox.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	if err := WriteEntries(src, files); err != nil {
		return nil, err
	}
	fmt.Fprintln(stderr, "Checking that every stub fails every case as not implemented...")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	found, err := grade.CheckStubs(ctx, src)
	for i, p := range found {
		for _, l := range levels.All {
			if rest, ok := strings.CutPrefix(p, l.Dir); ok && rest != "" && strings.ContainsRune(": /", rune(rest[0])) {
				var code []string
				for _, e := range files {
					if l.HasRole(e.Path, levels.Code) {
						code = append(code, e.Path)
					}
				}
				slices.Sort(code)
				found[i] += fmt.Sprintf(" (the level's code: %s)", strings.Join(code, ", "))
			}
		}
	}
	return found, err
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
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains([]string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"}, name)
	})
}

// maxStudentFile is the largest file a student copy takes, and a class
// report reads of a student's level folder.
const maxStudentFile = 1 << 20

// maxLevelFiles is the most files a class report takes in a level folder.
const maxLevelFiles = 300

// binaryStarts are how binary files start, and what they are; "" marks
// the images a README may show.
var binaryStarts = []struct{ start, kind string }{
	{"\x7fELF", "an ELF binary (Linux)"},
	{"\xfe\xed\xfa\xce", machO}, {"\xfe\xed\xfa\xcf", machO}, {"\xce\xfa\xed\xfe", machO}, {"\xcf\xfa\xed\xfe", machO}, {"\xca\xfe\xba\xbe", machO},
	{"!<arch>\n", "an archive (a Go package's .a file, or ar's)"},
	{"\x00asm", "a WebAssembly module"},
	{"\x89PNG\r\n\x1a\n", ""}, {"\xff\xd8\xff", ""}, {"GIF87a", ""}, {"GIF89a", ""},
}

const machO = "a Mach-O binary (macOS)"

// BinaryKind says what binary data is ("an ELF binary (Linux)"), or "" for
// text and the images a README may show.
func BinaryKind(data []byte) string {
	// A PE binary: MZ, then "PE\0\0" where the offset at 0x3c points.
	if len(data) >= 0x40 && bytes.HasPrefix(data, []byte("MZ")) {
		if off := int64(binary.LittleEndian.Uint32(data[0x3c:])); off+4 <= int64(len(data)) && bytes.Equal(data[off:off+4], []byte("PE\x00\x00")) {
			return "a PE binary (Windows)"
		}
	}
	for _, b := range binaryStarts {
		if bytes.HasPrefix(data, []byte(b.start)) {
			return b.kind
		}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "a binary file (it holds a NUL byte, which no text file does)"
	}
	return ""
}

// cond is s if ok, else "".
func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// AnswersDir holds the ladder command's tests' code that solves levels or
// parts, which a student copy leaves out.
const AnswersDir = "harness/cmd/ladder/testdata/answers"
