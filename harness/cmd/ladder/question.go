package main

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
// intro, before "## Part 1", belongs to part 1. In an interview each block
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

// readme is a level's README as interview mode reads it.
type readme struct {
	// introText is what part 1 needs before its section: the story, the
	// API, the rules and the worked examples, guidance left out.
	introText string
	// sections is each part's section, from its heading to the next
	// "## " heading, guidance left out.
	sections map[int]string
	// guidance is each part's guidance blocks, in the README's order.
	guidance map[int][]string
	// adds is the methods each part after the first brings into the API.
	adds map[int][]string
}

// laterMethods is every method that a part after upTo adds.
func (r readme) laterMethods(upTo int) []string {
	var names []string
	for n, ms := range r.adds {
		if n > upTo {
			names = append(names, ms...)
		}
	}
	sort.Strings(names)
	return names
}

// declares reports whether a line of Go declares or calls the method name.
func declares(line, name string) bool {
	return regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `\(`).MatchString(line)
}

// intro is the intro as part upTo's question shows it: the API has only
// the methods of parts 1 to upTo.
func (r readme) intro(upTo int) string {
	later := r.laterMethods(upTo)
	var out []string
	inFence := false
	for _, line := range strings.Split(r.introText, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		} else if inFence && declaresAny(line, later) {
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func declaresAny(line string, names []string) bool {
	for _, n := range names {
		if declares(line, n) {
			return true
		}
	}
	return false
}

// api is the lines of the intro's API that part adds, as a Go block, or ""
// if it adds none.
func (r readme) api(part int) string {
	names := r.adds[part]
	if len(names) == 0 {
		return ""
	}
	var lines []string
	inFence := false
	for _, line := range strings.Split(r.introText, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		} else if inFence && declaresAny(line, names) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "```go\n" + strings.Join(lines, "\n") + "\n```"
}

// readmeParts reads a level's README into its question, part by part, and
// its guidance. "## Run it" and what follows belong to no part.
//
// A level whose later parts live in a module of their own (level 8's Redis
// form) states them in that module's README.md, which is read too.
func readmeParts(root string, l levels.Level) (readme, error) {
	path := filepath.Join(root, l.Dir, "README.md")
	r, err := splitREADME(path)
	if err != nil {
		return readme{}, err
	}
	for _, m := range l.Modules {
		if m.Dir == "." {
			continue
		}
		more, err := splitREADME(filepath.Join(root, m.Dir, "README.md"))
		if err != nil {
			return readme{}, err
		}
		for n, text := range more.sections {
			r.sections[n] = text
			r.guidance[n] = more.guidance[n]
		}
	}
	for _, p := range l.Parts {
		if r.sections[p.Number] == "" {
			return readme{}, errors.New(path + ": no \"## Part " + strconv.Itoa(p.Number) + ":\" section")
		}
	}
	return r, nil
}

// splitREADME splits one README into its intro and its parts' sections,
// and takes the guidance out of both.
func splitREADME(path string) (readme, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return readme{}, err
	}
	r := readme{sections: map[int]string{}, guidance: map[int][]string{}, adds: map[int][]string{}}
	var intro, block []string
	inIntro, inGuidance := true, false
	for _, s := range markdown.Split(string(data), 2) {
		part := 0 // the part whose section this is
		var cur []string
		if s.Line > 0 {
			if inGuidance {
				return readme{}, fmt.Errorf("%s:%d: a heading inside a guidance block", path, s.Line)
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
						return readme{}, fmt.Errorf("%s:%d: a guidance block inside another", path, line.Number)
					}
					inGuidance, block = true, nil
					continue
				case guidanceCloseRE.MatchString(line.Text):
					if !inGuidance {
						return readme{}, fmt.Errorf("%s:%d: the end of a guidance block that did not begin", path, line.Number)
					}
					owner := part
					if inIntro {
						owner = 1
					}
					if owner != 0 {
						r.guidance[owner] = append(r.guidance[owner], tidy(block))
					}
					inGuidance = false
					continue
				}
				if m := partAddsRE.FindStringSubmatch(line.Text); m != nil && inIntro {
					n, _ := strconv.Atoi(m[1])
					for _, name := range strings.Split(m[2], ",") {
						r.adds[n] = append(r.adds[n], strings.TrimSpace(name))
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
			r.sections[part] = tidy(cur)
		}
	}
	if inGuidance {
		return readme{}, errors.New(path + ": a guidance block that does not end")
	}
	r.introText = tidy(intro)
	return r, nil
}

// tidy joins lines into a text without the runs of blank lines that taking
// blocks out leaves.
func tidy(lines []string) string {
	return strings.TrimSpace(manyBlankLinesRE.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
