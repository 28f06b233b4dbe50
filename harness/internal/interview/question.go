package interview

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/markdown"
	"github.com/rateladder/rateladder/harness/levels"
)

// Interview mode poses a README's question alone. Lines of their own mark
// off the rest: "<!-- guidance -->" ... "<!-- /guidance -->" blocks become
// hints of their part (those of the intro, part 1's); "<!-- part 2 adds: Len -->"
// keeps a method out of the API until part 2; and "<!-- clarify: Question? -->"
// ... "<!-- /clarify -->" is a rule that, on a terminal, is withheld and
// shown as its numbered question, its text the answer.
var (
	markerRE         = regexp.MustCompile(`^<!-- (guidance|/guidance|/clarify|clarify: (.+?)|part (\d+) adds: (.+?)) -->\s*$`)
	htmlCommentLine  = regexp.MustCompile(`^<!--.*-->\s*$`)
	manyBlankLinesRE = regexp.MustCompile(`\n{3,}`)
)

// Readme is a level's README as interview mode reads it.
type Readme struct {
	// raw is the intro (0), what part 1 needs before its section (story,
	// API, rules, worked examples), and each part's section from its
	// heading: without guidance or markers, each clarification kept between
	// the lines clarifyMark+question and clarifyEnd.
	raw map[int]string
	// Guidance is each part's guidance blocks, in the README's order.
	Guidance map[int][]string
	// Adds is the methods each part after the first brings into the API.
	Adds map[int][]string
	// Clarifications are numbered in the order the parts come.
	Clarifications []Clarification
	// Withhold makes Intro and Section show each clarification as its
	// number and question instead of its text.
	Withhold bool
}

// The lines that keep a clarification in a raw text: no README line starts
// with a NUL.
const clarifyMark, clarifyEnd = "\x00clarify: ", "\x00/clarify"

var (
	rawClarifyRE = regexp.MustCompile("(?ms)^\x00clarify: ([^\n]*)\n.*?^\x00/clarify$")
	rawMarkRE    = regexp.MustCompile("(?m)^\x00.*(\n|$)")
)

// Clarification is a rule the candidate should ask about, with its answer;
// its number is its place in Readme.Clarifications, from 1.
type Clarification struct {
	Part     int    // the part whose section holds it, 0 for the intro
	Topic    string // the heading it is under
	Question string
	Answer   string
}

// Asking is how many clarifications the question of parts 1 to upTo has.
func (r Readme) Asking(upTo int) int {
	if i := slices.IndexFunc(r.Clarifications, func(c Clarification) bool { return c.Part > upTo }); i >= 0 {
		return i // they are in the order of their parts
	}
	return len(r.Clarifications)
}

// Section is part n's section as its question shows it; 0 is the whole
// intro.
func (r Readme) Section(n int) string {
	text := r.raw[n]
	if r.Withhold {
		text = rawClarifyRE.ReplaceAllStringFunc(text, func(block string) string {
			q := rawClarifyRE.FindStringSubmatch(block)[1]
			return fmt.Sprintf("Q%d. %s", 1+slices.IndexFunc(r.Clarifications, func(c Clarification) bool { return c.Question == q }), q)
		})
	}
	return tidy(rawMarkRE.ReplaceAllString(text, ""))
}

// LaterMethods is every method that a part after upTo adds.
func (r Readme) LaterMethods(upTo int) []string {
	var names []string
	for n, ms := range r.Adds {
		if n > upTo {
			names = append(names, ms...)
		}
	}
	slices.Sort(names)
	return names
}

// Declares reports whether a line of Go declares or calls one of the
// methods names.
func Declares(line string, names ...string) bool {
	for _, name := range names {
		if regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `\(`).MatchString(line) {
			return true
		}
	}
	return false
}

// Intro is the intro as part upTo's question shows it: the API has only
// the methods of parts 1 to upTo.
func (r Readme) Intro(upTo int) string {
	later := r.LaterMethods(upTo)
	return strings.Join(r.introLines(func(line string, inAPI bool) bool { return !inAPI || !Declares(line, later...) }), "\n")
}

// introLines is the intro's lines that keep returns true for; inAPI says
// whether the line is inside a fenced block (the API), not a fence line.
func (r Readme) introLines(keep func(line string, inAPI bool) bool) []string {
	var out []string
	for _, line := range markdown.Lines(r.Section(0)) {
		fence := line.Fenced && strings.HasPrefix(strings.TrimSpace(line.Text), "```")
		if keep(line.Text, line.Fenced && !fence) {
			out = append(out, line.Text)
		}
	}
	return out
}

// Api is the lines of the intro's API that part adds, as a Go block, or ""
// if it adds none.
func (r Readme) Api(part int) string {
	lines := r.introLines(func(line string, inAPI bool) bool { return inAPI && Declares(line, r.Adds[part]...) })
	if len(lines) == 0 {
		return ""
	}
	return "```go\n" + strings.Join(lines, "\n") + "\n```"
}

// ReadmeParts reads a level's README, and those of its other modules (level
// 8's Redis form), into its question, part by part, and its guidance.
func ReadmeParts(root string, l levels.Level) (Readme, error) {
	path := filepath.Join(root, l.Dir, "README.md")
	r, err := SplitREADME(path)
	if err != nil {
		return Readme{}, err
	}
	for _, m := range l.Modules {
		if m.Dir == "." {
			continue
		}
		more, err := SplitREADME(filepath.Join(root, m.Dir, "README.md"))
		if err != nil {
			return Readme{}, err
		}
		for n, text := range more.raw {
			if n != 0 { // the module README's intro is not asked
				r.raw[n], r.Guidance[n] = text, more.Guidance[n]
			}
		}
		for _, c := range more.Clarifications {
			if c.Part != 0 {
				r.Clarifications = append(r.Clarifications, c)
			}
		}
	}
	// Numbered from 1 in the order the parts come; a number is looked up by its question.
	slices.SortStableFunc(r.Clarifications, func(a, b Clarification) int { return a.Part - b.Part })
	asked := map[string]bool{}
	for _, c := range r.Clarifications {
		if asked[c.Question] {
			return Readme{}, fmt.Errorf("%s: two clarifications ask %q", path, c.Question)
		}
		asked[c.Question] = true
	}
	for _, p := range l.Parts {
		if _, ok := r.raw[p.Number]; !ok {
			return Readme{}, errors.New(path + ": no \"## Part " + strconv.Itoa(p.Number) + ":\" section")
		}
	}
	return r, nil
}

// SplitREADME splits one README into its intro and its parts' sections,
// and takes the guidance out of both.
func SplitREADME(path string) (Readme, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Readme{}, err
	}
	r := Readme{raw: map[int]string{}, Guidance: map[int][]string{}, Adds: map[int][]string{}}
	texts := map[int][]string{} // by part: 0 the intro, -1 after the parts ("## Run it"), dropped
	var block, answer []string
	var open *Clarification // the clarification being read, nil outside one
	part, topic, inGuidance := 0, "", false
	fail := func(line int, what string) (Readme, error) {
		return Readme{}, fmt.Errorf("%s:%d: %s", path, line, what)
	}
	for _, line := range markdown.Lines(string(data)) {
		if h, ok := markdown.Heading(line, 2); ok {
			switch {
			case inGuidance:
				return fail(line.Number, "a heading inside a guidance block")
			case open != nil:
				return fail(line.Number, "a heading inside a clarification")
			}
			topic = h
			if n, _, ok := markdown.PartHeading(h); ok {
				part = n
			} else if part != 0 {
				part = -1
			}
			texts[part] = append(texts[part], "## "+h)
			continue
		}
		var m []string
		if !line.Fenced {
			m = markerRE.FindStringSubmatch(line.Text)
		}
		switch {
		case m == nil:
			if h, ok := markdown.Heading(line, 3); ok && open == nil {
				topic = h
			}
		case m[1] == "guidance":
			if inGuidance {
				return fail(line.Number, "a guidance block inside another")
			}
			inGuidance, block = true, nil
			continue
		case m[1] == "/guidance":
			if !inGuidance {
				return fail(line.Number, "the end of a guidance block that did not begin")
			}
			if part >= 0 { // the intro's guidance is part 1's
				r.Guidance[max(part, 1)] = append(r.Guidance[max(part, 1)], tidy(strings.Join(block, "\n")))
			}
			inGuidance = false
			continue
		case inGuidance && (m[2] != "" || m[1] == "/clarify"):
			return fail(line.Number, "a clarification marker inside a guidance block")
		case m[2] != "":
			if open != nil {
				return fail(line.Number, "a clarification inside another")
			}
			open, answer = &Clarification{Part: part, Topic: topic, Question: m[2]}, nil
			texts[part] = append(texts[part], clarifyMark+m[2])
			continue
		case m[1] == "/clarify":
			if open == nil {
				return fail(line.Number, "the end of a clarification that did not begin")
			}
			open.Answer = tidy(strings.Join(answer, "\n"))
			if part >= 0 {
				r.Clarifications = append(r.Clarifications, *open)
			}
			open = nil
			texts[part] = append(texts[part], clarifyEnd)
			continue
		case m[3] != "" && part == 0:
			n, _ := strconv.Atoi(m[3])
			for _, name := range strings.Split(m[4], ",") {
				r.Adds[n] = append(r.Adds[n], strings.TrimSpace(name))
			}
		}
		switch {
		case inGuidance:
			block = append(block, line.Text)
		case !line.Fenced && htmlCommentLine.MatchString(line.Text):
			// markers say how to read the README; they are not the question
		default:
			if open != nil {
				answer = append(answer, line.Text)
			}
			texts[part] = append(texts[part], line.Text)
		}
	}
	switch {
	case inGuidance:
		return Readme{}, errors.New(path + ": a guidance block that does not end")
	case open != nil:
		return Readme{}, errors.New(path + ": a clarification that does not end")
	}
	for n, lines := range texts {
		if n >= 0 {
			r.raw[n] = strings.Join(lines, "\n")
		}
	}
	return r, nil
}

// tidy trims a text and drops the runs of blank lines that taking blocks
// out leaves.
func tidy(text string) string {
	return strings.TrimSpace(manyBlankLinesRE.ReplaceAllString(text, "\n\n"))
}

// WithGuidance adds the README's guidance of the part, which interview
// mode keeps from the question, to its hints, last.
func WithGuidance(root string, l levels.Level, p HintPart) HintPart {
	r, _ := ReadmeParts(root, l) // a README that does not split has no guidance to add
	p.Hints = slices.Clone(p.Hints)
	for _, g := range r.Guidance[p.Number] {
		p.Hints = append(p.Hints, "From the README:\n\n"+g)
	}
	return p
}
