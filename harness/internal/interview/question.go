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
var (
	guidanceOpenRE   = regexp.MustCompile(`^<!-- guidance -->\s*$`)
	guidanceCloseRE  = regexp.MustCompile(`^<!-- /guidance -->\s*$`)
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
	out := r.introLines(func(line string, inAPI bool) bool { return !inAPI || !declaresAny(line, later) })
	return strings.Join(out, "\n")
}

// introLines is the intro's lines that keep returns true for; inAPI says
// whether the line is inside a fenced block, where the intro states the
// API (the fence lines themselves are not).
func (r Readme) introLines(keep func(line string, inAPI bool) bool) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(r.IntroText, "\n") {
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
			r.Guidance[n] = more.Guidance[n]
		}
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
	r := Readme{Sections: map[int]string{}, Guidance: map[int][]string{}, Adds: map[int][]string{}}
	var intro, block []string
	inIntro, inGuidance := true, false
	for _, s := range markdown.Split(string(data), 2) {
		part := 0 // the part whose section this is
		var cur []string
		if s.Line > 0 {
			if inGuidance {
				return Readme{}, fmt.Errorf("%s:%d: a heading inside a guidance block", path, s.Line)
			}
			if n, _, ok := markdown.PartHeading(s.Heading); ok {
				inIntro, part = false, n
			}
			// A section before part 1 is the intro's; one after the
			// parts ("## Run it") belongs to no part.
			heading := "## " + s.Heading
			switch {
			case part != 0:
				cur = append(cur, heading)
			case inIntro:
				intro = append(intro, heading)
			}
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
				}
				if m := partAddsRE.FindStringSubmatch(line.Text); m != nil && inIntro {
					n, _ := strconv.Atoi(m[1])
					for _, name := range strings.Split(m[2], ",") {
						r.Adds[n] = append(r.Adds[n], strings.TrimSpace(name))
					}
				}
			}
			switch {
			case inGuidance:
				block = append(block, line.Text)
			case !line.Fenced && htmlCommentLine.MatchString(line.Text):
				// markers say how to read the README; they are not the question
			case part != 0:
				cur = append(cur, line.Text)
			case inIntro:
				intro = append(intro, line.Text)
			}
		}
		if part != 0 {
			r.Sections[part] = tidy(cur)
		}
	}
	if inGuidance {
		return Readme{}, errors.New(path + ": a guidance block that does not end")
	}
	r.IntroText = tidy(intro)
	return r, nil
}

// tidy joins lines into a text without the runs of blank lines that taking
// blocks out leaves.
func tidy(lines []string) string {
	return strings.TrimSpace(manyBlankLinesRE.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
