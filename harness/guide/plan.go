package guide

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	scopeRE    = regexp.MustCompile(`^[-*]\s+\*\*(In scope, (\d+) minutes|Stretch|Take-home):\*\*\s*(.+)$`)
	partListRE = regexp.MustCompile(`^(?:none|parts? (\d+)(?: to (\d+))?((?:, \d+)*(?: and \d+)?))\.?$`)
	hintItemRE = regexp.MustCompile(`^(\d+)\.\s+`)
)

// parsePartList reads "none", "part 2", "parts 1 to 3", "parts 4 and 5"
// or "parts 1, 3 and 5".
func parsePartList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	m := partListRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("%q: want none, part N, parts N to M or parts N and M", s)
	}
	if m[1] == "" {
		return nil, nil
	}
	first, _ := strconv.Atoi(m[1])
	if m[2] != "" {
		last, _ := strconv.Atoi(m[2])
		if last <= first || m[3] != "" {
			return nil, fmt.Errorf("%q: not a range", s)
		}
		var out []int
		for n := first; n <= last; n++ {
			out = append(out, n)
		}
		return out, nil
	}
	out := []int{first}
	for _, f := range strings.FieldsFunc(m[3], func(r rune) bool { return r == ',' || r == ' ' }) {
		if f == "and" {
			continue
		}
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out, nil
}

// parseTimePlan reads the scope and the table of phases.
func (g *Guide) parseTimePlan() error {
	s := g.section(TimePlan)
	lists := map[string]*[]int{"in scope": &g.Scope.In, "stretch": &g.Scope.Stretch, "take-home": &g.Scope.TakeHome}
	found := map[string]bool{}
	for i, line := range strings.Split(s.Body, "\n") {
		m := scopeRE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		what := strings.ToLower(m[1])
		if m[2] != "" {
			what = "in scope"
			g.Scope.Minutes, _ = strconv.Atoi(m[2])
		}
		parts, err := parsePartList(m[3])
		if err != nil {
			return fmt.Errorf("line %d: %s: %v", s.BodyLine+i, what, err)
		}
		*lists[what], found[what] = parts, true
	}
	for _, k := range []string{"in scope", "stretch", "take-home"} {
		if !found[k] {
			return fmt.Errorf("line %d: section %q: no scope line %q", s.Line, TimePlan,
				map[string]string{"in scope": "- **In scope, N minutes:** parts ...", "stretch": "- **Stretch:** ...", "take-home": "- **Take-home:** ..."}[k])
		}
	}
	if len(g.Scope.In) == 0 || g.Scope.Minutes <= 0 {
		return fmt.Errorf("line %d: section %q: the interview needs some parts and some minutes", s.Line, TimePlan)
	}
	rows, err := table(s, 2)
	if err != nil {
		return err
	}
	for _, r := range rows[1:] {
		n, err := strconv.Atoi(strings.TrimSpace(r.cells[1]))
		if err != nil {
			return fmt.Errorf("line %d: section %q: the minutes of %q are %q, want a whole number", r.line, TimePlan, r.cells[0], r.cells[1])
		}
		g.Plan = append(g.Plan, Phase{Name: r.cells[0], Minutes: n})
	}
	return nil
}

// parseHints reads the hint script: per part, HintLevels numbered items.
func (g *Guide) parseHints() error {
	s := g.section(HintScript)
	parts, err := partsOf(s)
	if err != nil {
		return err
	}
	for _, p := range parts {
		ph := PartHints{Number: p.Number, Title: p.Title}
		ph.Hints, _ = listItems(p.Body, hintItemRE)
		if len(ph.Hints) != HintLevels {
			return fmt.Errorf("section %q, part %d: %d numbered hints, want %d (a question, a nudge, a near-answer)", HintScript, p.Number, len(ph.Hints), HintLevels)
		}
		g.Hints = append(g.Hints, ph)
	}
	return nil
}

// parseRubric reads the rubric's table: the bands across, the dimensions
// down.
func (g *Guide) parseRubric() error {
	s := g.section(Rubric)
	rows, err := table(s, 5)
	if err != nil {
		return err
	}
	for _, b := range rows[0].cells[1:] {
		g.Bands = append(g.Bands, strings.Trim(b, "* "))
	}
	if len(g.Bands) < 4 {
		return fmt.Errorf("line %d: the rubric has %d bands, want at least 4", rows[0].line, len(g.Bands))
	}
	next := 0
	for _, b := range g.Bands {
		i := slices.Index(Bands, b)
		if i < next {
			return fmt.Errorf("line %d: rubric band %q, want bands among %q, from worst to best", rows[0].line, b, Bands)
		}
		next = i + 1
	}
	if g.Bands[0] != Bands[0] || g.Bands[len(g.Bands)-1] != Bands[len(Bands)-1] {
		return fmt.Errorf("line %d: the rubric's bands go from %q to %q, want %q to %q", rows[0].line, g.Bands[0], g.Bands[len(g.Bands)-1], Bands[0], Bands[len(Bands)-1])
	}
	g.Cells = map[string][]string{}
	var dims []string
	for _, r := range rows[1:] {
		d := strings.Trim(r.cells[0], "* ")
		dims = append(dims, d)
		if len(r.cells) != len(g.Bands)+1 {
			return fmt.Errorf("line %d: rubric row %q has %d cells, want %d", r.line, d, len(r.cells), len(g.Bands)+1)
		}
		for i, c := range r.cells[1:] {
			if strings.TrimSpace(c) == "" {
				return fmt.Errorf("line %d: rubric row %q says nothing for %q", r.line, d, g.Bands[i])
			}
		}
		g.Cells[d] = r.cells[1:]
	}
	if strings.Join(dims, "|") != strings.Join(Dimensions, "|") {
		return fmt.Errorf("line %d: the rubric's rows are %q, want %q", rows[0].line, dims, Dimensions)
	}
	return nil
}

type row struct {
	cells []string
	line  int
}

// table reads the first Markdown table of a section: its header and rows,
// without the |---| line. Each row has at least minCols cells.
func table(s Section, minCols int) ([]row, error) {
	var rows []row
	started := false
	for i, line := range strings.Split(s.Body, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
			continue // the |---| line
		}
		if len(cells) < minCols {
			return nil, fmt.Errorf("line %d: section %q: a table row with %d cells, want at least %d", s.BodyLine+i, s.Heading, len(cells), minCols)
		}
		rows = append(rows, row{cells, s.BodyLine + i})
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("line %d: section %q has no table with a header and rows", s.Line, s.Heading)
	}
	return rows, nil
}
