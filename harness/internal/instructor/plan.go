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

	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// gradingPlan is what every student's grading copy takes from the
// instructor's checkout, read once.
type gradingPlan struct {
	Levels []levels.Level
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
	p := &gradingPlan{Levels: levels.All, base: map[string][]byte{}, stubs: map[string][]byte{}, checked: map[string]bool{}}
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
		if lv, role := levels.RoleOf(n); lv != 0 && role != levels.Reference {
			if levelFiles[lv] == nil {
				levelFiles[lv] = map[string][]byte{}
			}
			levelFiles[lv][n] = data
			continue
		}
		p.base[n] = data
	}
	for _, l := range p.Levels {
		files := levelFiles[l.Number]
		shared := map[string]bool{}
		var as shipped.Level
		if inGit {
			as, err = shipped.Find(root, l)
		}
		if !inGit || err != nil {
			// No history to go by: the working tree's stubs and shared files.
			code := shipped.Classify(modPath, files)
			as = shipped.Level{Code: code, Files: map[string][]byte{}}
			for _, s := range append(append([]string{}, code.Stubs...), code.Shared...) {
				as.Files[s] = files[s]
			}
		}
		for _, s := range as.Code.Shared {
			shared[s] = true
		}
		for _, s := range as.Code.Stubs {
			p.stubs[s] = as.Files[s]
		}
		for n, data := range files {
			switch {
			case l.HasRole(n, levels.Code) && !shared[n]:
				// The instructor's own code: never graded.
			default:
				p.base[n] = data
				if (shared[n] || isTestOrSpec(n)) && inStudentCopy(n) {
					p.checked[n] = true
				}
			}
		}
	}
	return p, nil
}

// instructorFiles lists the files of root a grading copy may take: go.mod,
// go.sum, harness/ but its nested modules, and ladder/; those git tracks,
// or every file outside git.
func instructorFiles(root string) (names []string, inGit bool) {
	var all []string
	if out, err := shipped.Git(root, "ls-files", "-z"); err == nil {
		inGit = true
		all = strings.Split(out, "\x00")
	} else {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() && (d.Name() == ".git" || rel == learner.StateDir || rel == "solutions" || rel == "plots") {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				all = append(all, rel)
			}
			return nil
		})
	}
	levelModule := map[string]bool{} // a level's nested module is graded as one
	for _, l := range levels.All {
		for _, m := range l.Modules {
			levelModule[m.Dir] = true
		}
	}
	var nested []string // folders of other nested modules, such as harness/plot
	for _, n := range all {
		if path.Base(n) == "go.mod" && n != "go.mod" && !levelModule[path.Dir(n)] {
			nested = append(nested, path.Dir(n)+"/")
		}
	}
	for _, n := range all {
		if n == "" {
			continue
		}
		keep := n == "go.mod" || n == "go.sum" || strings.HasPrefix(n, "harness/") || strings.HasPrefix(n, "ladder/")
		for _, m := range nested {
			if strings.HasPrefix(n, m) {
				keep = false
			}
		}
		if keep {
			names = append(names, n)
		}
	}
	return names, inGit
}

// isTestOrSpec reports whether p is a level's test or spec file.
func isTestOrSpec(p string) bool {
	_, role := levels.RoleOf(p)
	return role == levels.Test || role == levels.Spec
}

var errNotCheckout = errors.New("not a rateladder checkout")

// Build writes into dest the grading copy of studentDir: the base files
// and the student's own code, without following a symlink. It returns
// notes on what the student changed that is not theirs to change. An
// empty studentDir gives the ladder as shipped.
func (p *gradingPlan) Build(studentDir, dest string) (notes []string, err error) {
	if studentDir != "" {
		if info, err := os.Lstat(filepath.Join(studentDir, "ladder")); err != nil || !info.IsDir() {
			return nil, errNotCheckout
		}
	}
	if err := p.tooBig(studentDir); err != nil {
		return nil, err
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
	var testsEdited, sharedEdited, symlinks, notGraded []string
	edited := func(n string) {
		if isTestOrSpec(n) {
			testsEdited = append(testsEdited, n)
		} else {
			sharedEdited = append(sharedEdited, n)
		}
	}
	for _, l := range p.Levels {
		levelDir := ""
		var info fs.FileInfo
		var err error
		if studentDir != "" {
			levelDir = filepath.Join(studentDir, filepath.FromSlash(l.Dir))
			info, err = os.Lstat(levelDir)
		}
		if levelDir == "" || err != nil || !info.IsDir() {
			// No folder (or a symlink): the level as shipped.
			for n, data := range p.stubs {
				if l.Holds(n) {
					if err := write(n, data); err != nil {
						return nil, err
					}
				}
			}
			if levelDir != "" && err == nil {
				symlinks = append(symlinks, l.Dir)
			}
			continue
		}
		seen := map[string]bool{}
		inBase := func(n string) bool { _, ok := p.base[n]; return ok }
		err = filepath.WalkDir(levelDir, func(fp string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(studentDir, fp)
			n := filepath.ToSlash(rel)
			if !d.Type().IsRegular() {
				if d.Type()&fs.ModeSymlink != 0 && (l.HasRole(n, levels.Code) || p.checked[n]) {
					symlinks = append(symlinks, n)
				}
				return nil
			}
			switch {
			case p.checked[n]:
				seen[n] = true
				data, err := os.ReadFile(fp)
				if err != nil || !bytes.Equal(data, p.base[n]) {
					edited(n)
				}
			case isTestOrSpec(n):
				// A test of their own is not run.
				if strings.HasSuffix(n, ".go") && inStudentCopy(n) {
					testsEdited = append(testsEdited, n)
				}
			case l.HasRole(n, levels.Code) || ownFile(n) && !inBase(n):
				// Their code, or a file beside it (a Lua script).
				data, err := os.ReadFile(fp)
				if err != nil {
					return err
				}
				if foreignCode(n, data) {
					notGraded = append(notGraded, n)
					return nil
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
	if len(testsEdited) > 0 {
		notes = append(notes, "tests edited: graded with the original tests ("+SomeNames(testsEdited)+")")
	}
	if len(sharedEdited) > 0 {
		notes = append(notes, SomeNames(sharedEdited)+" edited: graded with the original")
	}
	var mods []string
	for n, data := range p.base {
		if path.Base(n) == "go.mod" {
			if mod, err := os.ReadFile(filepath.Join(studentDir, filepath.FromSlash(n))); err == nil && !bytes.Equal(mod, data) {
				mods = append(mods, n)
			}
		}
	}
	if len(mods) > 0 {
		notes = append(notes, SomeNames(mods)+" edited: graded with the original")
	}
	if len(symlinks) > 0 {
		notes = append(notes, "symlinks ignored ("+SomeNames(symlinks)+")")
	}
	if len(notGraded) > 0 {
		notes = append(notes, "cgo, C and assembly not graded ("+SomeNames(notGraded)+")")
	}
	return notes, nil
}

// tooBig refuses a checkout whose level folders hold a file over
// maxStudentFile, or more than maxLevelFiles files.
func (p *gradingPlan) tooBig(studentDir string) error {
	if studentDir == "" {
		return nil
	}
	if info, err := os.Lstat(filepath.Join(studentDir, "go.mod")); err == nil && info.Size() > maxStudentFile {
		return fmt.Errorf("refused: go.mod is %s, over the %d MiB the report reads of one file", sizeOf(info.Size()), maxStudentFile>>20)
	}
	for _, l := range p.Levels {
		levelDir := filepath.Join(studentDir, filepath.FromSlash(l.Dir))
		files := 0
		var refusal error
		filepath.WalkDir(levelDir, func(fp string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil // Build says what it makes of it
			}
			if files++; files > maxLevelFiles {
				refusal = fmt.Errorf("refused: %s holds more than %d files", TerminalText(l.Dir), maxLevelFiles)
				return filepath.SkipAll
			}
			info, err := d.Info() // WalkDir's entries are Lstat's
			if err == nil && info.Mode().IsRegular() && info.Size() > maxStudentFile {
				rel, _ := filepath.Rel(studentDir, fp)
				refusal = fmt.Errorf("refused: %s is %s, over the %d MiB the report reads of one file", TerminalText(filepath.ToSlash(rel)), sizeOf(info.Size()), maxStudentFile>>20)
				return filepath.SkipAll
			}
			return nil
		})
		if refusal != nil {
			return refusal
		}
	}
	return nil
}

// sizeOf writes a file's size in MiB, or GiB from 1 GiB.
func sizeOf(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// ownFile reports whether p, a level's file that is not Go code, may be
// the student's own.
func ownFile(p string) bool {
	_, role := levels.RoleOf(p)
	return role == levels.Doc || role == levels.OtherFile
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
