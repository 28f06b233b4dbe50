// Package grade runs a level's tests with go test -json and says, from what
// they report and the spec's list of cases, which parts are done.
package grade

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Level statuses, as progress shows them.
const (
	NotStarted = "not started"
	InProgress = "in progress"
	Done       = "done"
	NoBuild    = "does not compile"
	Broken     = "did not finish" // a test binary ended part way
)

// Case is a case as the runner reported it, or a race report with its case.
type Case = protocol.Event

// Part is one part of a level: done when every case its spec lists ran
// to its end and passed, in a test binary that ran to its end.
type Part struct {
	Number, Passed int
	Total          int // the spec's list, or the cases that reported if it has none
	Title          string
	Cases          []Case // the spec's cases, then any fuzz cases that failed
	Done, Ran      bool   // Ran: a test binary played this part
	// Of the spec's list: how many reported, which did not, and which of
	// those need a real redis-server.
	Reported               int
	Unreported, NeedServer []string
	Blocked                []string        // why nothing of it can count: no build, or a binary that ended part way
	Races                  []string        // race reports during its cases
	Match                  *protocol.Match // its failing cases against the known mistakes; nil if done or not comparable
}

// Level is a level, graded.
type Level struct {
	Level                      levels.Level
	Parts                      []Part
	BuildError                 string   // of the module that holds part 1; a later module's blocks its own parts only
	Broken                     []string // why test binaries of the level did not run to their end
	HideMistakes, HasReference bool     // withhold the known mistake's line (an interview's hint); the checkout has the level's reference
}

// PartsDone counts the parts that are done.
func (g Level) PartsDone() int {
	return len(g.Parts) - len(slices.DeleteFunc(slices.Clone(g.Parts), func(p Part) bool { return p.Done }))
}

// Status is the level's status as progress shows it: Done, NoBuild...
func (g Level) Status() string {
	switch {
	case g.BuildError != "":
		return NoBuild
	case g.PartsDone() == len(g.Parts):
		return Done
	case g.PartsDone() == 0 && len(g.Broken) > 0:
		return Broken
	case slices.ContainsFunc(g.Parts, func(p Part) bool {
		return p.Done || slices.ContainsFunc(p.Cases, func(c Case) bool { return c.Verdict != protocol.NotImplemented && !c.Fuzz })
	}):
		return InProgress
	}
	return NotStarted
}

// SpecLists reads each of the level's specs' list of cases, by part.
func SpecLists(root string, l levels.Level) map[int][]protocol.ManifestCase {
	out := map[int][]protocol.ManifestCase{}
	for _, m := range l.Modules {
		man, _ := protocol.ReadManifest(filepath.Join(root, filepath.FromSlash(l.SpecDir(m)), protocol.ManifestFile))
		for _, c := range man.Cases {
			out[c.Part] = append(out[c.Part], c)
		}
	}
	return out
}

// Grade joins a level's package results into parts. A build error, a
// broken binary or a race costs only the parts its run played.
func Grade(root string, l levels.Level, pkgs []*Package) Level {
	_, err := os.Stat(filepath.Join(root, l.SolutionDir()))
	g, part := Level{Level: l, HasReference: err == nil, Parts: make([]Part, len(l.Parts))}, map[int]*Part{}
	for i, p := range l.Parts {
		g.Parts[i] = Part{Number: p.Number, Title: p.Title}
		part[p.Number] = &g.Parts[i]
	}
	type caseKey struct {
		part int
		name string
	}
	reported := map[caseKey]bool{}
	for _, p := range pkgs {
		rel := RelDir(root, p.Dir)
		if !l.Holds(rel) {
			continue
		}
		covered, m := p.Parts, levels.Module{Dir: "."} // m holds rel
		if i := slices.IndexFunc(l.Modules, func(m levels.Module) bool { return rel == m.Dir || strings.HasPrefix(rel, m.Dir+"/") }); i >= 0 {
			m = l.Modules[i]
		}
		if covered == nil {
			covered = l.PartsOf(m)
		}
		why := ""
		if msg := strings.TrimSpace(p.BuildError); msg != "" {
			if slices.Contains(covered, l.Parts[0].Number) && !strings.Contains(g.BuildError, msg) {
				g.BuildError = strings.TrimSpace(g.BuildError + "\n" + msg)
			}
			why = fmt.Sprintf("%s does not compile:\n%s", rel, Indent(FirstLines(msg, 20), "  "))
		} else if p.Broken != "" {
			why = fmt.Sprintf("%s: %s", rel, p.Broken)
			g.Broken = append(g.Broken, why)
		}
		for _, n := range covered {
			part[n].Ran = part[n].Ran || !p.NoTests || p.BuildError != ""
			if why != "" && !slices.Contains(part[n].Blocked, why) {
				part[n].Blocked = append(part[n].Blocked, why)
			}
			for _, r := range p.Races {
				if n == r.Part || !slices.Contains(covered, r.Part) { // outside a case, every part the run played
					part[n].Races = append(part[n].Races, r.Report)
				}
			}
		}
		for _, c := range p.Cases {
			pg, pass, k := part[c.Part], c.Verdict == protocol.Pass, caseKey{c.Part, c.Name}
			switch {
			case pg == nil || !slices.Contains(covered, c.Part):
				continue // a part the registry does not know (the registry test catches it), or one this run did not play
			case c.Fuzz && (pass || c.Verdict == protocol.NotImplemented):
				continue // a fuzz seed matters only when it finds a real mistake
			case c.Fuzz:
			case !reported[k]:
				reported[k] = true
				pg.Total++
				if pass {
					pg.Passed++
				}
			case pass:
				continue // the same case again, on another server: it counts once
			}
			pg.Cases = append(pg.Cases, c)
		}
	}
	lists := SpecLists(root, l)
	for i := range g.Parts {
		p := &g.Parts[i]
		list, ok := lists[p.Number]
		if !ok {
			p.Reported = p.Total
		} else if p.Total = len(list); p.Ran { // if not, for "waits for part 1 (5 cases)"
			for _, c := range list {
				switch {
				case reported[caseKey{p.Number, c.Name}]:
					p.Reported++
				case c.Needs != "":
					p.NeedServer = append(p.NeedServer, c.Name)
				default:
					p.Unreported = append(p.Unreported, c.Name)
				}
			}
		}
		p.Done = p.Ran && len(p.Blocked) == 0 && len(p.Races) == 0 && p.Total > 0 &&
			p.Reported == p.Total && p.Passed == len(p.Cases) && p.Passed >= p.Total
	}
	MatchMistakes(root, &g)
	return g
}

// plan splits a level into go test runs in the order they unlock: one a
// module, and one for each part about goroutines (an earlier part's code
// has no lock, and may crash the binary there) unless whole is set.
func plan(l levels.Level, whole bool) []Run {
	var out []Run
	for _, m := range l.Modules {
		r := Run{Module: m.Dir, Race: l.Race, Patterns: []string{l.Patterns()[m.Dir]}, Parts: l.PartsOf(m)}
		own := slices.DeleteFunc(slices.Clone(r.Parts), func(n int) bool { p, _ := l.Part(n); return whole || !p.Concurrent })
		if r.Parts = slices.DeleteFunc(r.Parts, func(n int) bool { return slices.Contains(own, n) }); len(r.Parts) > 0 || whole {
			if len(own) > 0 {
				r.Skip = "/^part_(" + joinInts(own) + ")$"
			}
			out = append(out, r)
		}
		for _, n := range own {
			out = append(out, Run{Module: m.Dir, Race: l.Race, Patterns: r.Patterns, Parts: []int{n}, Run: fmt.Sprintf("^Test/^part_%d$", n)})
		}
	}
	return out
}

// joinInts is "1|2|3".
func joinInts(ns []int) string {
	return strings.Trim(strings.ReplaceAll(fmt.Sprint(ns), " ", "|"), "[]")
}

// merge joins runs of whole modules into one per module and race setting.
func merge(runs []Run) []Run {
	var out []Run
	for _, r := range runs {
		i := slices.IndexFunc(out, func(o Run) bool { return o.Parts == nil && o.Module == r.Module && o.Race == r.Race })
		if whole := r.Run == "" && r.Skip == ""; whole && i >= 0 {
			out[i].Patterns = append(out[i].Patterns, r.Patterns...)
		} else if out = append(out, r); whole {
			out[len(out)-1].Parts = nil // every part of the module, of each level it holds
		}
	}
	return out
}

// LevelRuns groups the levels' packages into one go test run per module and race setting.
func LevelRuns(lvs []levels.Level) []Run {
	var runs []Run
	for _, l := range lvs {
		runs = append(runs, plan(l, true)...)
	}
	return merge(runs)
}

// Levels tests and grades the levels, but a level's stub as shipped.
func Levels(ctx context.Context, root string, lvs []levels.Level, runner Runner) ([]Level, error) {
	plans := make([][]Run, len(lvs))
	for i, l := range lvs {
		if !shipped.Untouched(root, l) {
			plans[i] = plan(l, false)
		}
	}
	return gradePlans(ctx, root, lvs, plans, runner)
}

// Through grades parts 1 to upTo of a level: in a mock interview, the
// candidate has not seen the parts after it.
func Through(ctx context.Context, root string, l levels.Level, upTo int) (Level, error) {
	runs := slices.DeleteFunc(plan(l, false), func(r Run) bool { return r.Parts[0] > upTo }) // a run's parts go up
	for i, r := range runs {
		if kept := slices.DeleteFunc(slices.Clone(r.Parts), func(n int) bool { return n > upTo }); len(kept) < len(r.Parts) {
			runs[i].Run, runs[i].Parts = "^Test/^part_("+joinInts(kept)+")$", kept
		}
	}
	gs, err := gradePlans(ctx, root, []levels.Level{l}, [][]Run{runs}, Plain)
	gs[0].HideMistakes = true
	return gs[0], err
}

// TestLevel grades one level, stub or not, or one part of it alone: the
// run that plays it, graded for it only, whether earlier parts pass or not.
func TestLevel(root string, l levels.Level, part int) (Level, error) {
	runs := plan(l, false)
	if part != 0 {
		runs = slices.DeleteFunc(runs, func(r Run) bool { return !slices.Contains(r.Parts, part) })
		runs[0].Parts = []int{part}
	}
	gs, err := gradePlans(context.Background(), root, []levels.Level{l}, [][]Run{runs}, Plain)
	return gs[0], err
}

// gradePlans runs, each round, the next run of every level whose parts
// played so far are done, and grades the levels from all they found.
func gradePlans(ctx context.Context, root string, lvs []levels.Level, plans [][]Run, runner Runner) ([]Level, error) {
	var pkgs []*Package
	out := make([]Level, len(lvs))
	for {
		var round []Run
		for i, l := range lvs {
			out[i] = Grade(root, l, pkgs)
			if len(plans[i]) > 0 && !slices.ContainsFunc(out[i].Parts, func(p Part) bool { return p.Ran && !p.Done }) {
				round, plans[i] = append(round, plans[i][0]), plans[i][1:]
			}
		}
		if len(round) == 0 {
			return out, nil // the rest wait for parts that are not done
		}
		more, err := runAll(ctx, root, merge(round), runner)
		if err != nil {
			return out, err
		}
		pkgs = append(pkgs, more...)
	}
}

// Passed reports whether part of g is done, or the whole level if part is 0.
func Passed(g Level, part int) bool {
	return !slices.ContainsFunc(g.Parts, func(p Part) bool { return (part == 0 || p.Number == part) && !p.Done })
}

// RelDir is dir relative to root, symbolic links resolved; dir if outside root.
func RelDir(root, dir string) string {
	for _, p := range []*string{&dir, &root} {
		if r, err := filepath.EvalSymlinks(*p); err == nil {
			*p = r
		}
	}
	return strings.TrimPrefix(dir, root+"/")
}
