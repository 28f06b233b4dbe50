package grade

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// LevelReport is one row of the ladder.
type LevelReport struct {
	Number     int          `json:"level"`
	Title      string       `json:"title"`
	Dir        string       `json:"dir"`
	Status     string       `json:"status"`
	Parts      []PartReport `json:"parts"`
	PartsDone  int          `json:"parts_done"`
	BuildError string       `json:"build_error,omitempty"`
	// Problems say why a level's results count for nothing.
	Problems []string `json:"problems,omitempty"`
	// Why is the first lines of the first part's first failing case.
	Why           string         `json:"why,omitempty"`
	BestInterview *BestInterview `json:"best_interview,omitempty"`
}

// PartReport is one part of a level's row.
type PartReport struct {
	Number int    `json:"part"`
	Title  string `json:"title"`
	Cases  int    `json:"cases"`
	Passed int    `json:"passed"`
	Done   bool   `json:"done"`
	// KnownMistake names the known mistakes whose failing cases match.
	KnownMistake []string `json:"known_mistake,omitempty"`
	// Failing is the first failing case; Why says in a line what keeps
	// the part from done.
	Failing string `json:"failing,omitempty"`
	Why     string `json:"why,omitempty"`
}

// Ladder is the whole ladder, as make progress prints it.
type Ladder struct {
	Levels    []LevelReport `json:"levels"`
	PartsDone int           `json:"parts_done"`
	Parts     int           `json:"parts"`
	Next      string        `json:"next"`
}

// Report turns graded levels into the ladder.
func Report(grades []Level) Ladder {
	var rep Ladder
	for _, g := range grades {
		lr := LevelReport{Number: g.Level.Number, Title: g.Level.Title, Dir: g.Level.Dir, Status: g.Status(),
			PartsDone: g.PartsDone(), BuildError: g.BuildError, Problems: slices.Clone(g.Broken)}
		for _, u := range g.Unverified {
			lr.Problems = append(lr.Problems, u+": its tests did not report through the ladder's runner (were its _test.go files changed?)")
		}
		waitsFor := 0
		for _, p := range g.Parts {
			pr := PartReport{Number: p.Number, Title: p.Title, Cases: p.Total, Passed: p.Passed, Done: p.Done,
				KnownMistake: MistakeNames(p)}
			if !p.Done {
				pr.Failing, pr.Why = partWhy(g, p, waitsFor)
				if waitsFor == 0 {
					waitsFor = p.Number
				}
			}
			lr.Parts = append(lr.Parts, pr)
		}
		lr.Why = firstFailure(g)
		rep.Levels = append(rep.Levels, lr)
		rep.PartsDone += lr.PartsDone
		rep.Parts += len(lr.Parts)
	}
	rep.Next = nextStep(rep.Levels, len(grades) > 0 && grades[0].HasReference)
	return rep
}

// firstFailure is the headline of the first part's first case not passing.
func firstFailure(g Level) string {
	for _, p := range g.Parts {
		if p.Done {
			continue
		}
		for _, c := range p.Cases {
			switch c.Verdict {
			case protocol.Pass:
				continue
			case protocol.NotImplemented:
				return "not implemented yet: " + missingKey(c)
			}
			lines := strings.SplitN(c.Report, "\n", 3)
			return strings.Join(lines[:min(2, len(lines))], "\n")
		}
		return ""
	}
	return ""
}

// partWhy says in one line why part p of g is not done, and names its
// first failing case.
func partWhy(g Level, p Part, waitsFor int) (failing, why string) {
	i := slices.IndexFunc(p.Cases, func(c Case) bool { return c.Verdict != protocol.Pass && c.Verdict != protocol.NotImplemented })
	if i >= 0 {
		failing = p.Cases[i].Name
	}
	switch {
	case g.BuildError != "":
		return failing, "does not compile: " + firstError(g.BuildError)
	case len(p.Blocked) > 0:
		// The cases a crash cut short say little, and vary run to run.
		first, _, _ := strings.Cut(p.Blocked[0], "\n")
		return "", first
	case len(p.Races) > 0:
		return failing, "the race detector found a data race"
	case i >= 0:
		return failing, oneLine(p.Cases[i])
	case !p.Ran && waitsFor > 0:
		return "", fmt.Sprintf("waits for part %d", waitsFor)
	}
	if i := slices.IndexFunc(p.Cases, func(c Case) bool { return c.Verdict == protocol.NotImplemented }); i >= 0 {
		return "", "not implemented yet: " + missingKey(p.Cases[i])
	}
	if len(p.Unreported) > 0 {
		return "", fmt.Sprintf("%s never reported, such as %q", Plural(len(p.Unreported), "case"), p.Unreported[0])
	}
	return "", "not started"
}

// firstError is the first line of a build error but go's "# package".
func firstError(buildError string) string {
	for _, line := range strings.Split(buildError, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return FirstLines(buildError, 1)
}

// nextStep names the first thing left to do, climbing in order.
func nextStep(levels []LevelReport, hasReference bool) string {
	for _, l := range levels {
		switch l.Status {
		case Done:
			continue
		case NoBuild:
			return fmt.Sprintf("level %d does not compile; fix it first: make test-level-%d", l.Number, l.Number)
		case Broken, Unverified:
			return fmt.Sprintf("level %d's tests did not run to their end; make test-level-%d says why", l.Number, l.Number)
		}
		for _, p := range l.Parts {
			if !p.Done {
				return fmt.Sprintf("level %d, part %d (%s): make test-level-%d", l.Number, p.Number, Lower(p.Title), l.Number)
			}
		}
	}
	if !hasReference {
		return "the whole ladder is done. make debrief-level-N says what an interviewer looks for in each level."
	}
	return "the whole ladder is done. make compare-level-N shows each level of yours beside its reference."
}

// Style paints text on a terminal (Color) and leaves it plain elsewhere.
type Style struct{ Color bool }

// Paint colours text with an ANSI code ("31" is red) when s has colour.
func (s Style) Paint(code, text string) string {
	if !s.Color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// Status paints a level's status: green, yellow, or red when it cannot count.
func (s Style) Status(st string) string {
	switch st {
	case Done:
		return s.Paint("32", st)
	case InProgress:
		return s.Paint("33", st)
	case NoBuild, Broken, Unverified:
		return s.Paint("31", st)
	}
	return st
}

// WriteText prints the ladder for a person.
func WriteText(w io.Writer, rep Ladder, st Style) {
	fmt.Fprintln(w, st.Paint("1", "rateladder: your progress"))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-5s  %-36s  %-5s  %s\n", "level", "name", "parts", "status")
	for _, l := range rep.Levels {
		parts := fmt.Sprintf("%d/%d", l.PartsDone, len(l.Parts))
		fmt.Fprintf(w, "  %-5d  %-36s  %-5s  %s\n", l.Number, protocol.CutLine(l.Title, 36), parts, st.Status(l.Status))
	}
	fmt.Fprintln(w)
	filled := 0
	if rep.Parts > 0 {
		filled = rep.PartsDone * 30 / rep.Parts
	}
	bar := "[" + st.Paint("32", strings.Repeat("#", filled)) + strings.Repeat(".", 30-filled) + "]"
	fmt.Fprintf(w, "  %s  %d of %d parts done\n", bar, rep.PartsDone, rep.Parts)
	writeInterviews(w, rep)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "next: %s\n", rep.Next)
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
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
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

// Beats reports whether b is a better interview than old: from a fresh
// stub first, then the most parts passed, then the shortest time.
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

// writeInterviews prints the best interview of each level that had one.
func writeInterviews(w io.Writer, rep Ladder) {
	header := false
	for _, l := range rep.Levels {
		b := l.BestInterview
		if b == nil {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\nmock interviews (make interview-level-N), each level's best (from a fresh stub first, then the most parts, then the quickest):")
			header = true
		}
		what := fmt.Sprintf("all %d parts", b.Parts)
		if b.PartsPassed < b.Parts {
			what = fmt.Sprintf("%d of %d parts (%s)", b.PartsPassed, b.Parts, b.End)
		}
		from := ""
		if !b.FreshStub {
			from = ", started from code already written"
		}
		fmt.Fprintf(w, "  level %d  %s, %s, best of %d%s\n", l.Number, Minutes(time.Duration(b.Seconds)*time.Second), what, b.Interviews, from)
	}
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
