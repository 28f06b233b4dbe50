package interview

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/markdown"
)

// A level's README is read two ways. Practice mode is the README itself:
// everything shows. Interview mode poses the question alone (what to
// build, the rules, the worked examples), so the README marks off the
// rest, the approaches, traps and design notes, on lines of their own:
//
//	<!-- guidance -->
//	...
//	<!-- /guidance -->
//
// A guidance block belongs to the part whose section holds it; one in the
// Intro, before "## Part 1", belongs to part 1. In an interview each block
// is one more hint of its part (make hint-N).
//
// The API block in the intro lists every method. A line after it says
// which ones come later, so that part 1's question does not name them:
//
//	<!-- part 2 adds: Len -->
//
// Interview mode leaves their lines out of the API until that part comes.
//
// A rule the candidate should ask about is a clarification: its text stays
// where it is, between a line that asks the question and one that ends it:
//
//	<!-- clarify: What does a denied request cost? -->
//	- **All or nothing.** ... A denied request changes nothing.
//	<!-- /clarify -->
//
// Practice mode reads the rule as it is. On a terminal, interview mode
// withholds it and shows its question, numbered, in its place; the text
// between the lines is the answer, shown when the candidate asks.
var (
	guidanceOpenRE   = regexp.MustCompile(`^<!-- guidance -->\s*$`)
	guidanceCloseRE  = regexp.MustCompile(`^<!-- /guidance -->\s*$`)
	clarifyOpenRE    = regexp.MustCompile(`(?m)^<!-- clarify: (.+?) -->[ \t]*$`) // also where a text withholds one
	clarifyCloseRE   = regexp.MustCompile(`^<!-- /clarify -->\s*$`)
	subheadingRE     = regexp.MustCompile(`^###\s+(.+?)\s*$`)
	partAddsRE       = regexp.MustCompile(`^<!-- part (\d+) adds: (.+?) -->\s*$`)
	htmlCommentLine  = regexp.MustCompile(`^<!--.*-->\s*$`)
	manyBlankLinesRE = regexp.MustCompile(`\n{3,}`)
)

// Readme is a level's README as interview mode reads it.
type Readme struct {
	// IntroText is what part 1 needs before its section: the story, the
	// API, the rules and the worked examples, guidance left out.
	IntroText string
	// Sections is each part's section, from its heading to the next
	// "## " heading, guidance left out.
	Sections map[int]string
	// Guidance is each part's guidance blocks, in the README's order.
	Guidance map[int][]string
	// Adds is the methods each part after the first brings into the API.
	Adds map[int][]string
	// Clarifications are the README's, numbered in the order the parts
	// come.
	Clarifications []Clarification
	// Withhold makes Intro and Section withhold the clarifications: each
	// is one line, its number and its question.
	Withhold bool

	// askIntro and askSections are IntroText and Sections with each
	// clarification's text left out and its opening line in its place.
	askIntro    string
	askSections map[int]string
}

// Clarification is a rule the candidate should ask about, with its answer.
type Clarification struct {
	Number int
	// Part is the part whose section holds it, 0 for the intro, which
	// part 1's question shows.
	Part     int
	Topic    string // the heading it is under
	Question string
	Answer   string
}

// Asking is how many clarifications the question of parts 1 to upTo has.
func (r Readme) Asking(upTo int) int {
	n := 0
	for _, c := range r.Clarifications {
		if c.Part <= upTo {
			n++
		}
	}
	return n
}

// Section is part n's section as its question shows it.
func (r Readme) Section(n int) string {
	if r.Withhold {
		return r.withheld(r.askSections[n])
	}
	return r.Sections[n]
}

// withheld puts each clarification's number and question where its text
// was.
func (r Readme) withheld(text string) string {
	return clarifyOpenRE.ReplaceAllStringFunc(text, func(line string) string {
		q := clarifyOpenRE.FindStringSubmatch(line)[1]
		for _, c := range r.Clarifications {
			if c.Question == q {
				return fmt.Sprintf("Q%d. %s", c.Number, q)
			}
		}
		return q
	})
}

// LaterMethods is every method that a part after upTo adds.
func (r Readme) LaterMethods(upTo int) []string {
	var names []string
	for n, ms := range r.Adds {
		if n > upTo {
			names = append(names, ms...)
		}
	}
	sort.Strings(names)
	return names
}

// Declares reports whether a line of Go declares or calls the method name.
func Declares(line, name string) bool {
	return regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `\(`).MatchString(line)
}

// Intro is the intro as part upTo's question shows it: the API has only
// the methods of parts 1 to upTo.
func (r Readme) Intro(upTo int) string {
	later := r.LaterMethods(upTo)
	text := strings.Join(r.introLines(func(line string, inAPI bool) bool { return !inAPI || !declaresAny(line, later) }), "\n")
	if r.Withhold {
		text = r.withheld(text)
	}
	return text
}

// introLines is the intro's lines that keep returns true for; inAPI says
// whether the line is inside a fenced block, where the intro states the
// API (the fence lines themselves are not).
func (r Readme) introLines(keep func(line string, inAPI bool) bool) []string {
	var out []string
	inFence := false
	text := r.IntroText
	if r.Withhold {
		text = r.askIntro
	}
	for _, line := range strings.Split(text, "\n") {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		if fence {
			inFence = !inFence
		}
		if keep(line, inFence && !fence) {
			out = append(out, line)
		}
	}
	return out
}

func declaresAny(line string, names []string) bool {
	for _, n := range names {
		if Declares(line, n) {
			return true
		}
	}
	return false
}

// Api is the lines of the intro's API that part adds, as a Go block, or ""
// if it adds none.
func (r Readme) Api(part int) string {
	names := r.Adds[part]
	if len(names) == 0 {
		return ""
	}
	lines := r.introLines(func(line string, inAPI bool) bool { return inAPI && declaresAny(line, names) })
	if len(lines) == 0 {
		return ""
	}
	return "```go\n" + strings.Join(lines, "\n") + "\n```"
}

// ReadmeParts reads a level's README into its question, part by part, and
// its guidance. "## Run it" and what follows belong to no part.
//
// A level whose later parts live in a module of their own (level 8's Redis
// form) states them in that module's README.md, which is read too.
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
		for n, text := range more.Sections {
			r.Sections[n] = text
			r.askSections[n] = more.askSections[n]
			r.Guidance[n] = more.Guidance[n]
		}
		for _, c := range more.Clarifications {
			if c.Part != 0 { // the module README's intro is not asked
				r.Clarifications = append(r.Clarifications, c)
			}
		}
	}
	// Numbered in the order the parts come, each question once: its
	// number is looked up by its question.
	sort.SliceStable(r.Clarifications, func(i, j int) bool { return r.Clarifications[i].Part < r.Clarifications[j].Part })
	asked := map[string]bool{}
	for i := range r.Clarifications {
		c := &r.Clarifications[i]
		if asked[c.Question] {
			return Readme{}, fmt.Errorf("%s: two clarifications ask %q", path, c.Question)
		}
		asked[c.Question] = true
		c.Number = i + 1
	}
	for _, p := range l.Parts {
		if r.Sections[p.Number] == "" {
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
	r := Readme{Sections: map[int]string{}, askSections: map[int]string{}, Guidance: map[int][]string{}, Adds: map[int][]string{}}
	var intro, introAsk, block []string
	var open *Clarification // the clarification being read, nil outside one
	var answer []string
	inIntro, inGuidance := true, false
	for _, s := range markdown.Split(string(data), 2) {
		part := 0 // the part whose section this is
		var cur, curAsk []string
		// add keeps a line of the question: in the README's text, and in
		// the text that withholds the clarifications.
		add := func(text string, inText, inAsk bool) {
			switch {
			case part != 0 && inText:
				cur = append(cur, text)
			case inIntro && inText:
				intro = append(intro, text)
			}
			switch {
			case part != 0 && inAsk:
				curAsk = append(curAsk, text)
			case inIntro && inAsk:
				introAsk = append(introAsk, text)
			}
		}
		topic := s.Heading
		if s.Line > 0 {
			switch {
			case inGuidance:
				return Readme{}, fmt.Errorf("%s:%d: a heading inside a guidance block", path, s.Line)
			case open != nil:
				return Readme{}, fmt.Errorf("%s:%d: a heading inside a clarification", path, s.Line)
			}
			if n, _, ok := markdown.PartHeading(s.Heading); ok {
				inIntro, part = false, n
			}
			// A section before part 1 is the intro's; one after the
			// parts ("## Run it") belongs to no part.
			add("## "+s.Heading, true, true)
		}
		for _, line := range s.Lines {
			if !line.Fenced {
				switch {
				case guidanceOpenRE.MatchString(line.Text):
					if inGuidance {
						return Readme{}, fmt.Errorf("%s:%d: a guidance block inside another", path, line.Number)
					}
					inGuidance, block = true, nil
					continue
				case guidanceCloseRE.MatchString(line.Text):
					if !inGuidance {
						return Readme{}, fmt.Errorf("%s:%d: the end of a guidance block that did not begin", path, line.Number)
					}
					owner := part
					if inIntro {
						owner = 1
					}
					if owner != 0 {
						r.Guidance[owner] = append(r.Guidance[owner], tidy(block))
					}
					inGuidance = false
					continue
				case inGuidance && (clarifyOpenRE.MatchString(line.Text) || clarifyCloseRE.MatchString(line.Text)):
					return Readme{}, fmt.Errorf("%s:%d: a clarification marker inside a guidance block", path, line.Number)
				case clarifyOpenRE.MatchString(line.Text):
					if open != nil {
						return Readme{}, fmt.Errorf("%s:%d: a clarification inside another", path, line.Number)
					}
					open, answer = &Clarification{Part: part, Topic: topic, Question: clarifyOpenRE.FindStringSubmatch(line.Text)[1]}, nil
					add(line.Text, false, true) // where the question shows
					continue
				case clarifyCloseRE.MatchString(line.Text):
					if open == nil {
						return Readme{}, fmt.Errorf("%s:%d: the end of a clarification that did not begin", path, line.Number)
					}
					open.Answer = tidy(answer)
					if part != 0 || inIntro {
						r.Clarifications = append(r.Clarifications, *open)
					}
					open = nil
					continue
				}
				if m := partAddsRE.FindStringSubmatch(line.Text); m != nil && inIntro {
					n, _ := strconv.Atoi(m[1])
					for _, name := range strings.Split(m[2], ",") {
						r.Adds[n] = append(r.Adds[n], strings.TrimSpace(name))
					}
				}
				if m := subheadingRE.FindStringSubmatch(line.Text); m != nil && open == nil {
					topic = m[1]
				}
			}
			switch {
			case inGuidance:
				block = append(block, line.Text)
			case !line.Fenced && htmlCommentLine.MatchString(line.Text):
				// markers say how to read the README; they are not the question
			case open != nil:
				answer = append(answer, line.Text)
				add(line.Text, true, false)
			default:
				add(line.Text, true, true)
			}
		}
		if part != 0 {
			r.Sections[part] = tidy(cur)
			r.askSections[part] = tidy(curAsk)
		}
	}
	switch {
	case inGuidance:
		return Readme{}, errors.New(path + ": a guidance block that does not end")
	case open != nil:
		return Readme{}, errors.New(path + ": a clarification that does not end")
	}
	r.IntroText, r.askIntro = tidy(intro), tidy(introAsk)
	return r, nil
}

// tidy joins lines into a text without the runs of blank lines that taking
// blocks out leaves.
func tidy(lines []string) string {
	return strings.TrimSpace(manyBlankLinesRE.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
