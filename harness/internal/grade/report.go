package grade

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// LevelReport is one row of the ladder.
type LevelReport struct {
	Number        int            `json:"level"`
	Title         string         `json:"title"`
	Dir           string         `json:"dir"`
	Status        string         `json:"status"`
	Parts         []PartReport   `json:"parts"`
	PartsDone     int            `json:"parts_done"`
	BuildError    string         `json:"build_error,omitempty"`
	Problems      []string       `json:"problems,omitempty"` // why its results count for nothing
	Why           string         `json:"why,omitempty"`      // the first lines of the first part's first failing case
	BestInterview *BestInterview `json:"best_interview,omitempty"`
}

// PartReport is one part of a level's row.
type PartReport struct {
	Number       int      `json:"part"`
	Title        string   `json:"title"`
	Cases        int      `json:"cases"`
	Passed       int      `json:"passed"`
	Done         bool     `json:"done"`
	KnownMistake []string `json:"known_mistake,omitempty"` // the known mistakes its failing cases match
	Failing      string   `json:"failing,omitempty"`       // its first failing case
	Why          string   `json:"why,omitempty"`           // what keeps it from done, in a line
}

// Ladder is the whole ladder, as make progress prints it.
type Ladder struct {
	Levels    []LevelReport `json:"levels"`
	PartsDone int           `json:"parts_done"`
	Parts     int           `json:"parts"`
	Next      string        `json:"next"`
}

// Report turns graded levels into the ladder, with the first thing left to do.
func Report(grades []Level) Ladder {
	var rep Ladder
	for _, g := range grades {
		l := g.Level
		lr := LevelReport{Number: l.Number, Title: l.Title, Dir: l.Dir, Status: g.Status(),
			PartsDone: g.PartsDone(), BuildError: g.BuildError, Problems: g.Broken}
		waitsFor := 0
		for _, p := range g.Parts {
			pr := PartReport{Number: p.Number, Title: p.Title, Cases: p.Total, Passed: p.Passed, Done: p.Done, KnownMistake: MistakeNames(p)}
			if !p.Done {
				var first string
				if pr.Failing, pr.Why, first = partWhy(g, p, waitsFor); waitsFor == 0 {
					lr.Why, waitsFor = first, p.Number
				}
			}
			lr.Parts = append(lr.Parts, pr)
		}
		switch {
		case rep.Next != "" || lr.Status == Done:
		case lr.Status == NoBuild:
			rep.Next = fmt.Sprintf("level %d does not compile; fix it first: make test-level-%d", l.Number, l.Number)
		case lr.Status == Broken:
			rep.Next = fmt.Sprintf("level %d's tests did not run to their end; make test-level-%d says why", l.Number, l.Number)
		default:
			p, _ := l.Part(waitsFor)
			rep.Next = fmt.Sprintf("level %d, part %d (%s): make test-level-%d", l.Number, waitsFor, Lower(p.Title), l.Number)
		}
		rep.Levels = append(rep.Levels, lr)
		rep.PartsDone += lr.PartsDone
		rep.Parts += len(lr.Parts)
	}
	if rep.Next == "" && len(grades) > 0 && grades[0].HasReference {
		rep.Next = "the whole ladder is done. solutions/ holds each level's reference, to read beside yours."
	}
	rep.Next = cmp.Or(rep.Next, "the whole ladder is done. make debrief-level-N says what an interviewer looks for in each level.")
	return rep
}

// partWhy says in one line why part p of g is not done, names its first
// failing case, and gives the headline of its first case not passing.
func partWhy(g Level, p Part, waitsFor int) (failing, why, first string) {
	i := slices.IndexFunc(p.Cases, func(c Case) bool { return c.Verdict != protocol.Pass && c.Verdict != protocol.NotImplemented })
	j := slices.IndexFunc(p.Cases, func(c Case) bool { return c.Verdict != protocol.Pass })
	if i >= 0 {
		failing = p.Cases[i].Name
	}
	if j >= 0 && p.Cases[j].Verdict == protocol.NotImplemented {
		first = "not implemented yet: " + missingKey(p.Cases[j])
	} else if j >= 0 {
		lines := strings.SplitN(p.Cases[j].Report, "\n", 3)
		first = strings.Join(lines[:min(2, len(lines))], "\n")
	}
	switch { // failing is "" from the fourth case on
	case g.BuildError != "": // go's "# package" line comes first
		why = "does not compile: " + buildErrorLine.FindString(g.BuildError)
	case len(p.Blocked) > 0: // the cases a crash cut short say little, and vary run to run
		head, rest, _ := strings.Cut(p.Blocked[0], "\n")
		failing, why = "", head
		if strings.HasSuffix(head, " does not compile:") { // a later module's build: its first error, as part 1's
			why += " " + strings.TrimSpace(buildErrorLine.FindString(rest))
		}
	case len(p.Races) > 0:
		why = "the race detector found a data race"
	case i >= 0:
		why = oneLine(p.Cases[i])
	case !p.Ran && waitsFor > 0:
		why = fmt.Sprintf("waits for part %d", waitsFor)
	case j >= 0:
		why = first
	case len(p.Unreported) > 0:
		why = fmt.Sprintf("%s never reported, such as %q", Plural(len(p.Unreported), "case"), p.Unreported[0])
	default:
		why = "not started"
	}
	return failing, why, first
}

// Style paints text on a terminal (Color) and leaves it plain elsewhere.
type Style struct{ Color bool }

// Paint colours text with an ANSI code ("31" is red) when s has colour.
func (s Style) Paint(code, text string) string {
	if !s.Color || code == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// WriteText prints the ladder for a person.
func WriteText(w io.Writer, rep Ladder, st Style) {
	fmt.Fprintf(w, "%s\n\n  %-5s  %-36s  %-5s  %s\n", st.Paint("1", "rateladder: your progress"), "level", "name", "parts", "status")
	for _, l := range rep.Levels {
		status := st.Paint(map[string]string{Done: "32", InProgress: "33", NoBuild: "31", Broken: "31"}[l.Status], l.Status) // red: nothing of it can count
		fmt.Fprintf(w, "  %-5d  %-36s  %-5s  %s\n", l.Number, protocol.CutLine(l.Title, 36), fmt.Sprintf("%d/%d", l.PartsDone, len(l.Parts)), status)
	}
	filled := rep.PartsDone * 30 / max(1, rep.Parts)
	bar := "[" + st.Paint("32", strings.Repeat("#", filled)) + strings.Repeat(".", 30-filled) + "]"
	fmt.Fprintf(w, "\n  %s  %d of %d parts done\n", bar, rep.PartsDone, rep.Parts)
	header := "\nmock interviews (make interview-level-N), each level's best (from a fresh stub first, then the most parts, then the quickest):\n"
	for _, l := range rep.Levels {
		if b := l.BestInterview; b != nil {
			what, from := fmt.Sprintf("all %d parts", b.Parts), ""
			if b.PartsPassed < b.Parts {
				what = fmt.Sprintf("%d of %d parts (%s)", b.PartsPassed, b.Parts, b.End)
			}
			if !b.FreshStub {
				from = ", started from code already written"
			}
			fmt.Fprintf(w, "%s  level %d  %s, %s, best of %d%s\n", header, l.Number, Minutes(time.Duration(b.Seconds)*time.Second), what, b.Interviews, from)
			header = ""
		}
	}
	fmt.Fprintf(w, "\nnext: %s\n", rep.Next)
	if i := slices.IndexFunc(rep.Levels, func(l LevelReport) bool { return l.Status != Done }); i >= 0 && rep.Levels[i].Why != "" && rep.Levels[i].Status == InProgress {
		fmt.Fprintf(w, "%s\n", Indent(rep.Levels[i].Why, "  "))
	}
	for _, l := range rep.Levels {
		if l.BuildError != "" {
			fmt.Fprintf(w, "\nlevel %d does not compile:\n%s\n", l.Number, Indent(FirstLines(l.BuildError, 12), "  "))
		}
		for _, p := range l.Problems {
			fmt.Fprintf(w, "\nlevel %d counts nothing as done: %s\n", l.Number, p)
		}
	}
}

// WriteJSON writes the ladder as progress --json does.
func WriteJSON(w io.Writer, rep Ladder) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// FirstLines keeps the first n lines of s, and says when there are more.
func FirstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// Indent puts prefix before every line of s that is not empty.
func Indent(s, prefix string) string {
	return lineStart.ReplaceAllString(s, prefix+"$1")
}

// BestInterview is a level's best mock interview, as progress shows it.
type BestInterview struct {
	Seconds     int       `json:"seconds"`
	PartsPassed int       `json:"parts_passed"`
	Parts       int       `json:"parts"`
	End         string    `json:"end"`
	Started     time.Time `json:"started"`
	FreshStub   bool      `json:"fresh_stub"`
	Interviews  int       `json:"interviews"`
}

// Beats reports whether b is better than old: fresh stub, parts passed, time.
func (b *BestInterview) Beats(old *BestInterview) bool {
	switch {
	case old == nil:
		return true
	case b.FreshStub != old.FreshStub:
		return b.FreshStub
	case b.PartsPassed != old.PartsPassed:
		return b.PartsPassed > old.PartsPassed
	}
	return b.Seconds < old.Seconds
}

// Minutes writes a duration as minutes and seconds: "12m05s".
func Minutes(d time.Duration) string {
	s := Seconds(d)
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// Seconds is d in whole seconds, rounded.
func Seconds(d time.Duration) int {
	return int(d.Round(time.Second) / time.Second)
}

// Write shows a level: the first part not done in full, the others as a
// line each, and a last line that sums up. With all set, every part not
// done is shown in full, with every failing case whole.
func Write(w io.Writer, g Level, only int, all bool) {
	l := g.Level
	fmt.Fprintf(w, "Level %d: %s\n\n", l.Number, l.Title)
	if g.BuildError != "" {
		fmt.Fprintf(w, "level %d does not compile:\n%s\n\nlevel %d: does not compile\n", l.Number, Indent(FirstLines(g.BuildError, 30), "  "), l.Number)
		return
	}
	notImpl := map[string]int{} // the spec cases that need each missing method
	for _, p := range g.Parts {
		for _, c := range p.Cases {
			if c.Verdict == protocol.NotImplemented && !c.Fuzz {
				notImpl[missingKey(c)]++
			}
		}
	}
	focus, afterBlock := 0, false // the part shown in full; it ends with a blank line
	var summary []string          // "part 1 done (16/16)", "part 2 3/7", "part 3 waiting"
	for _, p := range g.Parts {
		if only != 0 && p.Number != only {
			continue
		}
		head, score := fmt.Sprintf("part %d, %s: ", p.Number, Lower(p.Title)), fmt.Sprintf("%d/%d", p.Passed, p.Total)
		afterBlock = false
		switch {
		case p.Done:
			summary = append(summary, fmt.Sprintf("part %d done (%s)", p.Number, score))
			fmt.Fprintf(w, "%sdone (%s)\n", head, score)
		case focus != 0 && !all:
			summary = append(summary, fmt.Sprintf("part %d waiting", p.Number))
			fmt.Fprintf(w, "%swaits for part %d%s\n", head, focus, strings.TrimSuffix(fmt.Sprintf(" (%s)", Plural(p.Total, "case")), " (0 cases)"))
		default:
			summary = append(summary, fmt.Sprintf("part %d %s", p.Number, score))
			focus, afterBlock = cmp.Or(focus, p.Number), true
			writePart(w, l.Number, head, p, notImpl, all, g.HideMistakes)
		}
	}
	if !afterBlock {
		fmt.Fprintln(w)
	}
	if only == 0 && g.PartsDone() == len(g.Parts) {
		next := fmt.Sprintf("make debrief-level-%d says what an interviewer looks for in it", l.Number)
		if g.HasReference {
			next = l.SolutionDir() + " holds the reference, to read beside your code"
		}
		fmt.Fprintf(w, "Level %d is done. %s; make progress shows what comes next.\n", l.Number, next)
	}
	fmt.Fprintf(w, "level %d: %s\n", l.Number, strings.Join(summary, ", "))
}

// missingKey is the method a case waits for, and where: "New (x.go:16)".
func missingKey(c Case) string {
	return strings.TrimSuffix(fmt.Sprintf("%s (%s)", c.Missing, c.Where), " ()")
}

// writePart shows a part that is not done: what blocks it, its missing
// methods and cases, its failing cases and the known mistake they match.
func writePart(w io.Writer, level int, head string, p Part, notImpl map[string]int, all, hide bool) {
	const maxOneLiners = 8 // failing cases after the first that get a line each
	unreported := p.Ran && len(p.Blocked) == 0 && p.Reported < p.Total
	switch {
	case len(p.Blocked) > 0:
		fmt.Fprintf(w, "%snot done\n%s\n", head, Indent(strings.Join(p.Blocked, "\n"), "  "))
	case unreported:
		fmt.Fprintf(w, "%snot verified: %d of %s reported (%d %s)\n", head, p.Reported, Plural(p.Total, "case"), p.Passed, verb(p.Passed, "passes", "pass"))
	default:
		fmt.Fprintf(w, "%s%s\n", head, PassCount(p.Passed, p.Total))
	}
	for i, r := range p.Races {
		switch {
		case i == 0:
			fmt.Fprintf(w, "  the race detector found a data race, so part %d is not done, whatever the answers. Two goroutines touched the same memory, at least one of them writing, without a lock between them:\n%s\n", p.Number, Indent(FirstLines(r, 16), "    "))
		case all:
			fmt.Fprintf(w, "%s\n", Indent(FirstLines(r, 16), "    "))
		case i == 1:
			fmt.Fprintf(w, "    (%s more; ALL=1 shows them)\n", Plural(len(p.Races)-1, "report"))
		}
	}
	if p.Ran && p.Total == 0 && len(p.Blocked) == 0 {
		fmt.Fprintf(w, "  no case of part %d ran.\n", p.Number)
	}
	var missing, failing []string
	for _, c := range p.Cases {
		switch {
		case c.Verdict == protocol.NotImplemented:
			missing = append(missing, missingKey(c))
		case c.Verdict == protocol.Pass:
		case all:
			failing = append(failing, c.Report)
		case len(failing) > 0:
			failing = append(failing, protocol.CutLine(oneLine(c), 160))
		default:
			failing = append(failing, cmp.Or(c.Brief, c.Report))
		}
	}
	slices.Sort(missing)
	for _, m := range slices.Compact(missing) {
		fmt.Fprintf(w, "  not implemented yet: %s, needed by %s\n", m, Plural(notImpl[m], "case"))
	}
	if n := len(p.NeedServer); unreported && n > 0 {
		fmt.Fprintf(w, "  %s %s a real redis-server: make test-level-%d REDIS=1\n", Plural(n, "case"), verb(n, "needs", "need"), level)
	}
	if n := len(p.Unreported); unreported && n > 0 {
		fmt.Fprintf(w, "  %s never reported, such as %q: was a case skipped (a -skip or -run flag, GOFLAGS, os.Args changed by your code), or did the test binary stop early?\n",
			Plural(n, "case"), p.Unreported[0])
	}
	for i, text := range failing {
		switch {
		case i == 0 || all:
			fmt.Fprintf(w, "\n%s\n", Indent(strings.TrimRight(text, "\n"), "  "))
			if line := MistakeLine(p); i == 0 && line != "" && !hide {
				fmt.Fprintf(w, "\n  %s\n", line)
			}
		case i == 1:
			fmt.Fprintf(w, "\n  %s also %s:\n", Plural(len(failing)-1, "more case"), verb(len(failing)-1, "fails", "fail"))
			fallthrough
		case i <= maxOneLiners:
			fmt.Fprintf(w, "    %s\n", text)
		case i == maxOneLiners+1:
			fmt.Fprintf(w, "    … and %d more; ALL=1 shows every case in full\n", len(failing)-i)
		}
	}
	if all && !hide && p.Match != nil && len(p.Match.Candidates) > 0 {
		fmt.Fprintf(w, "\n  Known mistakes that fail some of the same cases, by overlap (the cases both fail, over the cases either fails):\n")
		for _, c := range p.Match.Candidates {
			for _, k := range c.Mistakes {
				fmt.Fprintf(w, "    %3.0f%%  %s (fails %s of part %d)\n", 100*c.Overlap, k.Name, Plural(len(k.Fails[p.Number]), "case"), p.Number)
			}
		}
	}
	fmt.Fprintln(w)
}

// oneLine is a failing case in one line: its name and its first wrong call.
func oneLine(c Case) string {
	return fmt.Sprintf("case %q: %s", c.Name, c.Summary)
}

// PassCount is "3 of 5 cases pass", "1 of 1 case passes", "0 of 1 case passes".
func PassCount(passed, total int) string {
	return fmt.Sprintf("%d of %s %s", passed, Plural(total, "case"), verb(total, "passes", "pass"))
}

// Plural is "1 case" or "3 cases".
func Plural(n int, what string) string {
	return fmt.Sprintf("%d %s", n, verb(n, what, what+"s"))
}

// verb is one when n is 1, else many.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Lower starts s with a small letter.
func Lower(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// KnownMistakes reads the tables of every spec of the level, as one.
func KnownMistakes(root string, l levels.Level) protocol.Mistakes {
	out := protocol.Mistakes{Blind: map[int][]string{}}
	for _, m := range l.Modules {
		t, _ := protocol.ReadMistakes(filepath.Join(root, filepath.FromSlash(l.SpecDir(m)), protocol.MistakesFile))
		out.Mistakes = append(out.Mistakes, t.Mistakes...)
		for part, cases := range t.Blind {
			out.Blind[part] = append(out.Blind[part], cases...)
		}
	}
	return out
}

// MatchMistakes matches the failing cases of each part not done with the
// level's known mistakes when they say all there is to say: every case
// reported but those that need a redis-server (the table is blind to them),
// none still to write, nothing blocked. Fuzz cases are left out: their
// names change with each timeline.
func MatchMistakes(root string, g *Level) {
	table := KnownMistakes(root, g.Level)
	for i := 0; len(table.Mistakes) > 0 && i < len(g.Parts); i++ {
		p := &g.Parts[i]
		p.Match = nil
		if p.Done || !p.Ran || len(p.Blocked) > 0 || p.Reported+len(p.NeedServer) < p.Total ||
			slices.ContainsFunc(p.Cases, func(c Case) bool { return c.Verdict == protocol.NotImplemented && !c.Fuzz }) {
			continue
		}
		var failing []string
		for _, c := range p.Cases {
			if !c.Fuzz && c.Verdict != protocol.Pass {
				failing = append(failing, c.Name)
			}
		}
		if len(failing) > 0 {
			m := table.Match(p.Number, failing)
			p.Match = &m
		}
	}
}

// MistakeLine is the line under a part's first failing case naming its known mistake, or "".
func MistakeLine(p Part) string {
	switch names := MistakeNames(p); len(names) {
	case 0:
		return ""
	case 1:
		return strings.TrimSpace("This is how a known mistake fails: " + names[0] + ". " + p.Match.Candidates[p.Match.Best].Mistakes[0].Why)
	default: // mistakes that fail the same cases cannot be told apart: name them all
		return fmt.Sprintf("This is how %d known mistakes fail, each the same way: %s.", len(names), strings.Join(names, "; or "))
	}
}

// MistakeNames names the known mistakes p's failing cases match clearly.
func MistakeNames(p Part) []string {
	if p.Match == nil {
		return nil
	}
	return p.Match.Named()
}

// buildErrorLine is a build error's first line but go's "# package",
// indented or not;
// lineStart, each line's first character, which Indent prefixes.
var (
	buildErrorLine = regexp.MustCompile(`(?m)^[ \t]*[^#\s].*$`)
	lineStart      = regexp.MustCompile(`(?m)^(.)`)
)
