package instructor

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// PartMistake is the known mistake named for one failing part.
type PartMistake struct {
	Level, Part int
	Names       []string // one, or several that fail the very same cases
}

// label is the mistake as the report writes it: "a or b".
func (m PartMistake) label() string { return strings.Join(m.Names, " or ") }

// StudentMistakes returns the known mistake named for each failing part of
// a student's graded levels, in level and part order.
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

// ShortMistake is a mistake's name up to its first ": ", if any.
func ShortMistake(name string) string {
	if short, _, ok := strings.Cut(name, ": "); ok && short != "" {
		return short
	}
	return name
}

// mistakesCell is a student's known mistakes in one CSV cell.
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
	slices.SortStableFunc(out, func(a, b *classMistake) int {
		return cmp.Or(cmp.Compare(len(b.Students), len(a.Students)), cmp.Compare(a.Level, b.Level), cmp.Compare(a.Part, b.Part))
	})
	var list []classMistake
	for _, c := range out {
		list = append(list, *c)
	}
	return list
}

// WriteMistakes writes, under the Markdown table, one line for each known
// mistake, with the students who made it.
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
