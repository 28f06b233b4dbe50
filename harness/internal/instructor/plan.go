package instructor

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// gradingPlan is what every student's grading copy takes from the
// instructor's checkout, read once.
type gradingPlan struct {
	Levels  []levels.Level
	modPath string
	// base holds every file of a grading copy but the learner's.
	base map[string][]byte
	// stubs holds each level's stubs as shipped, for a level not begun.
	stubs map[string][]byte
	// checked marks the files of base (tests, specs, shared code) whose
	// edits are noted, never used.
	checked map[string]bool
}

// newGradingPlan reads the instructor's checkout at root: the files git
// tracks (all, outside git), with each level's stubs from the commit that
// shipped them, so that a reference pasted over a stub is never used.
func newGradingPlan(root string) (*gradingPlan, error) {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		return nil, fmt.Errorf("run it from the ladder's top folder: %w", err)
	}
	names, inGit := instructorFiles(root)
	p := &gradingPlan{Levels: levels.All, modPath: modPath, base: map[string][]byte{}, stubs: map[string][]byte{}, checked: map[string]bool{}}
	levelFiles := map[int]map[string][]byte{} // level number → its files
	for _, n := range names {
		info, err := os.Lstat(filepath.Join(root, n))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted, or a symlink
		}
		data, err := os.ReadFile(filepath.Join(root, n))
		if err != nil {
			return nil, err
		}
		if lv, _ := levels.RoleOf(n); lv != 0 {
			if levelFiles[lv] == nil {
				levelFiles[lv] = map[string][]byte{}
			}
			levelFiles[lv][n] = data
		} else {
			p.base[n] = data
		}
	}
	for _, l := range p.Levels {
		files := levelFiles[l.Number]
		as, err := shipped.Level{}, errNotCheckout
		if inGit {
			as, err = shipped.Find(root, l)
		}
		if err != nil { // no history to go by: the working tree's stubs and shared files
			as = shipped.Level{Code: shipped.Classify(modPath, files), Files: files}
		}
		for _, s := range as.Code.Stubs {
			p.stubs[s] = as.Files[s]
		}
		for n, data := range files {
			shared := slices.Contains(as.Code.Shared, n)
			if l.HasRole(n, levels.Code) && !shared {
				continue // the instructor's own code: never graded
			}
			p.base[n] = data
			if _, role := levels.RoleOf(n); (shared || role == levels.Test || role == levels.Spec) && inStudentCopy(n) {
				p.checked[n] = true
			}
		}
	}
	return p, nil
}

// instructorFiles lists the files of root a grading copy may take: go.mod,
// go.sum, harness/ but its nested modules, and ladder/; those git tracks,
// or every file outside git.
func instructorFiles(root string) (names []string, inGit bool) {
	keep := func(n string) bool {
		return n == "go.mod" || n == "go.sum" || strings.HasPrefix(n, "harness/") || strings.HasPrefix(n, "ladder/")
	}
	var all []string
	if out, err := shipped.Git(root, "ls-files", "-z"); err == nil {
		inGit, all = true, strings.Split(out, "\x00")
	} else {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(root, p)
			if rel = filepath.ToSlash(rel); err == nil && d.IsDir() && rel != "." && !keep(rel+"/") {
				return filepath.SkipDir
			} else if err == nil && !d.IsDir() {
				all = append(all, rel)
			}
			return nil
		})
	}
	var nested []string // folders of nested modules, such as harness/plot, but a level's own
	for _, n := range all {
		dir := path.Dir(n)
		if path.Base(n) == "go.mod" && dir != "." && !slices.ContainsFunc(levels.All, func(l levels.Level) bool {
			return slices.ContainsFunc(l.Modules, func(m levels.Module) bool { return m.Dir == dir })
		}) {
			nested = append(nested, dir+"/")
		}
	}
	for _, n := range all {
		if keep(n) && !slices.ContainsFunc(nested, func(m string) bool { return strings.HasPrefix(n, m) }) {
			names = append(names, n)
		}
	}
	return names, inGit
}

var errNotCheckout = errors.New("not a rateladder checkout")

// What Build notes of a student's checkout, in the order of buildNotes.
const (
	testsEdited = iota
	sharedEdited
	modEdited
	symlinked
	notGraded
)

var buildNotes = [...]string{
	"tests edited: graded with the original tests (%s)",
	"%s edited: graded with the original",
	"%s edited: graded with the original",
	"symlinks ignored (%s)",
	"cgo, C and assembly not graded (%s)",
}

// Build writes into dest the grading copy of studentDir: the base files
// and the student's own code, without following a symlink. It returns
// notes on what the student changed that is not theirs to change. An
// empty studentDir gives the ladder as shipped. A level folder of more
// than maxLevelFiles files, or a file over maxStudentFile, is refused
// before it is read.
func (p *gradingPlan) Build(studentDir, dest string) (notes []string, err error) {
	if studentDir != "" {
		if info, err := os.Lstat(filepath.Join(studentDir, "ladder")); err != nil || !info.IsDir() {
			return nil, errNotCheckout
		}
		if info, err := os.Lstat(filepath.Join(studentDir, "go.mod")); err == nil && info.Size() > maxStudentFile {
			return nil, tooBig("go.mod", info.Size())
		}
	}
	write := func(name string, data []byte) error {
		target := filepath.Join(dest, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	}
	for n, data := range p.base {
		if err := write(n, data); err != nil {
			return nil, err
		}
	}
	var noted [len(buildNotes)][]string
	edited := func(n string) {
		if _, role := levels.RoleOf(n); role == levels.Test || role == levels.Spec {
			noted[testsEdited] = append(noted[testsEdited], n)
		} else {
			noted[sharedEdited] = append(noted[sharedEdited], n)
		}
	}
	for _, l := range p.Levels {
		levelDir := filepath.Join(studentDir, filepath.FromSlash(l.Dir))
		info, err := os.Lstat(levelDir)
		if studentDir == "" || err != nil || !info.IsDir() {
			// No folder (or a symlink): the level as shipped.
			for n, data := range p.stubs {
				if l.Holds(n) {
					if err := write(n, data); err != nil {
						return nil, err
					}
				}
			}
			if studentDir != "" && err == nil {
				noted[symlinked] = append(noted[symlinked], l.Dir)
			}
			continue
		}
		seen, files := map[string]bool{}, 0
		err = filepath.WalkDir(levelDir, func(fp string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if files++; files > maxLevelFiles {
				return fmt.Errorf("refused: %s holds more than %d files", TerminalText(l.Dir), maxLevelFiles)
			}
			rel, _ := filepath.Rel(studentDir, fp)
			n := filepath.ToSlash(rel)
			info, err := d.Info() // WalkDir's entries are Lstat's
			switch _, role := levels.RoleOf(n); {
			case err != nil:
				return err
			case info.Mode()&fs.ModeSymlink != 0 && (role == levels.Code || p.checked[n]):
				noted[symlinked] = append(noted[symlinked], n)
			case !info.Mode().IsRegular():
			case info.Size() > maxStudentFile:
				return tooBig(n, info.Size())
			case p.checked[n]:
				seen[n] = true
				if data, err := os.ReadFile(fp); err != nil || !bytes.Equal(data, p.base[n]) {
					edited(n)
				}
			case role == levels.Test || role == levels.Spec:
				// A test of their own is not run.
				if strings.HasSuffix(n, ".go") && inStudentCopy(n) {
					noted[testsEdited] = append(noted[testsEdited], n)
				}
			case role == levels.Code || (role == levels.Doc || role == levels.OtherFile) && p.base[n] == nil:
				// Their code, or a file beside it (a Lua script).
				data, err := os.ReadFile(fp)
				if err != nil || foreignCode(n, data) {
					noted[notGraded] = append(noted[notGraded], n)
					return err
				}
				return write(n, data)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for n := range p.checked {
			if l.Holds(n) && !seen[n] {
				edited(n)
			}
		}
	}
	if studentDir == "" {
		return nil, nil
	}
	for n, data := range p.base {
		if path.Base(n) == "go.mod" {
			if mod, err := os.ReadFile(filepath.Join(studentDir, filepath.FromSlash(n))); err == nil && !bytes.Equal(mod, data) {
				noted[modEdited] = append(noted[modEdited], n)
			}
		}
	}
	for i, names := range noted {
		if len(names) > 0 {
			notes = append(notes, fmt.Sprintf(buildNotes[i], SomeNames(names)))
		}
	}
	return notes, nil
}

// tooBig refuses a student's file of size bytes.
func tooBig(name string, size int64) error {
	s := fmt.Sprintf("%.1f MiB", float64(size)/(1<<20))
	if size >= 1<<30 {
		s = fmt.Sprintf("%.1f GiB", float64(size)/(1<<30))
	}
	return fmt.Errorf("refused: %s is %s, over the %d MiB the report reads of one file", TerminalText(name), s, maxStudentFile>>20)
}

// foreignCode reports whether a student's file brings code other than Go
// (cgo, C, assembly, objects), which the report does not build.
func foreignCode(name string, data []byte) bool {
	switch path.Ext(name) {
	case ".go":
		ips, err := shipped.Imports(name, data)
		return err == nil && slices.Contains(ips, "C")
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".s", ".S", ".sx", ".f", ".F", ".for", ".f90", ".syso", ".swig", ".swigcxx":
		return true
	}
	return false
}

// SomeNames lists a few names, sorted, and how many more there are.
func SomeNames(names []string) string {
	names = slices.Clone(names)
	for i, n := range names {
		names[i] = TerminalText(n)
	}
	sort.Strings(names)
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}
