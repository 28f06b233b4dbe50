package interview

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/markdown"
	"github.com/rateladder/rateladder/harness/levels"
)

// Interview mode poses a README's question alone. Marker lines: "<!-- guidance -->"
// ... "<!-- /guidance -->" blocks are hints of their part (the intro's, part 1's);
// "<!-- part 2 adds: Len -->" keeps a method out of the API until part 2; and
// "<!-- clarify: Q? -->" ... "<!-- /clarify -->", on a terminal, shows as its question.
var (
	markerRE    = regexp.MustCompile(`^<!-- (guidance|/guidance|/clarify|clarify: (.+?)|part (\d+) adds: (.+?)) -->\s*$`)
	commentRE   = regexp.MustCompile(`^<!--.*-->\s*$`)
	blankLineRE = regexp.MustCompile(`\n{3,}`)
)

// Readme is a level's README by part (0 is the intro): texts without guidance
// or markers, guidance blocks, and the methods each later part adds to the API.
type Readme struct {
	texts          map[int][]chunk
	Guidance, Adds map[int][]string
	Clarifications []Clarification // numbered from 1 in the order the parts come
	Withhold       bool            // show each clarification as its number and question, not its text
}

// chunk is a README line, or a clarification (text its answer); from is the part adding it.
type chunk struct {
	text, question string
	fenced         bool
	from           int
}

// Clarification is a rule the candidate should ask about, with its answer.
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

// Section is part n's section as its question shows it; 0 is the whole intro.
func (r Readme) Section(n int) string { return r.text(n, math.MaxInt) }

// Intro is the intro as part upTo's question shows it, with the API of parts 1 to upTo.
func (r Readme) Intro(upTo int) string { return r.text(0, upTo) }

func (r Readme) text(n, upTo int) string {
	var b strings.Builder
	for _, c := range r.texts[n] {
		switch {
		case c.from > upTo:
		case c.question != "" && r.Withhold:
			i := slices.IndexFunc(r.Clarifications, func(cl Clarification) bool { return cl.Question == c.question })
			fmt.Fprintf(&b, "Q%d. %s\n", i+1, c.question)
		default:
			b.WriteString(c.text)
		}
	}
	return tidy(b.String())
}

// Api is the lines of the API that part adds, as a Go block, or "" if none.
func (r Readme) Api(part int) string {
	api := ""
	for _, c := range r.texts[0] {
		if c.from == part {
			api += c.text
		}
	}
	return map[bool]string{true: "```go\n" + api + "```"}[api != ""]
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

// Declares reports whether a line of Go declares or calls one of the methods names.
func Declares(line string, names ...string) bool {
	return slices.ContainsFunc(names, func(name string) bool {
		return regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `\(`).MatchString(line)
	})
}

// ReadmeParts reads a level's README, with the parts of its other modules' (level 8's Redis).
func ReadmeParts(root string, l levels.Level) (Readme, error) {
	r := Readme{texts: map[int][]chunk{}, Guidance: map[int][]string{}, Adds: map[int][]string{}}
	dirs := []string{l.Dir}
	for _, m := range l.Modules {
		if m.Dir != "." {
			dirs = append(dirs, m.Dir)
		}
	}
	for i, dir := range dirs {
		if err := r.split(filepath.Join(root, dir, "README.md"), -min(i, 1)); err != nil {
			return Readme{}, err
		}
	}
	for _, p := range l.Parts {
		if len(r.texts[p.Number]) == 0 { // else the interview would ask an empty question
			return Readme{}, fmt.Errorf("%s/README.md: no \"## Part %d:\" section", l.Dir, p.Number)
		}
	}
	slices.SortStableFunc(r.Clarifications, func(a, b Clarification) int { return a.Part - b.Part })
	return r, nil
}

// split adds one README's parts' sections, without the guidance and the
// markers, and its intro when part is 0; -1 drops a module's intro.
func (r *Readme) split(path string, part int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var guidance []string // the guidance block being read, nil outside one
	var open *chunk       // the clarification being read, nil outside one
	topic := ""           // part -1, dropped, is also what comes after the parts ("## Run it")
	for _, line := range markdown.Lines(string(data)) {
		h2, isH2 := markdown.Heading(line, 2)
		var m []string
		if !line.Fenced {
			m = markerRE.FindStringSubmatch(line.Text)
		}
		switch {
		case isH2 && (guidance != nil || open != nil):
			return fmt.Errorf("%s:%d: a heading inside a guidance block or a clarification", path, line.Number)
		case isH2:
			topic = h2
			if n, _, ok := markdown.PartHeading(h2); ok {
				part = n
			} else if part != 0 {
				part = -1
			}
		case m == nil:
			if h, ok := markdown.Heading(line, 3); ok && open == nil {
				topic = h
			}
		case m[1] == "guidance" && guidance == nil:
			guidance = []string{}
		case m[1] == "/guidance" && guidance != nil:
			if part >= 0 { // the intro's guidance is part 1's
				r.Guidance[max(part, 1)] = append(r.Guidance[max(part, 1)], tidy(strings.Join(guidance, "\n")))
			}
			guidance = nil
		case m[2] != "" && slices.ContainsFunc(r.Clarifications, func(c Clarification) bool { return c.Question == m[2] }):
			return fmt.Errorf("%s:%d: two clarifications ask %q", path, line.Number, m[2])
		case m[2] != "" && open == nil && guidance == nil:
			r.texts[part] = append(r.texts[part], chunk{question: m[2]})
			open = &r.texts[part][len(r.texts[part])-1]
			r.Clarifications = append(r.Clarifications, Clarification{Part: part, Topic: topic, Question: m[2]})
		case m[1] == "/clarify" && open != nil && guidance == nil:
			r.Clarifications[len(r.Clarifications)-1].Answer = tidy(open.text)
			open = nil
		case m[3] != "" && part == 0:
			n, _ := strconv.Atoi(m[3])
			for _, name := range strings.Split(m[4], ",") {
				r.Adds[n] = append(r.Adds[n], strings.TrimSpace(name))
			}
			for i, c := range r.texts[0] {
				if c.fenced && Declares(c.text, r.Adds[n]...) {
					r.texts[0][i].from = n
				}
			}
		case m[3] == "":
			return fmt.Errorf("%s:%d: <!-- %s --> out of place: guidance and clarifications do not nest, and a clarification may hold guidance", path, line.Number, m[1])
		}
		switch {
		case !line.Fenced && commentRE.MatchString(line.Text):
			// markers say how to read the README; they are not the question
		case guidance != nil:
			guidance = append(guidance, line.Text)
		case open != nil:
			open.text += line.Text + "\n"
		default:
			r.texts[part] = append(r.texts[part], chunk{text: line.Text + "\n", fenced: line.Fenced})
		}
	}
	if guidance != nil || open != nil {
		return errors.New(path + ": a guidance block or a clarification that does not end")
	}
	r.Clarifications = slices.DeleteFunc(r.Clarifications, func(c Clarification) bool { return c.Part < 0 })
	return nil
}

// tidy trims a text and drops the runs of blank lines that taking blocks out leaves.
func tidy(text string) string {
	return strings.TrimSpace(blankLineRE.ReplaceAllString(text, "\n\n"))
}

// WithGuidance adds the part's README guidance, kept from the question, to its hints.
func WithGuidance(root string, l levels.Level, p HintPart) HintPart {
	r, _ := ReadmeParts(root, l) // a README that does not split has no guidance to add
	p.Hints = slices.Clone(p.Hints)
	for _, g := range r.Guidance[p.Number] {
		p.Hints = append(p.Hints, "From the README:\n\n"+g)
	}
	return p
}
