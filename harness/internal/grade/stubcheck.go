package grade

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// CheckStubs returns what is wrong with the stubs under root, one line
// each, naming the file or the case.
func CheckStubs(ctx context.Context, root string) ([]string, error) {
	lvs := slices.Clone(levels.All)
	for i := range lvs {
		lvs[i].Race = false // every stub panics at once
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
		if _, werr := shipped.Working(root, l); werr == nil {
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
	for _, p := range pkgs {
		rel := RelDir(root, p.Dir)
		if !l.Holds(rel) {
			continue
		}
		var bad []string
		for _, c := range p.Cases {
			if _, ok := l.Part(c.Part); !ok {
				problems = append(problems, fmt.Sprintf("%s: case %q is in part %d, which harness/levels does not list for level %d", rel, c.Name, c.Part, l.Number))
			}
			if c.Verdict != protocol.NotImplemented {
				bad = append(bad, fmt.Sprintf("part %d, %s (%s)", c.Part, c.Name, c.Verdict))
			}
		}
		if len(bad) > 0 {
			problems = append(problems, fmt.Sprintf("%s is not the stub as shipped: the stub check fails %d case(s), such as %q", rel, len(bad), bad[0]))
		}
	}
	g, listed := Grade(root, l, pkgs), SpecLists(root, l)
	for _, p := range g.Parts {
		file := l.SpecDir(l.ModuleOf(p.Number)) + "/" + protocol.ManifestFile
		for _, c := range p.Unreported {
			lists = append(lists, fmt.Sprintf("%s lists case %q of part %d, which the stub's run never reported", file, c, p.Number))
		}
		for _, c := range p.Cases {
			if !c.Fuzz && !slices.ContainsFunc(listed[p.Number], func(m protocol.ManifestCase) bool { return m.Name == c.Name }) {
				lists = append(lists, fmt.Sprintf("%s does not list case %q of part %d: run the spec's TestManifestListsEveryCase with %s=1", file, c.Name, c.Part, protocol.UpdateManifestEnv))
			}
		}
		for _, b := range p.Blocked {
			if !slices.Contains(problems, b) {
				problems = append(problems, b)
			}
		}
	}
	slices.Sort(lists)
	problems = append(problems, slices.Compact(lists)...)
	for _, p := range g.Parts {
		if p.Reported == 0 {
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
		files, err := shipped.Working(root, l)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a level this copy does not have
		} else if err != nil {
			return nil, err
		}
		for _, p := range shipped.Classify(modPath, files).Other {
			problems = append(problems, fmt.Sprintf("%s is not the stub as shipped: %s", p, shipped.StubProblem(files[p])))
		}
	}
	return problems, nil
}
