// Package grade runs a level's tests with go test -json and says, from
// what it reports and the spec's list of cases, which parts are done: the one verdict that
// make test-level-N, progress, watch, interview mode and the class report
// all give. It also reads the known mistakes, and writes a grade for a
// person.
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

// Grading is the heart of the ladder: make test-level-N, progress, watch,
// compare and the class report all say "done" through it, and only
// through it. A part is done when every one of its cases ran to its end
// and passed, in a test binary that itself ran to its end, as go test
// -json tells it (see events.go). The learner's loop trusts the learner's
// process: code that sets out to forge go test's output can. An
// instructor grades with the class report, whose checker decides each
// case outside the student's process.

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
	Verdict string // protocol's verdict names: protocol.Pass, protocol.Fail...
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
	Cases  []Case // the spec's cases, then any fuzz cases that failed in this part
	Passed int    // spec cases that passed
	Total  int    // spec cases: those the spec's list names, or those that reported if it has none
	Done   bool
	// Ran says a test binary played this part; a part that waits for an
	// earlier one did not run.
	Ran bool
	// Reported counts the cases of the spec's list that reported.
	Reported int
	// Unreported are the cases of the spec's list that never reported,
	// and NeedServer those of them that need a real redis-server.
	Unreported []string
	NeedServer []string
	// Blocked says why nothing of this part can count: its module does
	// not compile, or the test binary that played it ended part way.
	Blocked []string
	// Races are the race detector's reports during this part's cases.
	Races []string
	// Match compares the failing cases with the known mistakes (see
	// mistakes.go); nil when the part is done or cannot be compared.
	Match *protocol.Match
}

// Level is a level, graded.
type Level struct {
	Level levels.Level
	Parts []Part
	// BuildError is the build error of the module that holds part 1: the
	// Level cannot start. A later module's build error blocks its own
	// parts only.
	BuildError string
	// Broken says why test binaries of the level did not run to their end;
	// the parts they played count for nothing.
	Broken []string
	// Unverified names packages whose tests did not report through the
	// ladder's runner.
	Unverified []string
	// HideMistakes withholds the line that names a known mistake, as
	// interview mode does: there it is a hint (mistakeLine), not a given.
	HideMistakes bool
	// HasReference says the checkout has the level's reference: a student
	// copy has none, and is sent to the debrief instead.
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

// ModuleOf returns the module of the level that holds the package in the
// slash-separated folder rel: the nested module whose folder holds it, or
// the root module.
func ModuleOf(l levels.Level, rel string) levels.Module {
	best := levels.Module{Dir: "."}
	for _, m := range l.Modules {
		if m.Dir == "." {
			best = m
		}
	}
	for _, m := range l.Modules {
		if m.Dir != "." && (rel == m.Dir || strings.HasPrefix(rel, m.Dir+"/")) {
			best = m
		}
	}
	return best
}

// SpecLists reads the list of cases of each of the level's specs, by
// part. A spec without one (a test's fixture) leaves its parts counted
// by the cases that reported.
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

// Grade joins a level's package results into parts. Packages of other
// levels are ignored, so one go test run can serve the whole ladder. A
// package's results count for the parts its run played, and a build
// error, a broken binary or a race costs those parts only.
func Grade(root string, l levels.Level, pkgs []*Package) Level {
	g := Level{Level: l}
	if _, err := os.Stat(filepath.Join(root, l.SolutionDir())); err == nil {
		g.HasReference = true
	}
	byPart := map[int]*Part{}
	for _, p := range l.Parts {
		g.Parts = append(g.Parts, Part{Number: p.Number, Title: p.Title})
	}
	for i := range g.Parts {
		byPart[g.Parts[i].Number] = &g.Parts[i]
	}
	reported := map[int]map[string]bool{}
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
			if slices.Contains(covered, l.Parts[0].Number) {
				if !strings.Contains(g.BuildError, msg) {
					g.BuildError += msg + "\n"
				}
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
			if c.Fuzz {
				// A fuzz seed matters only when it finds a real mistake;
				// a stub's seeds add nothing to its "not implemented" lines.
				if c.Verdict == protocol.Pass || c.Verdict == protocol.NotImplemented {
					continue
				}
			} else {
				if reported[e.Part] == nil {
					reported[e.Part] = map[string]bool{}
				}
				switch {
				case !reported[e.Part][e.Case]:
					reported[e.Part][e.Case] = true
					pg.Total++
					if c.Verdict == protocol.Pass {
						pg.Passed++
					}
				case c.Verdict == protocol.Pass:
					continue // the same case again, on another server: it counts once
				}
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
				case reported[p.Number][c.Name]:
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
// plays. A part about goroutines is a unit of its own: the code of an
// earlier part has no lock, and may crash the whole binary there.
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
				var skips []string
				for _, n := range own {
					skips = append(skips, strconv.Itoa(n))
				}
				if len(skips) > 0 {
					u.skip = "/^part_(" + strings.Join(skips, "|") + ")$"
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

// ready says whether every part before the unit's first is done.
func (u unit) ready(g Level) bool {
	first := slices.Min(u.parts)
	for _, p := range g.Parts {
		if p.Number < first && !p.Done {
			return false
		}
	}
	return true
}

// runsOf turns units into go test runs: the units that play a whole
// module with nothing skipped share one run per module and race setting,
// so that progress tests the first six levels in one go test.
func runsOf(us []unit) []Run {
	type key struct {
		module string
		race   bool
	}
	var out []Run
	shared := map[key]int{}
	for _, u := range us {
		pattern := u.Level.Patterns()[u.module.Dir]
		if u.Run == "" && u.skip == "" {
			k := key{u.module.Dir, u.Level.Race}
			if i, ok := shared[k]; ok {
				out[i].Patterns = append(out[i].Patterns, pattern)
				continue
			}
			shared[k] = len(out)
			out = append(out, Run{Module: u.module.Dir, Race: u.Level.Race, Patterns: []string{pattern}})
			continue
		}
		out = append(out, Run{Module: u.module.Dir, Race: u.Level.Race, Patterns: []string{pattern},
			Run: u.Run, Skip: u.skip, Parts: u.parts})
	}
	return out
}

// Levels tests the levels and grades each. Each level's units run in
// turn, a unit only once the parts before it pass: a part about
// goroutines, and a later module (level 8's Redis form), whose
// dependencies a learner then downloads only on reaching it.
func Levels(ctx context.Context, root string, lvs []levels.Level) ([]Level, error) {
	return LevelsWith(ctx, root, lvs, Plain)
}

// A level whose code is the stub as shipped is not started: it is not
// built, and no test of it runs, so that a newcomer's first make progress
// builds nothing of the seven levels they have not touched.
func LevelsWith(ctx context.Context, root string, lvs []levels.Level, runner Runner) ([]Level, error) {
	var touched []levels.Level
	for _, l := range lvs {
		if !shipped.Untouched(root, l) {
			touched = append(touched, l)
		}
	}
	return gradeUnits(ctx, root, lvs, units(touched), runner)
}

// Through grades parts 1 to upTo of a level, as gradeLevels does, and
// plays nothing of the parts after it: in a mock interview, the candidate
// has not seen them yet.
func Through(ctx context.Context, root string, l levels.Level, upTo int) (Level, error) {
	var us []unit
	for _, u := range units([]levels.Level{l}) {
		kept := slices.DeleteFunc(slices.Clone(u.parts), func(n int) bool { return n > upTo })
		switch {
		case len(kept) == 0:
			continue
		case len(kept) < len(u.parts):
			var nums []string
			for _, n := range kept {
				nums = append(nums, strconv.Itoa(n))
			}
			u.Run = "^Test/^part_(" + strings.Join(nums, "|") + ")$"
			u.parts = kept
		}
		us = append(us, u)
	}
	gs, err := gradeUnits(ctx, root, []levels.Level{l}, us, Plain)
	if err != nil {
		return Level{}, err
	}
	gs[0].HideMistakes = true // a hint in an interview, not a given
	return gs[0], nil
}

// key names a unit among a grading's units.
func (u unit) key() string {
	return fmt.Sprintf("%d %s %s %s", u.Level.Number, u.module.Dir, u.Run, u.skip)
}

// aheadRun is a unit's run started ahead of its turn (Runner.Ahead).
type aheadRun struct {
	done chan struct{}
	pkgs []*Package
	err  error
}

func gradeUnits(ctx context.Context, root string, lvs []levels.Level, pending []unit, runner Runner) ([]Level, error) {
	var pkgs []*Package
	out := make([]Level, len(lvs))
	for i, l := range lvs {
		out[i] = Grade(root, l, nil)
	}
	ahead := map[string]*aheadRun{}
	if runner.Ahead {
		aheadCtx, cancel := context.WithCancel(ctx)
		defer func() {
			cancel() // what never got its turn is stopped, and not waited for twice
			for _, a := range ahead {
				<-a.done
			}
		}()
		for _, u := range pending {
			if u.module.FirstPart > 1 {
				a := &aheadRun{done: make(chan struct{})}
				ahead[u.key()] = a
				go func() {
					defer close(a.done)
					a.pkgs, a.err = runAll(aheadCtx, root, runsOf([]unit{u}), runner)
				}()
			}
		}
	}
	for len(pending) > 0 {
		var now, later []unit
		for _, u := range pending {
			i := slices.IndexFunc(lvs, func(l levels.Level) bool { return l.Number == u.Level.Number })
			if u.ready(out[i]) {
				now = append(now, u)
			} else {
				later = append(later, u)
			}
		}
		if len(now) == 0 {
			break // the rest wait for parts that are not done
		}
		// One unit of a level at a time: the next may need this one done.
		var batch []unit
		seen := map[int]bool{}
		for _, u := range now {
			if seen[u.Level.Number] {
				later = append(later, u)
				continue
			}
			seen[u.Level.Number] = true
			batch = append(batch, u)
		}
		var started []unit
		batch = slices.DeleteFunc(batch, func(u unit) bool {
			_, ok := ahead[u.key()]
			if ok {
				started = append(started, u)
			}
			return ok
		})
		more, err := runAll(ctx, root, runsOf(batch), runner)
		if err != nil {
			return nil, err
		}
		for _, u := range started {
			a := ahead[u.key()]
			<-a.done
			delete(ahead, u.key())
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

// gradePart tests one part of a level, in the module that holds it, and
// grades the level from that alone: the parts before it need not pass.
// It plays what the whole level's run plays of that part: the part's
// cases, and the fuzz seeds, whose failures count against the part of
// the method that went wrong, except for a part about goroutines, which
// is a unit of its own there too.
func gradePart(ctx context.Context, root string, l levels.Level, part int) (Level, error) {
	p, _ := l.Part(part)
	u := unit{Level: l, module: l.ModuleOf(part), parts: []int{part}, Run: PartRun(part, !p.Concurrent)}
	pkgs, err := runAll(ctx, root, runsOf([]unit{u}), Plain)
	if err != nil {
		return Level{}, err
	}
	return Grade(root, l, pkgs), nil
}

// PartRun is the go test -run pattern that plays one part of every spec,
// and the fuzz seeds too if fuzz is set. A spec runs a part's cases as
// "TestX/part_6/…", and may run them again below a subtest of its own,
// "TestX/on_127.0.0.1:6379/part_6/…" or "TestX/own_redis-server/part_8/…"
// (level 8's Redis form): Go matches each slash-separated element of the
// pattern against one level of a test's name, so the second and third
// levels each take any name but another part's.
func PartRun(part int, fuzz bool) string {
	top := "^Test"
	if fuzz {
		top = "^(Test|Fuzz)"
	}
	e := notOtherPart(part)
	return top + "/" + e + "/" + e
}

// notOtherPart matches a subtest's name unless it is the name of a part
// other than part: "part_2" for part 1. Go's regexps cannot say "not", so
// it lists what such a name can be instead: part itself, a name that
// strays from "part_" at some letter, or "part_" then something that is
// not a number.
func notOtherPart(part int) string {
	return fmt.Sprintf(`^(part_%d$|[^p]|p[^a]|pa[^r]|par[^t]|part[^_]|part_$|part_[0-9]*[^0-9]|p$|pa$|par$|part$)`, part)
}

// TestLevel grades one level, or one part of it.
func TestLevel(root string, l levels.Level, part int) (Level, error) {
	if part != 0 {
		return gradePart(context.Background(), root, l, part)
	}
	// Untouched or not, the level runs: a learner who asks for it sees
	// which methods its cases wait for.
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
	r, d := realPath(root), realPath(dir)
	if rel, ok := strings.CutPrefix(d, r+"/"); ok {
		return rel
	}
	return d
}

// realPath resolves symbolic links, so that a folder go list names and the
// one the caller names compare equal.
func realPath(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}
