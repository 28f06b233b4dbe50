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
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// A part is done when every one of its cases ran to its end and passed, in
// a test binary that itself ran to its end (see events.go).

// Level statuses, as progress shows them.
const (
	NotStarted = "not started"
	InProgress = "in progress"
	Done       = "done"
	NoBuild    = "does not compile"
	Broken     = "did not finish" // a test binary ended part way
	Unverified = "not verified"   // tests that did not report through the runner
)

// Case is one case as it ended.
type Case struct {
	Name    string
	Part    int
	Fuzz    bool
	Verdict string // protocol.Pass, protocol.Fail...
	Report  string
	Brief   string // Report cut to one screen
	Summary string // one line: the first wrong call
	Missing string // for "not implemented": the method
	Where   string // and the stub's line
}

// Part is one part of a level.
type Part struct {
	Number int
	Title  string
	Cases  []Case // the spec's cases, then any fuzz cases that failed
	Passed int    // spec cases that passed
	Total  int    // spec cases: the spec's list, or those that reported if it has none
	Done   bool
	Ran    bool // a test binary played this part
	// Reported counts the cases of the spec's list that reported;
	// Unreported and NeedServer (those needing a real redis-server) are
	// those that did not.
	Reported   int
	Unreported []string
	NeedServer []string
	// Blocked says why nothing of the part can count: no build, or a
	// binary that ended part way.
	Blocked []string
	Races   []string // race reports during the part's cases
	// Match compares the failing cases with the known mistakes; nil when
	// the part is done or cannot be compared.
	Match *protocol.Match
}

// Level is a level, graded.
type Level struct {
	Level levels.Level
	Parts []Part
	// BuildError is the build error of the module that holds part 1; a
	// later module's blocks its own parts only.
	BuildError string
	Broken     []string // why test binaries of the level did not run to their end
	Unverified []string // packages whose tests did not report through the runner
	// HideMistakes withholds the known mistake's line, as interview mode
	// does: there it is a hint.
	HideMistakes bool
	// HasReference says the checkout has the level's reference; a student
	// copy has none.
	HasReference bool
}

// PartsDone counts the parts that are done.
func (g Level) PartsDone() int {
	n := 0
	for _, p := range g.Parts {
		if p.Done {
			n++
		}
	}
	return n
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
		if p.Done {
			return InProgress
		}
		for _, c := range p.Cases {
			if c.Verdict != protocol.NotImplemented && !c.Fuzz {
				return InProgress
			}
		}
	}
	return NotStarted
}

// ModuleOf returns the level's module that holds the slash-separated
// folder rel: a nested module whose folder holds it, or the root module.
func ModuleOf(l levels.Level, rel string) levels.Module {
	best := levels.Module{Dir: "."}
	for _, m := range l.Modules {
		if m.Dir == "." && best.Dir == "." || m.Dir != "." && (rel == m.Dir || strings.HasPrefix(rel, m.Dir+"/")) {
			best = m
		}
	}
	return best
}

// SpecLists reads each of the level's specs' list of cases, by part.
func SpecLists(root string, l levels.Level) map[int][]protocol.ManifestCase {
	out := map[int][]protocol.ManifestCase{}
	for _, m := range l.Modules {
		man, err := protocol.ReadManifest(filepath.Join(root, filepath.FromSlash(l.SpecDir(m)), protocol.ManifestFile))
		if err != nil {
			continue
		}
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
	g := Level{Level: l, HasReference: err == nil}
	g.Parts = make([]Part, len(l.Parts))
	byPart := map[int]*Part{}
	for i, p := range l.Parts {
		g.Parts[i] = Part{Number: p.Number, Title: p.Title}
		byPart[p.Number] = &g.Parts[i]
	}
	reported := map[protocol.ManifestCase]bool{} // by part and name
	for _, p := range pkgs {
		rel := RelDir(root, p.Dir)
		if !l.Holds(rel) {
			continue
		}
		mod := ModuleOf(l, rel)
		covered := l.PartsOf(mod)
		if p.Parts != nil {
			covered = slices.DeleteFunc(slices.Clone(covered), func(n int) bool { return !slices.Contains(p.Parts, n) })
		}
		block := func(why string) {
			for _, n := range covered {
				if !slices.Contains(byPart[n].Blocked, why) {
					byPart[n].Blocked = append(byPart[n].Blocked, why)
				}
			}
		}
		if !p.NoTests || p.BuildError != "" {
			for _, n := range covered {
				byPart[n].Ran = true
			}
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
			if r.Case != "" {
				text = fmt.Sprintf("during case %q:\n%s", r.Case, Indent(text, "  "))
			}
			targets := covered
			if r.Part != 0 && slices.Contains(covered, r.Part) {
				targets = []int{r.Part}
			}
			for _, n := range targets {
				byPart[n].Races = append(byPart[n].Races, text)
			}
		}
		for _, e := range p.Cases {
			pg := byPart[e.Part]
			if pg == nil || !slices.Contains(covered, e.Part) {
				continue // a part the registry does not know (the registry test catches it), or one this run did not play
			}
			c := Case{Name: e.Case, Part: e.Part, Fuzz: e.Fuzz, Verdict: e.Verdict, Report: e.Report,
				Brief: e.Brief, Summary: e.Summary, Missing: e.Missing, Where: e.Where}
			pass, key := c.Verdict == protocol.Pass, protocol.ManifestCase{Part: e.Part, Name: e.Case}
			switch {
			case c.Fuzz && (pass || c.Verdict == protocol.NotImplemented):
				continue // a fuzz seed matters only when it finds a real mistake
			case c.Fuzz:
			case !reported[key]:
				reported[key] = true
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
		if list, ok := lists[p.Number]; !p.Ran && ok {
			p.Total = len(list) // for "waits for part 1 (5 cases)"
		} else if ok {
			p.Total, p.Reported = len(list), 0
			for _, c := range list {
				switch {
				case reported[protocol.ManifestCase{Part: p.Number, Name: c.Name}]:
					p.Reported++
				case c.Needs != "":
					p.NeedServer = append(p.NeedServer, c.Name)
				default:
					p.Unreported = append(p.Unreported, c.Name)
				}
			}
		} else {
			p.Reported = p.Total
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
	Level  levels.Level
	module levels.Module
	parts  []int
	Run    string // -run, for a unit of one part
	skip   string // -skip, for the parts that are units of their own
}

// units splits each level into its units, in the order they unlock.
func units(lvs []levels.Level) []unit {
	var out []unit
	for _, l := range lvs {
		for _, m := range l.Modules {
			var plain, own []int
			for _, n := range l.PartsOf(m) {
				if p, _ := l.Part(n); p.Concurrent {
					own = append(own, n)
				} else {
					plain = append(plain, n)
				}
			}
			if len(plain) > 0 {
				u := unit{Level: l, module: m, parts: plain}
				if len(own) > 0 {
					u.skip = "/^part_(" + joinInts(own) + ")$"
				}
				out = append(out, u)
			}
			for _, n := range own {
				out = append(out, unit{Level: l, module: m, parts: []int{n}, Run: PartRun(n, false)})
			}
		}
	}
	return out
}

func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, "|")
}

// runsOf turns units into go test runs: units that play a whole module
// share one run per module and race setting.
func runsOf(us []unit) []Run {
	type key struct {
		module string
		race   bool
	}
	var out []Run
	shared := map[key]int{}
	for _, u := range us {
		r := Run{Module: u.module.Dir, Race: u.Level.Race, Patterns: []string{u.Level.Patterns()[u.module.Dir]}}
		if u.Run != "" || u.skip != "" {
			r.Run, r.Skip, r.Parts = u.Run, u.skip, u.parts
			out = append(out, r)
			continue
		}
		k := key{r.Module, r.Race}
		if i, ok := shared[k]; ok {
			out[i].Patterns = append(out[i].Patterns, r.Patterns...)
			continue
		}
		shared[k] = len(out)
		out = append(out, r)
	}
	return out
}

// Levels tests the levels and grades each.
func Levels(ctx context.Context, root string, lvs []levels.Level) ([]Level, error) {
	return LevelsWith(ctx, root, lvs, Plain)
}

// LevelsWith tests and grades the levels through runner. A level whose
// code is the stub as shipped is not started, and is not built.
func LevelsWith(ctx context.Context, root string, lvs []levels.Level, runner Runner) ([]Level, error) {
	var touched []levels.Level
	for _, l := range lvs {
		if !shipped.Untouched(root, l) {
			touched = append(touched, l)
		}
	}
	return gradeUnits(ctx, root, lvs, units(touched), runner)
}

// Through grades parts 1 to upTo of a level, and plays nothing of the
// parts after it: in a mock interview, the candidate has not seen them.
func Through(ctx context.Context, root string, l levels.Level, upTo int) (Level, error) {
	var us []unit
	for _, u := range units([]levels.Level{l}) {
		kept := slices.DeleteFunc(slices.Clone(u.parts), func(n int) bool { return n > upTo })
		switch {
		case len(kept) == 0:
			continue
		case len(kept) < len(u.parts):
			u.Run = "^Test/^part_(" + joinInts(kept) + ")$"
			u.parts = kept
		}
		us = append(us, u)
	}
	gs, err := gradeUnits(ctx, root, []levels.Level{l}, us, Plain)
	if err != nil {
		return Level{}, err
	}
	gs[0].HideMistakes = true
	return gs[0], nil
}

// aheadRun is a unit's run started ahead of its turn (Runner.Ahead).
type aheadRun struct {
	done chan struct{}
	pkgs []*Package
	err  error
}

// gradeUnits runs each level's units in turn, a unit only once the parts
// before it pass, and grades the levels from all they found.
func gradeUnits(ctx context.Context, root string, lvs []levels.Level, pending []unit, runner Runner) ([]Level, error) {
	var pkgs []*Package
	out := make([]Level, len(lvs))
	for i, l := range lvs {
		out[i] = Grade(root, l, nil)
	}
	key := func(u unit) string { return fmt.Sprintf("%d %s %s %s", u.Level.Number, u.module.Dir, u.Run, u.skip) }
	ahead := map[string]*aheadRun{}
	if runner.Ahead {
		aheadCtx, cancel := context.WithCancel(ctx)
		defer func() {
			cancel() // what never got its turn is stopped
			for _, a := range ahead {
				<-a.done
			}
		}()
		for _, u := range pending {
			if u.module.FirstPart > 1 {
				a := &aheadRun{done: make(chan struct{})}
				ahead[key(u)] = a
				go func() {
					defer close(a.done)
					a.pkgs, a.err = runAll(aheadCtx, root, runsOf([]unit{u}), runner)
				}()
			}
		}
	}
	for len(pending) > 0 {
		// One ready unit of a level at a time: the next may need it done.
		var batch, started, later []unit
		seen := map[int]bool{}
		for _, u := range pending {
			g := out[slices.IndexFunc(lvs, func(l levels.Level) bool { return l.Number == u.Level.Number })]
			if seen[u.Level.Number] || firstNotDone(g, slices.Min(u.parts)) != 0 {
				later = append(later, u)
				continue
			}
			seen[u.Level.Number] = true
			if ahead[key(u)] != nil {
				started = append(started, u)
			} else {
				batch = append(batch, u)
			}
		}
		if len(batch)+len(started) == 0 {
			break // the rest wait for parts that are not done
		}
		more, err := runAll(ctx, root, runsOf(batch), runner)
		if err != nil {
			return nil, err
		}
		for _, u := range started {
			a := ahead[key(u)]
			<-a.done
			delete(ahead, key(u))
			if a.err != nil {
				return nil, a.err
			}
			more = append(more, a.pkgs...)
		}
		pkgs = append(pkgs, more...)
		for i, l := range lvs {
			out[i] = Grade(root, l, pkgs)
		}
		pending = later
	}
	return out, nil
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

// TestLevel grades one level, or one part of it; an untouched level runs
// too, to show which methods its cases wait for.
func TestLevel(root string, l levels.Level, part int) (Level, error) {
	if part != 0 {
		// The part alone, in the module that holds it, with the fuzz seeds
		// but for a part about goroutines; earlier parts need not pass.
		p, _ := l.Part(part)
		pkgs, err := runAll(context.Background(), root, runsOf([]unit{{Level: l, module: l.ModuleOf(part), parts: []int{part}, Run: PartRun(part, !p.Concurrent)}}), Plain)
		if err != nil {
			return Level{}, err
		}
		return Grade(root, l, pkgs), nil
	}
	gs, err := gradeUnits(context.Background(), root, []levels.Level{l}, units([]levels.Level{l}), Plain)
	if err != nil {
		return Level{}, err
	}
	return gs[0], nil
}

// Passed reports whether part of g is done, or the whole level when
// part is 0.
func Passed(g Level, part int) bool {
	for _, p := range g.Parts {
		if (part == 0 || p.Number == part) && !p.Done {
			return false
		}
	}
	return true
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
