package instructor

import (
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
)

// Result is one checkout in the class report.
type Result struct {
	Name   string
	Levels []grade.LevelReport
	Err    string
	// InProcess lists, by level, the parts counted done that hold a case
	// the student's own process judged.
	InProcess map[int][]int
	// RandomFailed says a case of the checker's random timelines failed.
	RandomFailed bool
	Commit       string // the student's last commit, if a git checkout
	Graded       time.Time
	Took         time.Duration
}

// InProcessMark is what the report adds to a level's cell when a part
// counted done holds a case that the student's own process judged.
const InProcessMark = "*"

// InProcessFootnote explains the mark, under the table.
const InProcessFootnote = "\\* judged in part inside the student's own process (allocations, memory, races), which the student's code could fake; every other case was decided outside it."

// PartsDone is how many parts the student has done, of how many.
func (r Result) PartsDone() (done, of int) {
	for _, l := range r.Levels {
		done += l.PartsDone
	}
	for _, l := range levels.All {
		of += len(l.Parts)
	}
	return done, of
}

// levelOf is r's report of level n, or nil.
func levelOf(r Result, n int) *grade.LevelReport {
	for i := range r.Levels {
		if r.Levels[i].Number == n {
			return &r.Levels[i]
		}
	}
	return nil
}

func lastDone(levels []grade.LevelReport) string {
	last := "-"
	for _, l := range levels {
		if l.Status == grade.Done {
			last = fmt.Sprint(l.Number)
		}
	}
	return last
}

func levelCell(l grade.LevelReport) string {
	cases := 0
	for _, p := range l.Parts {
		cases += p.Cases
	}
	if cases == 0 && l.BuildError == "" && len(l.Problems) == 0 {
		return "" // a level this checkout does not have
	}
	switch {
	case l.Status == grade.NoBuild && strings.HasPrefix(l.BuildError, refusedPrefix):
		return "refused"
	case l.Status == grade.NoBuild:
		return "build fails"
	}
	return fmt.Sprintf("%d/%d", l.PartsDone, len(l.Parts))
}

func classRow(r Result) []string {
	row := []string{r.Name}
	for _, lv := range levels.All {
		cell := ""
		if l := levelOf(r, lv.Number); l != nil {
			cell = levelCell(*l)
		}
		if len(r.InProcess[lv.Number]) > 0 && cell != "" {
			cell += InProcessMark
		}
		row = append(row, cell)
	}
	done, of := r.PartsDone()
	return append(row, fmt.Sprintf("%d/%d", done, of), lastDone(r.Levels), r.Err)
}

// WriteMarkdown writes the class as a padded Markdown table, then the class
// summary, why each begun level is not done, and the known mistakes.
func WriteMarkdown(w io.Writer, results []Result) {
	header := []string{"student"}
	for _, l := range levels.All {
		header = append(header, fmt.Sprintf("L%d", l.Number))
	}
	rows := [][]string{append(header, "parts", "last level done", "note")}
	for _, r := range results {
		row := classRow(r)
		for i, c := range row {
			row[i] = MarkdownText(c)
		}
		rows = append(rows, row)
	}
	writeTable(w, rows)
	for _, r := range results {
		if len(r.InProcess) > 0 {
			fmt.Fprintf(w, "\n%s\n", InProcessFootnote)
			break
		}
	}
	writeSummary(w, results)
	writeWhy(w, results)
	WriteMistakes(w, results)
}

// writeTable writes rows as a Markdown table whose columns, but the free
// last one, line up; the first row is the header.
func writeTable(w io.Writer, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row[:len(row)-1] {
			widths[i] = max(widths[i], 3, utf8.RuneCountInString(c))
		}
	}
	line := func(row []string) {
		var b strings.Builder
		for i, c := range row {
			b.WriteString("| " + c + strings.Repeat(" ", max(0, widths[i]-utf8.RuneCountInString(c))) + " ")
		}
		fmt.Fprintln(w, b.String()+"|")
	}
	line(rows[0])
	rule := make([]string, len(widths))
	for i, n := range widths {
		rule[i] = strings.Repeat("-", max(n, 3))
	}
	line(rule)
	for _, row := range rows[1:] {
		line(row)
	}
}

// partSummary is one part across the class: who has done it, and the case
// most of the others fail there.
type partSummary struct {
	Level, Part int
	Title       string
	Done, Of    int
	Failing     string // the case most students fail, if any fails
	FailedBy    int
}

// failing writes the case most students fail, and how many do.
func (s partSummary) failing() string {
	if s.FailedBy == 0 {
		return ""
	}
	return fmt.Sprintf("%q (%s)", s.Failing, grade.Plural(s.FailedBy, "student"))
}

// summarize gathers each part that some student has begun.
func summarize(results []Result) []partSummary {
	var out []partSummary
	for _, l := range levels.All {
		for _, p := range l.Parts {
			s := partSummary{Level: l.Number, Part: p.Number, Title: p.Title, Of: len(results)}
			failing := map[string]int{}
			for _, r := range results {
				rl := levelOf(r, l.Number)
				if rl == nil {
					continue
				}
				for _, rp := range rl.Parts {
					if rp.Number != p.Number {
						continue
					}
					if rp.Done {
						s.Done++
					} else if rp.Failing != "" {
						failing[rp.Failing]++
					}
				}
			}
			for name, n := range failing {
				if n > s.FailedBy || n == s.FailedBy && name < s.Failing {
					s.Failing, s.FailedBy = name, n
				}
			}
			if s.Done > 0 || s.FailedBy > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// writeSummary writes, under the table, each part some student has begun.
func writeSummary(w io.Writer, results []Result) {
	parts := summarize(results)
	if len(parts) == 0 {
		return
	}
	rows := [][]string{{"part", "done", "the case most students fail there"}}
	for _, s := range parts {
		rows = append(rows, []string{fmt.Sprintf("L%d.%d %s", s.Level, s.Part, s.Title), fmt.Sprintf("%d of %d", s.Done, s.Of), MarkdownText(s.failing())})
	}
	fmt.Fprintf(w, "\nThe class, part by part:\n\n")
	writeTable(w, rows)
}

// whyLines says, for each level begun and not done, why its first part not
// done is not; the later parts wait for it.
func whyLines(r Result) []string {
	if r.Err != "" && len(r.Levels) == 0 {
		return []string{r.Err} // graded nothing: stopped, or refused
	}
	var out []string
	for _, l := range r.Levels {
		if l.Status == grade.Done || l.Status == grade.NotStarted {
			continue
		}
		for _, p := range l.Parts {
			if !p.Done {
				why := p.Why
				if why == "" && len(l.Problems) > 0 {
					why = l.Problems[0]
				}
				out = append(out, fmt.Sprintf("L%d.%d %s", l.Number, p.Number, why))
				break
			}
		}
	}
	return out
}

// writeWhy writes the why-lines of each student.
func writeWhy(w io.Writer, results []Result) {
	first := true
	for _, r := range results {
		lines := whyLines(r)
		if len(lines) == 0 {
			continue
		}
		if first {
			fmt.Fprintf(w, "\nWhy, for each level begun and not done (its first part not done; the later parts wait for it):\n\n")
			first = false
		}
		fmt.Fprintf(w, "- %s\n", MarkdownText(r.Name))
		for _, l := range lines {
			fmt.Fprintf(w, "  - %s\n", MarkdownText(l))
		}
	}
}

// MarkdownText escapes text for a Markdown table cell or list item: the
// characters that would end a cell, format or link get a backslash, and
// control characters are written as TerminalText writes them.
func MarkdownText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\|*_`+"`"+`[]<>#`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(TerminalText(b.String()))
}

// TerminalText is s with every control character written as its Go
// escape, so that a student's text cannot drive the instructor's terminal.
func TerminalText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) || r == utf8.RuneError {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteCSV writes the class as CSV, one row a student, that a spreadsheet
// can sum.
func WriteCSV(w io.Writer, results []Result) {
	cw := csv.NewWriter(w)
	header := []string{"student"}
	for _, l := range levels.All {
		header = append(header, fmt.Sprintf("level_%d", l.Number))
	}
	header = append(header, "total", "max")
	for _, l := range levels.All {
		header = append(header, fmt.Sprintf("level_%d_in_process", l.Number))
	}
	cw.Write(append(header, "commit", "graded_at", "note", "known_mistakes", "why"))
	for _, r := range results {
		row := []string{spreadsheetText(r.Name)}
		for _, lv := range levels.All {
			n := 0
			if l := levelOf(r, lv.Number); l != nil {
				n = l.PartsDone
			}
			row = append(row, strconv.Itoa(n))
		}
		done, of := r.PartsDone()
		row = append(row, strconv.Itoa(done), strconv.Itoa(of))
		for _, lv := range levels.All {
			row = append(row, strconv.Itoa(len(r.InProcess[lv.Number])))
		}
		graded := ""
		if !r.Graded.IsZero() {
			graded = r.Graded.UTC().Format(time.RFC3339)
		}
		why := ""
		if lines := whyLines(r); len(lines) > 0 {
			why = lines[0]
		}
		row = append(row, r.Commit, graded, spreadsheetText(r.Err), spreadsheetText(mistakesCell(r.Levels)), spreadsheetText(why))
		cw.Write(row)
	}
	cw.Flush()
}

// spreadsheetText keeps a spreadsheet from reading a student's text as a
// formula, with a leading apostrophe.
func spreadsheetText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// cellStates are the HTML heat map's cell classes, colours and legend.
var cellStates = []struct{ class, colour, words string }{
	{"done", "#2e7d32", "done"},
	{"inproc", "#9ccc65", "done, judged in part in the student's process"},
	{"fail", "#e53935", "failing"},
	{"nobuild", "#6a1b9a", "does not compile, or a limit was hit"},
	{"todo", "#e0e0e0", "not started, or waits for an earlier part"},
}

// cellState is the class of one part's cell, and its why-line.
func cellState(r Result, l grade.LevelReport, p grade.PartReport) (string, string) {
	switch {
	case p.Done && slices.Contains(r.InProcess[l.Number], p.Number):
		return "inproc", "done; judged in part in the student's process"
	case p.Done:
		return "done", "done"
	case l.Status == grade.NoBuild:
		return "nobuild", p.Why
	case p.Failing != "" || strings.HasPrefix(p.Why, "the race detector"):
		return "fail", p.Why
	}
	return "todo", p.Why
}

// WriteHTML writes the class as one self-contained page: a heat map of
// students by parts, then the class summary, why-lines and mistakes.
func WriteHTML(w io.Writer, results []Result) {
	e := html.EscapeString
	fmt.Fprint(w, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>rateladder: class report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;margin:12px 0}
th,td{border:1px solid #fff;padding:3px 6px;text-align:center}
th.name,td.name{text-align:left;white-space:nowrap}
td.part{width:22px;height:22px;padding:0}
td.first{border-left:4px solid #fff}
.legend span{display:inline-block;width:14px;height:14px;margin:0 4px 0 12px;vertical-align:middle}
`)
	for _, s := range cellStates {
		fmt.Fprintf(w, ".%s{background:%s}\n", s.class, s.colour)
	}
	fmt.Fprint(w, "</style></head><body>\n<h1>Class report</h1>\n<p class=\"legend\">")
	for _, s := range cellStates {
		fmt.Fprintf(w, "<span class=\"%s\"></span>%s", s.class, e(s.words))
	}
	fmt.Fprint(w, "</p>\n<table>\n<tr><th class=\"name\">student</th>")
	for _, l := range levels.All {
		fmt.Fprintf(w, "<th colspan=\"%d\" title=\"%s\">L%d</th>", len(l.Parts), e(l.Title), l.Number)
	}
	fmt.Fprint(w, "<th>parts</th><th class=\"name\">note</th></tr>\n")
	for _, r := range results {
		fmt.Fprintf(w, "<tr><td class=\"name\">%s</td>", e(TerminalText(r.Name)))
		for _, lv := range levels.All {
			got := levelOf(r, lv.Number)
			for i, part := range lv.Parts {
				class, why := "todo", "not graded"
				switch {
				case got != nil && i < len(got.Parts):
					class, why = cellState(r, *got, got.Parts[i])
				case r.Err != "" && len(r.Levels) == 0:
					class, why = "nobuild", TerminalText(r.Err)
				}
				if i == 0 {
					class += " first"
				}
				fmt.Fprintf(w, "<td class=\"part %s\" title=\"L%d.%d %s: %s\"></td>", class, lv.Number, part.Number, e(part.Title), e(why))
			}
		}
		done, of := r.PartsDone()
		fmt.Fprintf(w, "<td>%d/%d</td><td class=\"name\">%s</td></tr>\n", done, of, e(TerminalText(r.Err)))
	}
	fmt.Fprint(w, "</table>\n")
	if parts := summarize(results); len(parts) > 0 {
		fmt.Fprint(w, "<h2>The class, part by part</h2>\n<table>\n<tr><th class=\"name\">part</th><th>done</th><th class=\"name\">the case most students fail there</th></tr>\n")
		for _, s := range parts {
			fmt.Fprintf(w, "<tr><td class=\"name\">L%d.%d %s</td><td>%d of %d</td><td class=\"name\">%s</td></tr>\n", s.Level, s.Part, e(s.Title), s.Done, s.Of, e(s.failing()))
		}
		fmt.Fprint(w, "</table>\n")
	}
	fmt.Fprint(w, "<h2>Why, for each level begun and not done</h2>\n<ul>\n")
	for _, r := range results {
		lines := whyLines(r)
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "<li>%s<ul>", e(TerminalText(r.Name)))
		for _, l := range lines {
			fmt.Fprintf(w, "<li>%s</li>", e(TerminalText(l)))
		}
		fmt.Fprint(w, "</ul></li>\n")
	}
	fmt.Fprint(w, "</ul>\n")
	if list := classMistakes(results); len(list) > 0 {
		fmt.Fprint(w, "<h2>Known mistakes</h2>\n<ul>\n")
		for _, c := range list {
			names := make([]string, len(c.Students))
			for i, s := range c.Students {
				names[i] = TerminalText(s)
			}
			fmt.Fprintf(w, "<li>level %d part %d &ldquo;%s&rdquo;: %s (%s)</li>\n", c.Level, c.Part, e(c.label()), grade.Plural(len(c.Students), "student"), e(strings.Join(names, ", ")))
		}
		fmt.Fprint(w, "</ul>\n")
	}
	fmt.Fprint(w, "</body></html>\n")
}
