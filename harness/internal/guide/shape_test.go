package guide

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/markdown"
)

// The shape of a guide beyond what the ladder command reads lives in a
// test file: only the guide's tests, over every level's guide, check it.

// Sections lists the required headings in the order a guide gives them.
var Sections = []string{Pose, Clarifying, TimePlan, FollowUps, HintScript, Approaches, Mistakes, Rubric}

// Bands are the rubric's verdicts, from worst to best. A rubric has at
// least four of them, in this order, from the first to the last.
var Bands = []string{"Strong no hire", "No hire", "Lean no hire", "Lean hire", "Hire", "Strong hire"}

// Dimensions are the rubric's rows: each is scored on its own.
var Dimensions = []string{"Problem solving", "Code", "Testing", "Communication", "Hints used"}

// HintLevels is how many hints the script gives for each part.
const HintLevels = 3

// shape is the rest of a guide: its follow-ups, time plan, hint script
// and rubric.
type shape struct {
	Title string // the "# " heading
	Parts []Part // the "### Part N: title" headings of Follow-ups
	Plan  []Phase
	Hints []PartHints
	// Bands are the rubric's columns, Cells its rows by dimension.
	Bands []string
	Cells map[string][]string
}

// Phase is one row of the time plan's table.
type Phase struct {
	Name    string
	Minutes int
}

// PartHints are one part's hints, from the lightest to a near-answer.
type PartHints struct {
	Number int
	Title  string
	Hints  []string
}

// Part is one follow-up: a part of the level.
type Part struct {
	Number int
	Title  string
	Body   string // the Markdown under the heading, trimmed
}

var hintItemRE = regexp.MustCompile(`^(\d+)\.\s+`)

// parseAll is Parse and readShape, and reads the title.
func parseAll(src []byte) (*Guide, *shape, error) {
	g, err := Parse(src)
	if err != nil {
		return nil, nil, err
	}
	sh, err := readShape(g)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range markdown.Split(markdown.Lines(string(src)), 2)[0].Lines {
		if h, ok := markdown.Heading(l, 1); ok {
			sh.Title = h
			break
		}
	}
	if sh.Title == "" {
		return nil, nil, fmt.Errorf("no title: the guide must start with a \"# \" heading")
	}
	return g, sh, nil
}

// readShape fails if a required section is missing, empty, given twice or
// out of order, if the Follow-ups section has no part, or if the time plan,
// the hint script or the rubric is not as the guide's format says.
func readShape(g *Guide) (*shape, error) {
	sh := &shape{}
	if err := checkSections(g); err != nil {
		return nil, err
	}
	var err error
	follow, _ := g.section(FollowUps)
	if sh.Parts, err = partsOf(follow); err != nil {
		return nil, err
	}
	for _, read := range []func(*Guide) error{sh.readPlan, sh.readHints, sh.readRubric} {
		if err := read(g); err != nil {
			return nil, err
		}
	}
	return sh, nil
}

// checkSections checks that the required sections are there once each, in
// order, and not empty.
func checkSections(g *Guide) error {
	seen := map[string]int{}
	next := 0 // index in Sections of the next required heading
	for _, s := range g.Sections {
		if line, ok := seen[s.Heading]; ok {
			return fmt.Errorf("line %d: section %q again (first at line %d)", s.Line, s.Heading, line)
		}
		seen[s.Heading] = s.Line
		i := slices.Index(Sections, s.Heading)
		if i < 0 {
			continue
		}
		if i < next {
			return fmt.Errorf("line %d: section %q comes after %q; the order is %s", s.Line, s.Heading, Sections[next-1], strings.Join(Sections, ", "))
		}
		next = i + 1
		if s.Body() == "" {
			return fmt.Errorf("line %d: section %q is empty", s.Line, s.Heading)
		}
	}
	var missing []string
	for _, h := range Sections {
		if _, ok := seen[h]; !ok {
			missing = append(missing, strconv.Quote("## "+h))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing section %s", strings.Join(missing, ", "))
	}
	return nil
}

// partsOf reads the "### Part N: title" headings of a section.
func partsOf(s markdown.Section) ([]Part, error) {
	var parts []Part
	for _, sub := range markdown.Split(s.Lines, 3)[1:] {
		if n, title, ok := markdown.PartHeading(sub.Heading); ok {
			parts = append(parts, Part{Number: n, Title: title, Body: sub.Body()})
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("line %d: section %q has no \"### Part N: title\" heading", s.Line, s.Heading)
	}
	return parts, nil
}

// readPlan reads the time plan's table of phases.
func (sh *shape) readPlan(g *Guide) error {
	rows, err := table(g, TimePlan, 2)
	if err != nil {
		return err
	}
	for _, r := range rows[1:] {
		n, err := strconv.Atoi(strings.TrimSpace(r.cells[1]))
		if err != nil {
			return fmt.Errorf("line %d: section %q: the minutes of %q are %q, want a whole number", r.line, TimePlan, r.cells[0], r.cells[1])
		}
		sh.Plan = append(sh.Plan, Phase{Name: r.cells[0], Minutes: n})
	}
	return nil
}

// readHints reads the hint script: per part, HintLevels numbered items.
func (sh *shape) readHints(g *Guide) error {
	s, _ := g.section(HintScript)
	parts, err := partsOf(s)
	if err != nil {
		return err
	}
	for _, p := range parts {
		ph := PartHints{Number: p.Number, Title: p.Title}
		ph.Hints, _ = listItems(markdown.Lines(p.Body), hintItemRE)
		if len(ph.Hints) != HintLevels {
			return fmt.Errorf("section %q, part %d: %d numbered hints, want %d (a question, a nudge, a near-answer)", HintScript, p.Number, len(ph.Hints), HintLevels)
		}
		sh.Hints = append(sh.Hints, ph)
	}
	return nil
}

// readRubric reads the rubric's table: the bands across, the dimensions
// down.
func (sh *shape) readRubric(g *Guide) error {
	rows, err := table(g, Rubric, 5)
	if err != nil {
		return err
	}
	for _, b := range rows[0].cells[1:] {
		sh.Bands = append(sh.Bands, strings.Trim(b, "* "))
	}
	if len(sh.Bands) < 4 {
		return fmt.Errorf("line %d: the rubric has %d bands, want at least 4", rows[0].line, len(sh.Bands))
	}
	next := 0
	for _, b := range sh.Bands {
		i := slices.Index(Bands, b)
		if i < next {
			return fmt.Errorf("line %d: rubric band %q, want bands among %q, from worst to best", rows[0].line, b, Bands)
		}
		next = i + 1
	}
	if sh.Bands[0] != Bands[0] || sh.Bands[len(sh.Bands)-1] != Bands[len(Bands)-1] {
		return fmt.Errorf("line %d: the rubric's bands go from %q to %q, want %q to %q", rows[0].line, sh.Bands[0], sh.Bands[len(sh.Bands)-1], Bands[0], Bands[len(Bands)-1])
	}
	sh.Cells = map[string][]string{}
	var dims []string
	for _, r := range rows[1:] {
		d := strings.Trim(r.cells[0], "* ")
		dims = append(dims, d)
		if len(r.cells) != len(sh.Bands)+1 {
			return fmt.Errorf("line %d: rubric row %q has %d cells, want %d", r.line, d, len(r.cells), len(sh.Bands)+1)
		}
		for i, c := range r.cells[1:] {
			if strings.TrimSpace(c) == "" {
				return fmt.Errorf("line %d: rubric row %q says nothing for %q", r.line, d, sh.Bands[i])
			}
		}
		sh.Cells[d] = r.cells[1:]
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
func table(g *Guide, heading string, minCols int) ([]row, error) {
	s, _ := g.section(heading)
	var rows []row
	started := false
	for _, l := range s.Lines {
		line := strings.TrimSpace(l.Text)
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
			return nil, fmt.Errorf("line %d: section %q: a table row with %d cells, want at least %d", l.Number, heading, len(cells), minCols)
		}
		rows = append(rows, row{cells, l.Number})
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("line %d: section %q has no table with a header and rows", s.Line, heading)
	}
	return rows, nil
}
