package levels

import (
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Role is what a file is to the ladder: whose it is, and who reads it.
type Role int

const (
	// Outside is a file of no level and not of the harness: the
	// repository's own files (go.mod, the Makefile), its testdata.
	Outside Role = iota
	// Harness is a file of the ladder's machinery, under harness/.
	Harness
	// Code is a level's Go code that the learner writes: a stub as
	// shipped, a shared package the spec imports (level 8's limits/), or a
	// file of the learner's own beside them. Which of those a file is
	// takes its content and history to tell; the path cannot.
	Code
	// Test is a level's _test.go file outside its spec: the tiny test
	// that runs the spec, or a test of the learner's own.
	Test
	// Spec is a file of a level's spec folder, or of the spec folder of a
	// module inside the level (level 8's Redis form), tests and testdata
	// included: the ladder's cases, never the learner's.
	Spec
	// Testdata is a file under a testdata folder of the level, outside the
	// spec. The go tool never builds a testdata folder, so a .go file
	// there is not code of the level either.
	Testdata
	// Doc is a Markdown file of the level: README.md, HINTS.md,
	// INTERVIEWER.md, or notes of the learner's own.
	Doc
	// ModuleFile is a level's go.mod, go.sum, go.work or go.work.sum: the
	// ladder's, whatever the learner writes.
	ModuleFile
	// OtherFile is any other file of the level, such as a Lua script a
	// Redis form embeds.
	OtherFile
	// Reference is a file of a level's reference, under solutions/.
	Reference
)

var roleNames = [...]string{"outside", "harness", "code", "test", "spec", "testdata", "doc", "module file", "other file", "reference"}

func (r Role) String() string {
	if r >= 0 && int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "Role(" + strconv.Itoa(int(r)) + ")"
}

// InLearnersCode reports whether a file of a traceback, named from the
// repository's top, is the learner's, or a stand-in for the learner: not
// the runtime or the standard library (absolute paths, outside the
// module), not the harness, not a spec. A test's own file is a stand-in,
// such as a spec's mutant; the reference is one too.
func InLearnersCode(file string) bool {
	file = filepath.ToSlash(file)
	switch {
	case filepath.IsAbs(file), !strings.HasSuffix(file, ".go"), strings.HasPrefix(file, "_testmain.go"):
		return false
	case strings.HasSuffix(file, "_test.go"):
		return true
	}
	_, role := RoleOf(file)
	return role != Harness && role != Spec
}

// RoleOf says which level holds the path p (slash-separated, relative to
// the repository's top; a file or a folder) and what p is there. level is
// 0 for a path of no level. It is the one rule every tool uses to tell
// the learner's files from the ladder's.
func RoleOf(p string) (level int, role Role) {
	p = strings.TrimSuffix(path.Clean(p), "/")
	if p == "harness" || strings.HasPrefix(p, "harness/") {
		return 0, Harness
	}
	for _, l := range All {
		switch {
		case l.Holds(p):
			return l.Number, roleIn(strings.TrimPrefix(strings.TrimPrefix(p, l.Dir), "/"))
		case p == l.SolutionDir() || strings.HasPrefix(p, l.SolutionDir()+"/"):
			return l.Number, Reference
		}
	}
	return 0, Outside
}

// HasRole reports whether p (see RoleOf) is in level l with the given role.
func (l Level) HasRole(p string, role Role) bool {
	n, r := RoleOf(p)
	return n == l.Number && r == role
}

// roleIn is the role of rest, a path inside a level's folder ("" for the
// folder itself).
func roleIn(rest string) Role {
	if rest == "" {
		return OtherFile
	}
	// Any folder on the way decides first: a spec's testdata is the spec's.
	elems := strings.Split(rest, "/")
	for _, e := range elems {
		if e == "spec" {
			return Spec
		}
	}
	for _, e := range elems {
		if e == "testdata" {
			return Testdata
		}
	}
	name := elems[len(elems)-1]
	switch {
	case strings.HasSuffix(name, "_test.go"):
		return Test
	case strings.HasSuffix(name, ".go"):
		return Code
	case strings.HasSuffix(name, ".md"):
		return Doc
	}
	switch name {
	case "go.mod", "go.sum", "go.work", "go.work.sum":
		return ModuleFile
	}
	return OtherFile
}
