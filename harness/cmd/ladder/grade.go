package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Grading is the heart of the ladder: make test-level-N, progress, watch,
// compare and the class report all say "done" through it, and only
// through it. A part is done when every one of its cases ran to its end
// and passed, in a test binary that itself ran to its end. What the cases
// did comes from the runner's supervisor (harness/timeline), never from
// parsing what the test binary printed, which the learner's code can add to.

// Level statuses, as progress shows them.
const (
	statusNotStarted = "not started"
	statusInProgress = "in progress"
	statusDone       = "done"
	statusNoBuild    = "does not compile"
	statusBroken     = "did not finish" // a test binary ended part way
	statusUnverified = "not verified"   // tests that did not report through the runner
)

// caseGrade is one case as it ended.
type caseGrade struct {
	Name    string
	Part    int
	Fuzz    bool
	Verdict string // timeline.Verdict's names: "pass", "fail", "not implemented"...
	Report  string
	Missing string // for "not implemented": the method
	Where   string // and the stub's line
}

// partGrade is one part of a level.
type partGrade struct {
	Number int
	Title  string
	Cases  []caseGrade // the spec's cases, then any fuzz cases that failed in this part
	Passed int         // spec cases that passed
	Total  int         // spec cases
	Done   bool
}

// levelGrade is a level, graded.
type levelGrade struct {
	Level      levels.Level
	Parts      []partGrade
	BuildError string
	// Broken says why test binaries of the level did not run to their end;
	// the cases they ran count for nothing.
	Broken []string
	// Unverified names packages whose tests did not report through the
	// ladder's runner.
	Unverified []string
}

func (g levelGrade) partsDone() int {
	n := 0
	for _, p := range g.Parts {
		if p.Done {
			n++
		}
	}
	return n
}

func (g levelGrade) status() string {
	switch {
	case g.BuildError != "":
		return statusNoBuild
	case len(g.Broken) > 0:
		return statusBroken
	case len(g.Unverified) > 0:
		return statusUnverified
	case g.partsDone() == len(g.Parts):
		return statusDone
	}
	for _, p := range g.Parts {
		for _, c := range p.Cases {
			if c.Verdict != timeline.NotImplemented.String() && !c.Fuzz {
				return statusInProgress
			}
		}
	}
	return statusNotStarted
}

// gradeLevel joins a level's package results into parts. Packages of other
// levels are ignored, so one go test run can serve the whole ladder.
func gradeLevel(root string, l levels.Level, pkgs []*pkgResult) levelGrade {
	g := levelGrade{Level: l}
	byPart := map[int]*partGrade{}
	for _, p := range l.Parts {
		g.Parts = append(g.Parts, partGrade{Number: p.Number, Title: p.Title})
	}
	for i := range g.Parts {
		byPart[g.Parts[i].Number] = &g.Parts[i]
	}
	void := false
	for _, p := range pkgs {
		rel := relDir(root, p.Dir)
		if !l.Holds(rel) {
			continue
		}
		switch {
		case p.BuildError != "":
			g.BuildError += strings.TrimSpace(p.BuildError) + "\n"
			continue
		case p.NoTests:
			continue
		case p.Exit == nil:
			g.Unverified = append(g.Unverified, rel)
			continue
		case !p.Exit.Complete:
			g.Broken = append(g.Broken, fmt.Sprintf("%s: %s", rel, p.Exit.Reason))
			void = true
		}
		for _, e := range p.Cases {
			pg := byPart[e.Part]
			if pg == nil {
				continue // a part the registry does not know: the registry test catches it
			}
			c := caseGrade{Name: e.Case, Part: e.Part, Fuzz: e.Fuzz, Verdict: e.Verdict, Report: e.Report, Missing: e.Missing, Where: e.Where}
			if c.Fuzz {
				// A fuzz seed matters only when it finds a real mistake;
				// a stub's seeds add nothing to its "not implemented" lines.
				if c.Verdict == timeline.Pass.String() || c.Verdict == timeline.NotImplemented.String() {
					continue
				}
			} else {
				pg.Total++
				if c.Verdict == timeline.Pass.String() {
					pg.Passed++
				}
			}
			pg.Cases = append(pg.Cases, c)
		}
	}
	g.BuildError = strings.TrimSpace(g.BuildError)
	for i := range g.Parts {
		p := &g.Parts[i]
		p.Done = !void && g.BuildError == "" && len(g.Unverified) == 0 && p.Total > 0 && p.Passed == len(p.Cases)
	}
	return g
}

// gradeLevels tests the levels, in as few go test runs as their modules
// and race settings allow, and grades each. A level's later module (level
// 8's Redis form) runs only once the parts before it pass, so that a
// learner downloads its dependencies only on reaching it.
func gradeLevels(ctx context.Context, root string, lvs []levels.Level, run string) ([]levelGrade, error) {
	return gradeLevelsWith(ctx, root, lvs, run, plainRunner)
}

func gradeLevelsWith(ctx context.Context, root string, lvs []levels.Level, run string, runner goRunner) ([]levelGrade, error) {
	first := func(_ levels.Level, m levels.Module) bool { return m.FirstPart <= 1 }
	pkgs, err := runAllWith(ctx, root, levelRuns(lvs, run, first), runner)
	if err != nil {
		return nil, err
	}
	out := make([]levelGrade, len(lvs))
	for i, l := range lvs {
		out[i] = gradeLevel(root, l, pkgs)
	}
	reached := func(l levels.Level, m levels.Module) bool {
		if m.FirstPart <= 1 {
			return false
		}
		for _, g := range out {
			if g.Level.Number == l.Number {
				for _, p := range g.Parts {
					if p.Number < m.FirstPart && !p.Done {
						return false
					}
				}
			}
		}
		return true
	}
	if later := levelRuns(lvs, run, reached); len(later) > 0 {
		more, err := runAllWith(ctx, root, later, runner)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, more...)
		for i, l := range lvs {
			out[i] = gradeLevel(root, l, pkgs)
		}
	}
	return out, nil
}

// gradePart tests one part of a level, in the module that holds it, and
// grades the level from that alone.
func gradePart(ctx context.Context, root string, l levels.Level, part int) (levelGrade, error) {
	holds := func(_ levels.Level, m levels.Module) bool { return m.Dir == l.ModuleOf(part).Dir }
	pkgs, err := runAll(ctx, root, levelRuns([]levels.Level{l}, partRun(part), holds))
	if err != nil {
		return levelGrade{}, err
	}
	return gradeLevel(root, l, pkgs), nil
}

// partRun is the go test -run pattern for one part of every spec.
func partRun(part int) string {
	return fmt.Sprintf("^Test/^part_%d$", part)
}

// cmdTest is ladder test N: the one command that grades a level.
func cmdTest(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	part := fs.Int("part", 0, "test only this part")
	all := fs.Bool("all", false, "show every case that is not passing, in every part")
	l, ok := levelArg("test", fs, args, stderr)
	if !ok {
		return 2
	}
	if *part != 0 {
		if _, ok := l.Part(*part); !ok {
			fmt.Fprintf(stderr, "level %d has no part %d; its parts are 1 to %d\n", l.Number, *part, len(l.Parts))
			return 2
		}
	}
	g, err := testLevel(root, l, *part)
	if err != nil {
		fmt.Fprintln(stderr, "ladder test:", err)
		return 1
	}
	writeGrade(stdout, g, *part, *all)
	if gradePassed(g, *part) {
		return 0
	}
	return 1
}

// testLevel grades one level, or one part of it.
func testLevel(root string, l levels.Level, part int) (levelGrade, error) {
	if part != 0 {
		return gradePart(context.Background(), root, l, part)
	}
	gs, err := gradeLevels(context.Background(), root, []levels.Level{l}, "")
	if err != nil {
		return levelGrade{}, err
	}
	return gs[0], nil
}

func gradePassed(g levelGrade, part int) bool {
	for _, p := range g.Parts {
		if (part == 0 || p.Number == part) && !p.Done {
			return false
		}
	}
	return true
}

// writeGrade shows a level the way an interviewer asks: the first part
// that is not done in full, every part before it as one line, every part
// after it as one line, and a last line that sums up. With all set, every
// part that is not done is shown in full.
func writeGrade(w io.Writer, g levelGrade, only int, all bool) {
	l := g.Level
	fmt.Fprintf(w, "Level %d: %s\n\n", l.Number, l.Title)
	if g.BuildError != "" {
		fmt.Fprintf(w, "level %d does not compile:\n%s\n\n", l.Number, indent(firstLines(g.BuildError, 30), "  "))
		fmt.Fprintf(w, "level %d: does not compile\n", l.Number)
		return
	}
	for _, b := range g.Broken {
		fmt.Fprintf(w, "%s\n\n", b)
	}
	for _, u := range g.Unverified {
		fmt.Fprintf(w, "%s: its tests did not report through the ladder's runner, so nothing in it can count as done. Were its _test.go files changed? git checkout -- %s/*_test.go puts them back.\n\n", u, u)
	}
	notImpl := missingMethods(g)
	focus := 0
	afterBlock := false // a part shown in full ends with a blank line
	for _, p := range g.Parts {
		if only != 0 && p.Number != only {
			continue
		}
		afterBlock = false
		switch {
		case p.Done:
			fmt.Fprintf(w, "part %d, %s: done (%d/%d)\n", p.Number, lower(p.Title), p.Passed, p.Total)
		case focus != 0 && !all && p.Total == 0:
			fmt.Fprintf(w, "part %d, %s: waits for part %d\n", p.Number, lower(p.Title), focus)
		case focus != 0 && !all:
			fmt.Fprintf(w, "part %d, %s: waits for part %d (%s)\n", p.Number, lower(p.Title), focus, plural(p.Total, "case"))
		default:
			if focus == 0 {
				focus = p.Number
			}
			writePart(w, p, notImpl, all)
			afterBlock = true
		}
	}
	if !afterBlock {
		fmt.Fprintln(w)
	}
	if only == 0 && focus == 0 && len(g.Broken) == 0 && len(g.Unverified) == 0 {
		fmt.Fprintf(w, "Level %d is done. make compare-level-%d shows your code beside the reference; make progress shows what comes next.\n", l.Number, l.Number)
	}
	fmt.Fprintln(w, summaryLine(g, only, all))
}

// missingMethods counts, for each method not implemented yet, the spec
// cases of the level that need it.
func missingMethods(g levelGrade) map[string]int {
	out := map[string]int{}
	for _, p := range g.Parts {
		for _, c := range p.Cases {
			if c.Verdict == timeline.NotImplemented.String() && !c.Fuzz {
				out[missingKey(c)]++
			}
		}
	}
	return out
}

func missingKey(c caseGrade) string {
	if c.Where == "" {
		return c.Missing
	}
	return fmt.Sprintf("%s (%s)", c.Missing, c.Where)
}

// writePart shows a part that is not done: each method it still needs,
// once, then every case that failed, in full.
func writePart(w io.Writer, p partGrade, notImpl map[string]int, all bool) {
	fmt.Fprintf(w, "part %d, %s: %d of %s pass\n", p.Number, lower(p.Title), p.Passed, plural(p.Total, "case"))
	if p.Total == 0 {
		fmt.Fprintf(w, "  no case of part %d ran.\n", p.Number)
	}
	var missing []string
	seen := map[string]bool{}
	for _, c := range p.Cases {
		if c.Verdict == timeline.NotImplemented.String() && !seen[missingKey(c)] {
			seen[missingKey(c)] = true
			missing = append(missing, missingKey(c))
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		fmt.Fprintf(w, "  not implemented yet: %s, needed by %s\n", m, plural(notImpl[m], "case"))
	}
	for _, c := range p.Cases {
		if c.Verdict == timeline.Pass.String() || c.Verdict == timeline.NotImplemented.String() {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", indent(strings.TrimRight(c.Report, "\n"), "  "))
	}
	fmt.Fprintln(w)
}

// summaryLine is the last line: "level 3: part 1 done (16/16), part 2 3/7,
// part 3 waiting".
func summaryLine(g levelGrade, only int, all bool) string {
	var parts []string
	focus := false
	for _, p := range g.Parts {
		if only != 0 && p.Number != only {
			continue
		}
		switch {
		case p.Done:
			parts = append(parts, fmt.Sprintf("part %d done (%d/%d)", p.Number, p.Passed, p.Total))
		case focus && !all:
			parts = append(parts, fmt.Sprintf("part %d waiting", p.Number))
		default:
			focus = true
			parts = append(parts, fmt.Sprintf("part %d %d/%d", p.Number, p.Passed, p.Total))
		}
	}
	return fmt.Sprintf("level %d: %s", g.Level.Number, strings.Join(parts, ", "))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func lower(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func relDir(root, dir string) string {
	r, d := realPath(root), realPath(dir)
	if rel, ok := strings.CutPrefix(d, r+"/"); ok {
		return rel
	}
	return d
}
