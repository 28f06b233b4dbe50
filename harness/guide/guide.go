// Package guide reads a level's interviewer's guide, ladder/NN-name/INTERVIEWER.md,
// which interview mode never shows the candidate. Its "## " sections are fixed
// (see Sections); Time plan, Follow-ups, Hint script, Classic mistakes and
// Rubric have a shape of their own, checked by Parse. A classic mistake ends
// with the name of the spec mutant that shows it, as a Go string literal:
//
//	Counts a hit at exactly now-window. (mutant: "inclusive boundary: still counts a hit at exactly now-window")
package guide

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/markdown"
)

// FileName is the guide's file name in a level's folder.
const FileName = "INTERVIEWER.md"

// The headings of the sections every guide has, in this order.
const (
	Pose       = "Pose the problem"
	Clarifying = "Clarifying questions"
	TimePlan   = "Time plan"
	FollowUps  = "Follow-ups"
	HintScript = "Hint script"
	Approaches = "Approaches"
	Mistakes   = "Classic mistakes"
	Rubric     = "Rubric"
)

// Sections lists the required headings in the order a guide gives them.
var Sections = []string{Pose, Clarifying, TimePlan, FollowUps, HintScript, Approaches, Mistakes, Rubric}

// Bands are the rubric's verdicts, from worst to best. A rubric has at
// least four of them, in this order, from the first to the last.
var Bands = []string{"Strong no hire", "No hire", "Lean no hire", "Lean hire", "Hire", "Strong hire"}

// Dimensions are the rubric's rows: each is scored on its own.
var Dimensions = []string{"Problem solving", "Code", "Testing", "Communication", "Hints used"}

// HintLevels is how many hints the script gives for each part.
const HintLevels = 3

// Guide is one parsed INTERVIEWER.md.
type Guide struct {
	Title    string    // the "# " heading
	Sections []Section // the "## " sections in file order, required or not
	Parts    []Part    // the "### Part N: title" headings of Follow-ups
	Mistakes []Mistake
	Scope    Scope
	Plan     []Phase
	Hints    []PartHints
	// Bands are the rubric's columns, Cells its rows by dimension.
	Bands []string
	Cells map[string][]string
}

// Scope is what the time plan says fits the clock: the parts In, in Minutes,
// then Stretch parts if time is left; TakeHome parts are not asked. It is
// written as list items such as "- **In scope, 45 minutes:** parts 1 to 3.".
type Scope struct {
	Minutes  int
	In       []int
	Stretch  []int
	TakeHome []int
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

// Section is one "## " heading and the Markdown under it, trimmed.
type Section struct {
	Heading  string
	Body     string
	Line     int // line of the heading, from 1
	BodyLine int // line of Body's first line
}

// Part is one follow-up: a part of the level.
type Part struct {
	Number int
	Title  string
	Body   string // the Markdown under the heading, trimmed
}

// Mistake is one classic mistake and the mutant that shows it.
type Mistake struct {
	Text   string // the mistake, without the mutant tag
	Mutant string // the mutant's name, unquoted
	Line   int
}

// Section returns the body of the section with the given heading.
func (g *Guide) Section(heading string) (string, bool) {
	s := g.section(heading)
	return s.Body, s.Heading != ""
}

// Approaches returns the Approaches section as raw Markdown.
func (g *Guide) Approaches() string {
	body, _ := g.Section(Approaches)
	return body
}

// Load reads and parses the guide at path.
func Load(path string) (*Guide, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

var (
	mutantRE = regexp.MustCompile(`^(.*?)\s*\(mutant:\s*("(?:[^"\\]|\\.)*")\)\s*$`)
	listItem = regexp.MustCompile(`^[-*]\s+`)
)

// Parse parses a guide. It fails if a required section is missing, empty,
// given twice or out of order, if the Follow-ups section has no part, or if
// a list item of the Classic mistakes section has no mutant tag.
func Parse(src []byte) (*Guide, error) {
	g := &Guide{}
	sections := markdown.Split(string(src), 2)
	for _, l := range sections[0].Lines {
		if h, ok := markdown.Heading(l, 1); ok {
			g.Title = h
			break
		}
	}
	for _, s := range sections[1:] {
		g.Sections = append(g.Sections, Section{Heading: s.Heading, Body: s.Body(), Line: s.Line, BodyLine: s.BodyLine()})
	}
	if g.Title == "" {
		return nil, fmt.Errorf("no title: the guide must start with a \"# \" heading")
	}
	if err := g.checkSections(); err != nil {
		return nil, err
	}
	var err error
	if g.Parts, err = partsOf(g.section(FollowUps)); err != nil {
		return nil, err
	}
	for _, parse := range []func() error{g.parseMistakes, g.parseTimePlan, g.parseHints, g.parseRubric} {
		if err := parse(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// checkSections checks that the required sections are there once each, in
// order, and not empty.
func (g *Guide) checkSections() error {
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
		if s.Body == "" {
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
func partsOf(s Section) ([]Part, error) {
	var parts []Part
	var body []string
	flush := func() {
		if len(parts) > 0 {
			parts[len(parts)-1].Body = strings.TrimSpace(strings.Join(body, "\n"))
		}
		body = nil
	}
	for _, line := range markdown.Lines(s.Body) {
		if h, ok := markdown.Heading(line, 3); ok {
			if n, title, ok := markdown.PartHeading(h); ok {
				flush()
				parts = append(parts, Part{Number: n, Title: title})
				continue
			}
		}
		body = append(body, line.Text)
	}
	flush()
	if len(parts) == 0 {
		return nil, fmt.Errorf("line %d: section %q has no \"### Part N: title\" heading", s.Line, s.Heading)
	}
	return parts, nil
}

// listItems reads the list items of a body that start with re, each with
// the indented lines it wraps onto, and their line offsets in the body.
func listItems(body string, re *regexp.Regexp) (texts []string, lines []int) {
	open := false // whether the last line belongs to an item
	for i, line := range strings.Split(body, "\n") {
		switch {
		case re.MatchString(line):
			texts, lines = append(texts, strings.TrimSpace(re.ReplaceAllString(line, ""))), append(lines, i)
			open = true
		case open && strings.TrimSpace(line) != "" && (line[0] == ' ' || line[0] == '\t'):
			texts[len(texts)-1] += " " + strings.TrimSpace(line)
		default:
			open = false
		}
	}
	return texts, lines
}

// parseMistakes reads the list of Classic mistakes, each ending with its
// mutant tag.
func (g *Guide) parseMistakes() error {
	s := g.section(Mistakes)
	texts, lines := listItems(s.Body, listItem)
	for i, text := range texts {
		line := s.BodyLine + lines[i]
		m := mutantRE.FindStringSubmatch(text)
		if m == nil {
			return fmt.Errorf("line %d: mistake without a mutant tag, want `... (mutant: \"name\")`: %s", line, text)
		}
		name, err := strconv.Unquote(m[2])
		if err != nil {
			return fmt.Errorf("line %d: mutant name %s: %v", line, m[2], err)
		}
		if m[1] == "" || name == "" {
			return fmt.Errorf("line %d: a mistake needs a text and a mutant name: %s", line, text)
		}
		g.Mistakes = append(g.Mistakes, Mistake{Text: m[1], Mutant: name, Line: line})
	}
	if len(g.Mistakes) == 0 {
		return fmt.Errorf("line %d: section %q lists no mistake", s.Line, Mistakes)
	}
	return nil
}

// section returns the section with the given heading.
func (g *Guide) section(heading string) Section {
	for _, s := range g.Sections {
		if s.Heading == heading {
			return s
		}
	}
	return Section{}
}
