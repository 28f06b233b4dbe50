// Package markdown cuts the ladder's Markdown files into sections at their
// headings, skipping lines inside CommonMark code fences.
package markdown

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	partRE = regexp.MustCompile(`^Part\s+(\d+):\s*(.*?)\s*$`)
	// fenceRE is a CommonMark code fence line: its marks, then the rest.
	fenceRE = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")
)

// PartHeading reads a part's heading text, such as "Part 2: Distinct drinks".
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
// the same depth; the lines before the first heading have Heading "" and Line 0.
type Section struct {
	Heading string
	Line    int
	Lines   []Line
}

// Body is the text under the heading, trimmed.
func (s Section) Body() string {
	texts := make([]string, len(s.Lines))
	for i, l := range s.Lines {
		texts[i] = l.Text
	}
	return strings.TrimSpace(strings.Join(texts, "\n"))
}

// Lines splits Markdown into lines, marking those of code fences.
func Lines(src string) []Line {
	texts := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	out := make([]Line, len(texts))
	var fence string // the open fence's marks, "" outside a fence
	for i, t := range texts {
		out[i] = Line{Text: t, Number: i + 1, Fenced: fence != ""}
		switch m := fenceRE.FindStringSubmatch(t); {
		case m == nil:
		case fence == "":
			fence, out[i].Fenced = m[1], true
		case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(m[2]) == "":
			fence = "" // a closing fence is as long as the opening one, with nothing after it
		}
	}
	return out
}

// Heading returns the trimmed text of a heading of the given depth (2 for
// "## ") if the line is one outside a fence.
func Heading(l Line, depth int) (string, bool) {
	text, ok := strings.CutPrefix(l.Text, strings.Repeat("#", depth)+" ")
	return strings.TrimSpace(text), ok && !l.Fenced
}

// Split cuts lines, a file's or a section's, at their headings of the
// given depth; the first section holds the lines before the first heading.
func Split(lines []Line, depth int) []Section {
	out := []Section{{}}
	for _, l := range lines {
		if h, ok := Heading(l, depth); ok {
			out = append(out, Section{Heading: h, Line: l.Number})
			continue
		}
		out[len(out)-1].Lines = append(out[len(out)-1].Lines, l)
	}
	return out
}
