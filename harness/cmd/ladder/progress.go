package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Level statuses, as progress shows them.
const (
	statusComing     = "coming"
	statusNotStarted = "not started"
	statusInProgress = "in progress"
	statusDone       = "done"
	statusNoBuild    = "does not compile"
)

// levelReport is one row of the ladder.
type levelReport struct {
	Number     int          `json:"level"`
	Title      string       `json:"title"`
	Dir        string       `json:"dir,omitempty"`
	Status     string       `json:"status"`
	Parts      []partReport `json:"parts"`
	PartsDone  int          `json:"parts_done"`
	BuildError string       `json:"build_error,omitempty"`
}

type partReport struct {
	Number int    `json:"part"`
	Title  string `json:"title"`
	Cases  int    `json:"cases"`
	Passed int    `json:"passed"`
	Done   bool   `json:"done"`
}

// ladderReport is the whole ladder, as make progress prints it and as
// --json writes it.
type ladderReport struct {
	Levels    []levelReport `json:"levels"`
	PartsDone int           `json:"parts_done"`
	Parts     int           `json:"parts"`
	Next      string        `json:"next"`
}

// summarize joins the levels found on disk with the test results.
func summarize(levels []level, results map[string]*pkgResult) ladderReport {
	var rep ladderReport
	for _, l := range levels {
		lr := levelReport{Number: l.Number, Title: l.Title, Dir: l.Dir, Status: statusComing}
		if l.built() {
			lr = summarizeLevel(l, results)
		}
		rep.Levels = append(rep.Levels, lr)
		rep.PartsDone += lr.PartsDone
		rep.Parts += len(lr.Parts)
	}
	rep.Next = nextStep(rep.Levels)
	return rep
}

func summarizeLevel(l level, results map[string]*pkgResult) levelReport {
	lr := levelReport{Number: l.Number, Title: l.Title, Dir: l.Dir}
	var cases []*caseResult
	for path, p := range results {
		if !inLevel(path, l.Dir) {
			continue
		}
		if p.BuildError != "" || (p.Failed && len(p.Cases) == 0) {
			lr.BuildError += strings.TrimSpace(p.BuildError + p.Output)
		}
		cases = append(cases, p.Cases...)
	}
	notImpl := 0
	for _, c := range cases {
		if c.Status == "notimpl" {
			notImpl++
		}
	}
	for _, pt := range l.Parts {
		pr := partReport{Number: pt.Number, Title: pt.Title}
		for _, c := range cases {
			if c.Part == pt.Number {
				pr.Cases++
				if c.Status == "pass" {
					pr.Passed++
				}
			}
		}
		pr.Done = pr.Cases > 0 && pr.Passed == pr.Cases && lr.BuildError == ""
		if pr.Done {
			lr.PartsDone++
		}
		lr.Parts = append(lr.Parts, pr)
	}
	switch {
	case lr.BuildError != "":
		lr.Status = statusNoBuild
	case len(cases) == 0 || notImpl == len(cases):
		lr.Status = statusNotStarted
	case lr.PartsDone == len(lr.Parts):
		lr.Status = statusDone
	default:
		lr.Status = statusInProgress
	}
	return lr
}

// inLevel reports whether an import path lies in the level folder dir.
func inLevel(importPath, dir string) bool {
	return strings.HasSuffix(importPath, "/"+dir) || strings.Contains(importPath, "/"+dir+"/")
}

// nextStep names the first thing left to do, climbing in order.
func nextStep(levels []levelReport) string {
	for _, l := range levels {
		switch l.Status {
		case statusComing, statusDone:
			continue
		case statusNoBuild:
			return fmt.Sprintf("level %d does not compile; fix it first: make test-level-%d", l.Number, l.Number)
		}
		for _, p := range l.Parts {
			if !p.Done {
				return fmt.Sprintf("level %d, part %d (%s): make test-level-%d", l.Number, p.Number, strings.ToLower(p.Title[:1])+p.Title[1:], l.Number)
			}
		}
	}
	for _, l := range levels {
		if l.Status == statusComing {
			return fmt.Sprintf("every level built so far is done; level %d is coming", l.Number)
		}
	}
	return "the whole ladder is done. Compare your code with the references in solutions/."
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
	case statusNoBuild:
		return s.paint("31", st) // red
	case statusComing:
		return s.paint("2", st) // dim
	}
	return st
}

// writeText prints the ladder for a person.
func writeText(w io.Writer, rep ladderReport, st style) {
	fmt.Fprintln(w, st.paint("1", "rateladder: your progress"))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-5s  %-36s  %-5s  %s\n", "level", "name", "parts", "status")
	for _, l := range rep.Levels {
		parts := "-"
		if l.Status != statusComing {
			parts = fmt.Sprintf("%d/%d", l.PartsDone, len(l.Parts))
		}
		fmt.Fprintf(w, "  %-5d  %-36s  %-5s  %s\n", l.Number, truncate(l.Title, 36), parts, st.status(l.Status))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %s  %d of %d parts done\n", bar(rep.PartsDone, rep.Parts, 30, st), rep.PartsDone, rep.Parts)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "next: %s\n", rep.Next)
	for _, l := range rep.Levels {
		if l.BuildError != "" {
			fmt.Fprintf(w, "\nlevel %d does not compile:\n%s\n", l.Number, indent(firstLines(l.BuildError, 12), "  "))
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

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
