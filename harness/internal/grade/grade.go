// Package grade runs a level's tests with go test -json and says, from what
// they report and the spec's list of cases, which parts are done: the one
// verdict every command of the ladder gives.
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

// Level statuses, as progress shows them. A part is done when every one of
// its cases ran to its end and passed, in a test binary that itself ran to
// its end (see events.go).
const (
	NotStarted = "not started"
	InProgress = "in progress"
	Done       = "done"
	NoBuild    = "does not compile"
	Broken     = "did not finish" // a test binary ended part way
	Unverified = "not verified"   // tests that did not report through the runner
)

// Case is one case as it ended, as the runner reported it; a race report
// is one too, with its Test, Name and Part the case it came during.
type Case = protocol.Event

// Exit is how a test binary ended.
type Exit struct {
	Complete bool   // it ran to its end
	Reason   string // why not
	Crash    string // the start of what the runtime printed if it crashed
}

// Part is one part of a level. Of the spec's list of cases, Reported
// counts those that reported, and Unreported and NeedServer (those that
// need a real redis-server) name those that did not.
type Part struct {
	Number, Passed, Total int // Total: the spec's list, or the cases that reported if it has none
	Title                 string
	Cases                 []Case // the spec's cases, then any fuzz cases that failed
	Done, Ran             bool   // Ran: a test binary played this part
	Reported              int
	Unreported            []string
	NeedServer            []string
	Blocked               []string        // why nothing of it can count: no build, or a binary that ended part way
	Races                 []string        // race reports during its cases
	Match                 *protocol.Match // its failing cases against the known mistakes; nil if done or not comparable
}

// Level is a level, graded.
type Level struct {
	Level      levels.Level
	Parts      []Part
	BuildError string   // of the module that holds part 1; a later module's blocks its own parts only
	Broken     []string // why test binaries of the level did not run to their end
	Unverified []string // packages whose tests did not report through the runner
	// HideMistakes withholds the known mistake's line, as interview mode
	// does (there it is a hint); HasReference says the checkout has the
	// level's reference, which a student copy has not.
	HideMistakes, HasReference bool
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
	case g.PartsDone() == 0 && len(g.Unverified) > 0:
		return Unverified
	}
	for _, p := range g.Parts {
		if p.Done || slices.ContainsFunc(p.Cases, func(c Case) bool { return c.Verdict != protocol.NotImplemented && !c.Fuzz }) {
			return InProgress
		}
	}
	return NotStarted
}

// moduleOf returns the level's module that holds the slash-separated
// folder rel: a nested module whose folder holds it, or the root module.
func moduleOf(l levels.Level, rel string) levels.Module {
	i := slices.IndexFunc(l.Modules, func(m levels.Module) bool { return m.Dir != "." && (rel == m.Dir || strings.HasPrefix(rel, m.Dir+"/")) })
	if i < 0 {
		return levels.Module{Dir: "."}
	}
	return l.Modules[i]
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

// Grade joins a level's package results into parts, ignoring other
// levels' packages. A build error, a broken binary or a race costs only
// the parts its run played.
func Grade(root string, l levels.Level, pkgs []*Package) Level {
	_, err := os.Stat(filepath.Join(root, l.SolutionDir()))
	g := Level{Level: l, HasReference: err == nil, Parts: make([]Part, len(l.Parts))}
	byPart := map[int]*Part{}
	for i, p := range l.Parts {
		g.Parts[i] = Part{Number: p.Number, Title: p.Title}
		byPart[p.Number] = &g.Parts[i]
	}
	type key struct {
		part int
		name string
	}
	reported := map[key]bool{}
	for _, p := range pkgs {
		rel := RelDir(root, p.Dir)
		if !l.Holds(rel) {
			continue
		}
		covered := slices.DeleteFunc(l.PartsOf(moduleOf(l, rel)), func(n int) bool { return p.Parts != nil && !slices.Contains(p.Parts, n) })
		block := func(why string) {
			for _, n := range covered {
				if !slices.Contains(byPart[n].Blocked, why) {
					byPart[n].Blocked = append(byPart[n].Blocked, why)
				}
			}
		}
		for _, n := range covered {
			byPart[n].Ran = byPart[n].Ran || !p.NoTests || p.BuildError != ""
		}
		switch {
		case p.BuildError != "":
			msg := strings.TrimSpace(p.BuildError)
			if slices.Contains(covered, l.Parts[0].Number) && !strings.Contains(g.BuildError, msg) {
				g.BuildError += msg + "\n"
			}
			block(fmt.Sprintf("%s does not compile:\n%s", rel, Indent(FirstLines(msg, 20), "  ")))
			continue
		case p.NoTests:
			continue
		case p.Exit == nil:
			if !slices.Contains(g.Unverified, rel) {
				g.Unverified = append(g.Unverified, rel)
			}
			block(fmt.Sprintf("%s: its tests did not report through the ladder's runner, so nothing in it can count as done. Were its _test.go files changed? git checkout -- %s/*_test.go puts them back.", rel, rel))
			continue
		case !p.Exit.Complete:
			why := fmt.Sprintf("%s: %s", rel, p.Exit.Reason)
			if c := strings.TrimSpace(p.Exit.Crash); c != "" && !strings.Contains(p.Exit.Reason, c) {
				why += "\n" + Indent(c, "  ")
			}
			g.Broken = append(g.Broken, why)
			block(why)
		}
		for _, r := range p.Races {
			text := strings.TrimSpace(r.Report)
			if r.Name != "" {
				text = fmt.Sprintf("during case %q:\n%s", r.Name, Indent(text, "  "))
			}
			targets := covered
			if slices.Contains(covered, r.Part) {
				targets = []int{r.Part}
			}
			for _, n := range targets {
				byPart[n].Races = append(byPart[n].Races, text)
			}
		}
		for _, c := range p.Cases {
			pg, pass, k := byPart[c.Part], c.Verdict == protocol.Pass, key{c.Part, c.Name}
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
	g.BuildError = strings.TrimSpace(g.BuildError)
	lists := SpecLists(root, l)
	for i := range g.Parts {
		p := &g.Parts[i]
		list, ok := lists[p.Number]
		switch {
		case !ok:
			p.Reported = p.Total
		case !p.Ran:
			p.Total = len(list) // for "waits for part 1 (5 cases)"
		default:
			p.Total = len(list)
			for _, c := range list {
				switch {
				case reported[key{p.Number, c.Name}]:
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

// A unit is the parts of one module of one level that one test binary
// plays. A part about goroutines is a unit of its own: an earlier part's
// code has no lock, and may crash the whole binary there.
type unit struct {
	level levels.Level
	run   Run // its Parts set; a Run or Skip when it is not a whole module
}

// units splits each level into its units, in the order they unlock; with
// whole set, each module is one unit.
func units(lvs []levels.Level, whole bool) []unit {
	var out []unit
	for _, l := range lvs {
		for _, m := range l.Modules {
			r := Run{Module: m.Dir, Race: l.Race, Patterns: []string{l.Patterns()[m.Dir]}, Parts: l.PartsOf(m)}
			own := slices.DeleteFunc(slices.Clone(r.Parts), func(n int) bool { p, _ := l.Part(n); return whole || !p.Concurrent })
			if r.Parts = slices.DeleteFunc(r.Parts, func(n int) bool { return slices.Contains(own, n) }); len(r.Parts) > 0 || whole {
				if len(own) > 0 {
					r.Skip = "/^part_(" + joinInts(own) + ")$"
				}
				out = append(out, unit{l, r})
			}
			for _, n := range own {
				r.Parts, r.Run, r.Skip = []int{n}, PartRun(n, false), ""
				out = append(out, unit{l, r})
			}
		}
	}
	return out
}

// joinInts is "1|2|3".
func joinInts(ns []int) string {
	return strings.Trim(strings.ReplaceAll(fmt.Sprint(ns), " ", "|"), "[]")
}

// runsOf turns units into go test runs: units of whole modules share one
// run per module and race setting, which plays all their parts.
func runsOf(us []unit) []Run {
	type key struct {
		module string
		race   bool
	}
	var out []Run
	shared := map[key]int{}
	for _, u := range us {
		r, k := u.run, key{u.run.Module, u.run.Race}
		if i, ok := shared[k]; ok && r.Run == "" && r.Skip == "" {
			out[i].Patterns = append(out[i].Patterns, r.Patterns...)
			continue
		} else if r.Run == "" && r.Skip == "" {
			shared[k], r.Parts = len(out), nil
		}
		out = append(out, r)
	}
	return out
}

// LevelRuns groups the levels' packages into as few go test runs as the
// modules and race settings allow.
func LevelRuns(lvs []levels.Level) []Run {
	return runsOf(units(lvs, true))
}

// Levels tests and grades the levels through runner. A level whose code
// is the stub as shipped is not started, and is not built.
func Levels(ctx context.Context, root string, lvs []levels.Level, runner Runner) ([]Level, error) {
	touched := slices.DeleteFunc(slices.Clone(lvs), func(l levels.Level) bool { return shipped.Untouched(root, l) })
	return gradeUnits(ctx, root, lvs, units(touched, false), runner)
}

// Through grades parts 1 to upTo of a level, and plays nothing of the
// parts after it: in a mock interview, the candidate has not seen them.
func Through(ctx context.Context, root string, l levels.Level, upTo int) (Level, error) {
	var us []unit
	for _, u := range units([]levels.Level{l}, false) {
		kept := slices.DeleteFunc(slices.Clone(u.run.Parts), func(n int) bool { return n > upTo })
		if len(kept) == 0 {
			continue
		} else if len(kept) < len(u.run.Parts) {
			u.run.Run, u.run.Parts = "^Test/^part_("+joinInts(kept)+")$", kept
		}
		us = append(us, u)
	}
	g, err := first(gradeUnits(ctx, root, []levels.Level{l}, us, Plain))
	g.HideMistakes = true
	return g, err
}

// first is the one level graded, or the error.
func first(gs []Level, err error) (Level, error) {
	if err != nil {
		return Level{}, err
	}
	return gs[0], nil
}

// TestLevel grades one level, or one part of it; an untouched level runs
// too, to show which methods its cases wait for.
func TestLevel(root string, l levels.Level, part int) (Level, error) {
	if part == 0 {
		return first(gradeUnits(context.Background(), root, []levels.Level{l}, units([]levels.Level{l}, false), Plain))
	}
	// The part alone, in the module that holds it, with the fuzz seeds but
	// for a part about goroutines; earlier parts need not pass.
	p, _ := l.Part(part)
	m := l.ModuleOf(part)
	pkgs, err := runAll(context.Background(), root, []Run{{Module: m.Dir, Race: l.Race, Patterns: []string{l.Patterns()[m.Dir]},
		Run: PartRun(part, !p.Concurrent), Parts: []int{part}}}, Plain)
	return Grade(root, l, pkgs), err
}

// gradeUnits runs each level's units in turn, a unit only once the parts
// before it pass, and grades the levels from all they found. With
// Runner.Ahead, the units of a level's later modules start at once, and
// what they find counts only once those parts pass.
func gradeUnits(ctx context.Context, root string, lvs []levels.Level, pending []unit, runner Runner) ([]Level, error) {
	var pkgs []*Package
	out := make([]Level, len(lvs))
	regrade := func() {
		for i, l := range lvs {
			out[i] = Grade(root, l, pkgs)
		}
	}
	regrade()
	type result struct {
		pkgs []*Package
		err  error
	}
	ahead := map[int]chan result{} // by index in pending
	if runner.Ahead {
		aheadCtx, cancel := context.WithCancel(ctx)
		defer func() {
			cancel() // what never got its turn is stopped
			for _, c := range ahead {
				<-c
			}
		}()
		for i, u := range pending {
			if u.level.ModuleOf(u.run.Parts[0]).FirstPart > 1 {
				c := make(chan result, 1)
				ahead[i] = c
				go func() {
					pkgs, err := runAll(aheadCtx, root, []Run{u.run}, runner)
					c <- result{pkgs, err}
				}()
			}
		}
	}
	done := make([]bool, len(pending))
	for {
		// One ready unit of a level at a time: the next may need it done.
		var batch []unit
		var started []int
		seen := map[int]bool{}
		for i, u := range pending {
			g := out[slices.IndexFunc(lvs, func(l levels.Level) bool { return l.Number == u.level.Number })]
			if done[i] || seen[u.level.Number] || firstNotDone(g, slices.Min(u.run.Parts)) != 0 {
				continue
			}
			seen[u.level.Number], done[i] = true, true
			if ahead[i] != nil {
				started = append(started, i)
			} else {
				batch = append(batch, u)
			}
		}
		if len(batch)+len(started) == 0 {
			return out, nil // the rest wait for parts that are not done
		}
		more, err := runAll(ctx, root, runsOf(batch), runner)
		if err != nil {
			return nil, err
		}
		for _, i := range started {
			res := <-ahead[i]
			delete(ahead, i)
			if res.err != nil {
				return nil, res.err
			}
			more = append(more, res.pkgs...)
		}
		pkgs = append(pkgs, more...)
		regrade()
	}
}

// PartRun is the go test -run pattern that plays one part of every spec,
// and the fuzz seeds too if fuzz is set. A spec may run a part's cases
// below a subtest of its own ("TestX/on_127.0.0.1:6379/part_6/…"), so the
// second and third elements each take any name but another part's.
func PartRun(part int, fuzz bool) string {
	top := "^Test"
	if fuzz {
		top = "^(Test|Fuzz)"
	}
	// Go's regexps cannot say "not": this lists what a name that is not
	// another part's can be.
	e := fmt.Sprintf(`^(part_%d$|[^p]|p[^a]|pa[^r]|par[^t]|part[^_]|part_$|part_[0-9]*[^0-9]|p$|pa$|par$|part$)`, part)
	return top + "/" + e + "/" + e
}

// Passed reports whether part of g is done, or the whole level when
// part is 0.
func Passed(g Level, part int) bool {
	return !slices.ContainsFunc(g.Parts, func(p Part) bool { return (part == 0 || p.Number == part) && !p.Done })
}

// RelDir is dir relative to root, both with symbolic links resolved; dir
// itself when it is outside root.
func RelDir(root, dir string) string {
	real := func(dir string) string {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return r
		}
		return dir
	}
	if rel, ok := strings.CutPrefix(real(dir), real(root)+"/"); ok {
		return rel
	}
	return real(dir)
}
