package levels

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Role is what a file is to the ladder: whose it is, and who reads it.
type Role int

const (
	Outside    Role = iota // of no level and not of the harness
	Harness                // under harness/
	Code                   // a level's Go code, the learner's to write
	Test                   // a level's _test.go file outside its spec
	Spec                   // in a spec folder, testdata included
	Testdata               // under a level's testdata folder, outside the spec
	Doc                    // a level's Markdown file
	ModuleFile             // a level's go.mod, go.sum, go.work or go.work.sum
	OtherFile              // any other file of a level
	Reference              // a level's reference, under solutions/
)

// InLearnersCode reports whether a traceback's file, named from the
// repository's top, is the learner's or a stand-in (a test, a reference):
// not the runtime's, the harness's or a spec's.
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

// RoleOf says which level (0 for none) holds the slash-separated path p,
// relative to the repository's top, and what p is there.
func RoleOf(p string) (level int, role Role) {
	if p = path.Clean(p); within(p, "harness") {
		return 0, Harness
	}
	for _, l := range All {
		switch {
		case l.Holds(p):
			return l.Number, roleIn(strings.TrimPrefix(strings.TrimPrefix(p, l.Dir), "/"))
		case within(p, l.SolutionDir()):
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
	elems := strings.Split(rest, "/")
	name := elems[len(elems)-1]
	switch {
	// Any folder on the way decides first: a spec's testdata is the spec's.
	case slices.Contains(elems, "spec"):
		return Spec
	case slices.Contains(elems, "testdata"):
		return Testdata
	case strings.HasSuffix(name, "_test.go"):
		return Test
	case strings.HasSuffix(name, ".go"):
		return Code
	case strings.HasSuffix(name, ".md"):
		return Doc
	case slices.Contains([]string{"go.mod", "go.sum", "go.work", "go.work.sum"}, name):
		return ModuleFile
	}
	return OtherFile
}
