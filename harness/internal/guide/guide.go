// Package guide reads a level's INTERVIEWER.md, which interview mode never
// shows the candidate: the Time plan's scope, the Classic mistakes and the
// Approaches; its tests check the rest of its fixed "## " sections. A
// classic mistake ends with the name of its spec mutant, a Go string:
//
//	Counts a hit at exactly now-window. (mutant: "inclusive boundary: still counts a hit at exactly now-window")
package guide

import (
	"cmp"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/markdown"
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

// Guide is one parsed INTERVIEWER.md.
type Guide struct {
	Sections []markdown.Section // the "## " sections in file order, required or not
	Mistakes []Mistake
	Scope    Scope
}

// Scope is what the time plan says fits the clock: the parts In, in Minutes,
// then Stretch parts if time is left; TakeHome parts are not asked. It is
// written as list items such as "- **In scope, 45 minutes:** parts 1 to 3.".
type Scope struct {
	Minutes               int
	In, Stretch, TakeHome []int
}

// Mistake is one classic mistake and the mutant that shows it.
type Mistake struct {
	Text   string // the mistake, without the mutant tag
	Mutant string // the mutant's name, unquoted
	Line   int
}

// Section returns the trimmed body of the section with the given heading.
func (g *Guide) Section(heading string) (string, bool) {
	s, ok := g.section(heading)
	return s.Body(), ok
}

func (g *Guide) section(heading string) (markdown.Section, bool) {
	i := slices.IndexFunc(g.Sections, func(s markdown.Section) bool { return s.Heading == heading })
	if i < 0 {
		return markdown.Section{}, false
	}
	return g.Sections[i], true
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
	mutantRE   = regexp.MustCompile(`^(.*?)\s*\(mutant:\s*("(?:[^"\\]|\\.)*")\)\s*$`)
	listItem   = regexp.MustCompile(`^[-*]\s+`)
	scopeRE    = regexp.MustCompile(`^[-*]\s+\*\*(In scope, (\d+) minutes|Stretch|Take-home):\*\*\s*(.+)$`)
	partListRE = regexp.MustCompile(`^(?:none|parts? (\d+)(?: to (\d+))?((?:, \d+)*(?: and \d+)?))\.?$`)
	digitsRE   = regexp.MustCompile(`\d+`)
)

// Parse reads a guide's sections, scope and classic mistakes. It fails
// without the scope's three lines, or if a list item of the Classic
// mistakes section has no mutant tag.
func Parse(src []byte) (*Guide, error) {
	g := &Guide{Sections: markdown.Split(markdown.Lines(string(src)), 2)[1:]}
	if err := cmp.Or(g.parseMistakes(), g.parseScope()); err != nil {
		return nil, err
	}
	return g, nil
}

// listItems reads the list items of lines that start with re, each with
// the indented lines it wraps onto, and the line each starts on.
func listItems(lines []markdown.Line, re *regexp.Regexp) (texts []string, at []int) {
	open := false // whether the last line belongs to an item
	for _, l := range lines {
		switch line := l.Text; {
		case re.MatchString(line):
			texts, at = append(texts, strings.TrimSpace(re.ReplaceAllString(line, ""))), append(at, l.Number)
			open = true
		case open && strings.TrimSpace(line) != "" && (line[0] == ' ' || line[0] == '\t'):
			texts[len(texts)-1] += " " + strings.TrimSpace(line)
		default:
			open = false
		}
	}
	return texts, at
}

// parseMistakes reads the list of Classic mistakes, each ending with its
// mutant tag.
func (g *Guide) parseMistakes() error {
	s, _ := g.section(Mistakes)
	texts, at := listItems(s.Lines, listItem)
	for i, text := range texts {
		m := mutantRE.FindStringSubmatch(text)
		if m == nil {
			return fmt.Errorf("line %d: mistake without a mutant tag, want `... (mutant: \"name\")`: %s", at[i], text)
		}
		name, err := strconv.Unquote(m[2])
		if err != nil || m[1] == "" || name == "" {
			return fmt.Errorf("line %d: mutant name %s: a mistake needs a text and a mutant name, a Go string: %s", at[i], m[2], text)
		}
		g.Mistakes = append(g.Mistakes, Mistake{Text: m[1], Mutant: name, Line: at[i]})
	}
	if len(g.Mistakes) == 0 {
		return fmt.Errorf("line %d: section %q lists no mistake", s.Line, Mistakes)
	}
	return nil
}

// parseScope reads the time plan's three scope lines.
func (g *Guide) parseScope() error {
	s, _ := g.section(TimePlan)
	lists := map[string]*[]int{"in scope": &g.Scope.In, "stretch": &g.Scope.Stretch, "take-home": &g.Scope.TakeHome}
	missing := map[string]string{"in scope": "- **In scope, N minutes:** parts ...", "stretch": "- **Stretch:** ...", "take-home": "- **Take-home:** ..."}
	for _, line := range s.Lines {
		m := scopeRE.FindStringSubmatch(strings.TrimSpace(line.Text))
		if m == nil {
			continue
		}
		what := strings.ToLower(m[1])
		if m[2] != "" {
			what = "in scope"
			g.Scope.Minutes, _ = strconv.Atoi(m[2])
		}
		var err error
		if *lists[what], err = parsePartList(m[3]); err != nil {
			return fmt.Errorf("line %d: %s: %v", line.Number, what, err)
		}
		delete(missing, what)
	}
	for _, k := range []string{"in scope", "stretch", "take-home"} {
		if want, ok := missing[k]; ok {
			return fmt.Errorf("line %d: section %q: no scope line %q", s.Line, TimePlan, want)
		}
	}
	if len(g.Scope.In) == 0 || g.Scope.Minutes <= 0 {
		return fmt.Errorf("line %d: section %q: the interview needs some parts and some minutes", s.Line, TimePlan)
	}
	return nil
}

// parsePartList reads "none", "part 2", "parts 1 to 3", "parts 4 and 5"
// or "parts 1, 3 and 5".
func parsePartList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	m := partListRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("%q: want none, part N, parts N to M or parts N and M", s)
	}
	var parts []int
	for _, n := range digitsRE.FindAllString(s, -1) {
		p, _ := strconv.Atoi(n)
		parts = append(parts, p)
	}
	if m[2] != "" { // parts N to M
		if parts[1] <= parts[0] || m[3] != "" {
			return nil, fmt.Errorf("%q: not a range", s)
		}
		for n := parts[0] + 1; n < parts[1]; n++ {
			parts = append(parts, n)
		}
	}
	slices.Sort(parts)
	return parts, nil
}
