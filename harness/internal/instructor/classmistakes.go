package instructor

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// The class report names, per student and part, the known mistake that a
// failing part's cases match (see grade.MatchMistakes), so that an instructor sees
// when half the room made the same one: a column in CSV, and in Markdown a
// list under the table, one line per mistake with the students who made it.

// PartMistake is the known mistake named for one failing part.
type PartMistake struct {
	Level, Part int
	// Names are the short names of the mistakes the grader named: one, or
	// several that fail the very same cases.
	Names []string
}

// label is the mistake as the report writes it: "inclusive boundary", or
// "FailOpen ignored or FailClosed ignored".
func (m PartMistake) label() string { return strings.Join(m.Names, " or ") }

// StudentMistakes returns the known mistake named for each failing part of
// a student's graded levels, in level and part order. A part that is done,
// or whose cases match no known mistake clearly, has none.
func StudentMistakes(ls []grade.LevelReport) []PartMistake {
	var out []PartMistake
	for _, l := range ls {
		for _, p := range l.Parts {
			if p.Done || len(p.KnownMistake) == 0 {
				continue
			}
			m := PartMistake{Level: l.Number, Part: p.Number}
			for _, name := range p.KnownMistake {
				m.Names = append(m.Names, ShortMistake(name))
			}
			out = append(out, m)
		}
	}
	return out
}

// ShortMistake is a mistake's name up to its first colon, which is how
// the mutants are named: "inclusive boundary: still refuses at exactly one
// interval" is "inclusive boundary". A name without one is kept whole.
func ShortMistake(name string) string {
	if short, _, ok := strings.Cut(name, ": "); ok && short != "" {
		return short
	}
	return name
}

// mistakesCell is a student's known mistakes in one cell:
// "L2.1 inclusive boundary; L3.1 starts empty".
func mistakesCell(ls []grade.LevelReport) string {
	var each []string
	for _, m := range StudentMistakes(ls) {
		each = append(each, fmt.Sprintf("L%d.%d %s", m.Level, m.Part, m.label()))
	}
	return strings.Join(each, "; ")
}

// classMistake is one known mistake and the students who made it.
type classMistake struct {
	PartMistake
	Students []string
}

// classMistakes gathers the known mistakes of the whole class, the most
// made first, then by level and part.
func classMistakes(results []Result) []classMistake {
	byKey := map[string]*classMistake{}
	var out []*classMistake
	for _, r := range results {
		for _, m := range StudentMistakes(r.Levels) {
			key := fmt.Sprintf("%d.%d %s", m.Level, m.Part, m.label())
			c := byKey[key]
			if c == nil {
				c = &classMistake{PartMistake: m}
				byKey[key] = c
				out = append(out, c)
			}
			c.Students = append(c.Students, r.Name)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case len(a.Students) != len(b.Students):
			return len(a.Students) > len(b.Students)
		case a.Level != b.Level:
			return a.Level < b.Level
		}
		return a.Part < b.Part
	})
	var list []classMistake
	for _, c := range out {
		list = append(list, *c)
	}
	return list
}

// WriteMistakes writes, under the Markdown table, one line for each
// known mistake some student's failing part matches:
//
//   - level 2 part 1 "inclusive boundary": 3 students (alice, bob, carol)
//
// and nothing when there is none.
func WriteMistakes(w io.Writer, results []Result) {
	list := classMistakes(results)
	if len(list) == 0 {
		return
	}
	fmt.Fprintf(w, "\nKnown mistakes (a failing part whose cases fail the way a known mistake does), the most made first:\n\n")
	for _, c := range list {
		var names []string
		for _, s := range c.Students {
			names = append(names, MarkdownText(s))
		}
		fmt.Fprintf(w, "- level %d part %d \"%s\": %s (%s)\n", c.Level, c.Part, MarkdownText(c.label()),
			grade.Plural(len(c.Students), "student"), strings.Join(names, ", "))
	}
}
