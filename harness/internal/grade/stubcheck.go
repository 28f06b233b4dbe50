package grade

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// CheckStubs returns what is wrong with the stubs under root, one line
// each, naming the file or the case.
func CheckStubs(ctx context.Context, root string) ([]string, error) {
	// Without -race: every stub panics at once.
	lvs := slices.Clone(levels.All)
	for i := range lvs {
		lvs[i].Race = false
	}
	runs := LevelRuns(lvs)
	for i := range runs {
		runs[i].Lean = true
	}
	pkgs, err := runAll(ctx, root, runs, Plain)
	if err != nil {
		return nil, err
	}
	problems, err := CheckStubSources(root)
	if err != nil {
		return nil, err
	}
	for _, l := range levels.All {
		if _, err := os.Stat(filepath.Join(root, l.Dir)); err == nil {
			problems = append(problems, checkStubRun(root, l, pkgs)...)
		}
	}
	return problems, nil
}

// checkStubRun checks what a level's untouched stub reported: every case
// not implemented, in a part the registry lists, each part some case, and
// each spec's list naming exactly the cases its module reported.
func checkStubRun(root string, l levels.Level, pkgs []*Package) []string {
	var problems, lists []string
	ran := map[int]bool{}
	reported := map[string]map[protocol.ManifestCase]bool{} // by module
	for _, p := range pkgs {
		rel := RelDir(root, p.Dir)
		if !l.Holds(rel) {
			continue
		}
		switch {
		case p.BuildError != "":
			problems = append(problems, fmt.Sprintf("%s does not compile:\n%s", rel, Indent(FirstLines(p.BuildError, 10), "  ")))
			continue
		case p.NoTests:
			continue
		case p.Exit == nil:
			problems = append(problems, rel+": its tests did not report through the ladder's runner")
			continue
		case !p.Exit.Complete:
			problems = append(problems, rel+": "+p.Exit.Reason)
		}
		var bad []string
		mod := ModuleOf(l, rel).Dir
		for _, c := range p.Cases {
			if _, ok := l.Part(c.Part); !ok {
				problems = append(problems, fmt.Sprintf("%s: case %q is in part %d, which harness/levels does not list for level %d", rel, c.Name, c.Part, l.Number))
			}
			if c.Verdict != protocol.NotImplemented {
				bad = append(bad, fmt.Sprintf("part %d, %s (%s)", c.Part, c.Name, c.Verdict))
			}
			if !c.Fuzz {
				ran[c.Part] = true
				if reported[mod] == nil {
					reported[mod] = map[protocol.ManifestCase]bool{}
				}
				reported[mod][protocol.ManifestCase{Part: c.Part, Name: c.Name}] = true
			}
		}
		if len(bad) > 0 {
			problems = append(problems, fmt.Sprintf("%s is not the stub as shipped: the stub check fails %d case(s), such as %q", rel, len(bad), bad[0]))
		}
	}
	for _, m := range l.Modules {
		file := l.SpecDir(m) + "/" + protocol.ManifestFile
		man, err := protocol.ReadManifest(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			lists = append(lists, fmt.Sprintf("level %d: %v", l.Number, err))
			continue
		}
		listed := map[protocol.ManifestCase]bool{}
		for _, c := range man.Cases {
			k := protocol.ManifestCase{Part: c.Part, Name: c.Name}
			if listed[k] = true; c.Needs == "" && !reported[m.Dir][k] {
				lists = append(lists, fmt.Sprintf("%s lists case %q of part %d, which the stub's run never reported", file, c.Name, c.Part))
			}
		}
		for k := range reported[m.Dir] {
			if !listed[k] {
				lists = append(lists, fmt.Sprintf("%s does not list case %q of part %d: run the spec's TestManifestListsEveryCase with %s=1", file, k.Name, k.Part, protocol.UpdateManifestEnv))
			}
		}
	}
	slices.Sort(lists)
	problems = append(problems, lists...)
	for _, p := range l.Parts {
		if !ran[p.Number] {
			problems = append(problems, fmt.Sprintf("level %d, part %d (%s): no case ran", l.Number, p.Number, p.Title))
		}
	}
	return problems
}

// CheckStubSources checks that every level's file under root is a stub or
// a shared file: running the cases cannot see an answer no method calls.
func CheckStubSources(root string) ([]string, error) {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, l := range levels.All {
		files := map[string][]byte{}
		err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(l.Dir)), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = data
			return err
		})
		if errors.Is(err, fs.ErrNotExist) {
			continue // a level this copy does not have
		}
		if err != nil {
			return nil, err
		}
		for _, p := range shipped.Classify(modPath, files).Other {
			problems = append(problems, fmt.Sprintf("%s is not the stub as shipped: %s", p, shipped.StubProblem(files[p])))
		}
	}
	return problems, nil
}
