package main

import (
	"github.com/rateladder/rateladder/harness/timeline/protocol"

	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// levelReport is one row of the ladder.
type levelReport struct {
	Number     int          `json:"level"`
	Title      string       `json:"title"`
	Dir        string       `json:"dir"`
	Status     string       `json:"status"`
	Parts      []partReport `json:"parts"`
	PartsDone  int          `json:"parts_done"`
	BuildError string       `json:"build_error,omitempty"`
	// Problems say why a level's results count for nothing: a test binary
	// that ended part way, or tests that did not report through the runner.
	Problems []string `json:"problems,omitempty"`
	// Why is what stands between the learner and the first part not done:
	// the first lines of its first failing case.
	Why string `json:"why,omitempty"`
	// BestInterview is the level's best mock interview, if it had one.
	BestInterview *interviewBest `json:"best_interview,omitempty"`
}

type partReport struct {
	Number int    `json:"part"`
	Title  string `json:"title"`
	Cases  int    `json:"cases"`
	Passed int    `json:"passed"`
	Done   bool   `json:"done"`
	// KnownMistake names the known mistake that fails the cases this part
	// fails (see mistakes.go): one, or several that fail alike.
	KnownMistake []string `json:"known_mistake,omitempty"`
}

// ladderReport is the whole ladder, as make progress prints it and as
// --json writes it.
type ladderReport struct {
	Levels    []levelReport `json:"levels"`
	PartsDone int           `json:"parts_done"`
	Parts     int           `json:"parts"`
	Next      string        `json:"next"`
}

// report turns graded levels into the ladder.
func report(grades []levelGrade) ladderReport {
	var rep ladderReport
	for _, g := range grades {
		lr := levelReport{Number: g.Level.Number, Title: g.Level.Title, Dir: g.Level.Dir, Status: g.status(),
			PartsDone: g.partsDone(), BuildError: g.BuildError, Problems: g.Broken}
		for _, u := range g.Unverified {
			lr.Problems = append(lr.Problems, u+": its tests did not report through the ladder's runner (were its _test.go files changed?)")
		}
		for _, p := range g.Parts {
			lr.Parts = append(lr.Parts, partReport{Number: p.Number, Title: p.Title, Cases: p.Total, Passed: p.Passed, Done: p.Done,
				KnownMistake: p.named()})
		}
		lr.Why = firstFailure(g)
		rep.Levels = append(rep.Levels, lr)
		rep.PartsDone += lr.PartsDone
		rep.Parts += len(lr.Parts)
	}
	rep.Next = nextStep(rep.Levels)
	return rep
}

// firstFailure is the headline of the first case that is not passing in
// the first part that is not done.
func firstFailure(g levelGrade) string {
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

// nextStep names the first thing left to do, climbing in order.
func nextStep(levels []levelReport) string {
	for _, l := range levels {
		switch l.Status {
		case statusDone:
			continue
		case statusNoBuild:
			return fmt.Sprintf("level %d does not compile; fix it first: make test-level-%d", l.Number, l.Number)
		case statusBroken, statusUnverified:
			return fmt.Sprintf("level %d's tests did not run to their end; make test-level-%d says why", l.Number, l.Number)
		}
		for _, p := range l.Parts {
			if !p.Done {
				return fmt.Sprintf("level %d, part %d (%s): make test-level-%d", l.Number, p.Number, lower(p.Title), l.Number)
			}
		}
	}
	return "the whole ladder is done. make compare-level-N shows each level of yours beside its reference."
}

// style paints text on a terminal and leaves it plain elsewhere.
type style struct{ color bool }

func (s style) paint(code, text string) string {
	if !s.color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) status(st string) string {
	switch st {
	case statusDone:
		return s.paint("32", st) // green
	case statusInProgress:
		return s.paint("33", st) // yellow
	case statusNoBuild, statusBroken, statusUnverified:
		return s.paint("31", st) // red
	}
	return st
}

// writeText prints the ladder for a person.
func writeText(w io.Writer, rep ladderReport, st style) {
	fmt.Fprintln(w, st.paint("1", "rateladder: your progress"))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-5s  %-36s  %-5s  %s\n", "level", "name", "parts", "status")
	for _, l := range rep.Levels {
		parts := fmt.Sprintf("%d/%d", l.PartsDone, len(l.Parts))
		fmt.Fprintf(w, "  %-5d  %-36s  %-5s  %s\n", l.Number, truncate(l.Title, 36), parts, st.status(l.Status))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %s  %d of %d parts done\n", bar(rep.PartsDone, rep.Parts, 30, st), rep.PartsDone, rep.Parts)
	writeInterviews(w, rep)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "next: %s\n", rep.Next)
	for _, l := range rep.Levels {
		if l.Status != statusDone {
			if l.Why != "" && l.Status == statusInProgress {
				fmt.Fprintf(w, "%s\n", indent(l.Why, "  "))
			}
			break
		}
	}
	for _, l := range rep.Levels {
		if l.BuildError != "" {
			fmt.Fprintf(w, "\nlevel %d does not compile:\n%s\n", l.Number, indent(firstLines(l.BuildError, 12), "  "))
		}
		for _, p := range l.Problems {
			fmt.Fprintf(w, "\nlevel %d counts nothing as done: %s\n", l.Number, p)
		}
	}
}

func bar(done, total, width int, st style) string {
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	return "[" + st.paint("32", strings.Repeat("#", filled)) + strings.Repeat(".", width-filled) + "]"
}

func writeJSON(w io.Writer, rep ladderReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// indent puts prefix before every line of s that is not empty.
func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}
