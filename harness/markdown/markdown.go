// Package markdown cuts the ladder's Markdown files (a level's README.md,
// HINTS.md and INTERVIEWER.md) into sections at their headings. It is the
// one reader of their shape, so that every tool agrees on what a heading
// is: a line that starts with "## " (for depth 2) outside a code fence.
//
// A code fence opens at a line of three or more backticks or tildes,
// indented by up to three spaces, and closes at a line of the same
// character, at least as long, with nothing after it, as CommonMark has it:
// a line "```go" inside a "````" fence does not close it.
package markdown

import (
	"regexp"
	"strconv"
	"strings"
)

var partRE = regexp.MustCompile(`^Part\s+(\d+):\s*(.*?)\s*$`)

// PartHeading reads the heading of a level's part, as every file of the
// level heads it: "Part 2: Distinct drinks" (after "## " in a README or
// HINTS.md, after "### " in INTERVIEWER.md).
func PartHeading(heading string) (n int, title string, ok bool) {
	m := partRE.FindStringSubmatch(heading)
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[1])
	return n, m[2], err == nil
}

// Line is one line of a Markdown file.
type Line struct {
	Text   string
	Number int  // from 1
	Fenced bool // inside a code fence, or one of its fence lines
}

// Section is a heading and the lines under it, up to the next heading of
// the same depth.
type Section struct {
	// Heading is the heading's text without its marks, trimmed: "Part 1:
	// Count the last window". It is "" for the lines before the first
	// heading.
	Heading string
	Line    int    // the heading's line, from 1; 0 for the lines before
	Lines   []Line // the lines under the heading
}

// Body is the text under the heading, trimmed.
func (s Section) Body() string {
	return strings.TrimSpace(s.Text())
}

// Text is the lines under the heading, as they are.
func (s Section) Text() string {
	texts := make([]string, len(s.Lines))
	for i, l := range s.Lines {
		texts[i] = l.Text
	}
	return strings.Join(texts, "\n")
}

// BodyLine is the line of Body's first line: the first line under the
// heading that is not blank, or the line after the heading when there is
// none.
func (s Section) BodyLine() int {
	for _, l := range s.Lines {
		if strings.TrimSpace(l.Text) != "" {
			return l.Number
		}
	}
	return s.Line + 1
}

// Lines splits Markdown into lines, marking those of code fences. "\r\n"
// ends a line as "\n" does.
func Lines(src string) []Line {
	texts := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	out := make([]Line, len(texts))
	var fence string // the open fence's marks, "" outside a fence
	for i, t := range texts {
		out[i] = Line{Text: t, Number: i + 1}
		marks, rest := fenceMarks(t)
		switch {
		case fence == "" && marks != "":
			fence = marks
			out[i].Fenced = true
		case fence != "":
			out[i].Fenced = true
			if marks != "" && marks[0] == fence[0] && len(marks) >= len(fence) && strings.TrimSpace(rest) == "" {
				fence = ""
			}
		}
	}
	return out
}

// fenceMarks returns the run of backticks or tildes a fence line starts
// with, and what follows it; "" when the line is not a fence line.
func fenceMarks(line string) (marks, rest string) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 || trimmed == "" || (trimmed[0] != '`' && trimmed[0] != '~') {
		return "", ""
	}
	n := len(trimmed) - len(strings.TrimLeft(trimmed, trimmed[:1]))
	if n < 3 {
		return "", ""
	}
	return trimmed[:n], trimmed[n:]
}

// Heading returns the text of a heading of the given depth (1 for "# ",
// 2 for "## "), trimmed, if the line is one. A fenced line is never a
// heading.
func Heading(l Line, depth int) (string, bool) {
	if l.Fenced {
		return "", false
	}
	text, ok := strings.CutPrefix(l.Text, strings.Repeat("#", depth)+" ")
	return strings.TrimSpace(text), ok
}

// Split cuts Markdown at its headings of the given depth. The first
// section holds the lines before the first heading, with an empty Heading
// and Line 0; every other section starts at a heading. Headings of other
// depths stay in the lines of the section they are in.
func Split(src string, depth int) []Section {
	return SplitLines(Lines(src), depth)
}

// SplitLines is Split for lines already read, such as a section's, to cut
// it again at a deeper heading.
func SplitLines(lines []Line, depth int) []Section {
	out := []Section{{}}
	for _, l := range lines {
		if h, ok := Heading(l, depth); ok {
			out = append(out, Section{Heading: h, Line: l.Number})
			continue
		}
		cur := &out[len(out)-1]
		cur.Lines = append(cur.Lines, l)
	}
	return out
}
