package instructor

import (
	"cmp"
	_ "embed"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/template"
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

const (
	// InProcessMark is what the report adds to a level's cell when a part
	// counted done holds a case that the student's own process judged.
	InProcessMark = "*"
	// InProcessFootnote explains the mark, under the table.
	InProcessFootnote = "\\* judged in part inside the student's own process (allocations, memory, races), which the student's code could fake; every other case was decided outside it."
)

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

// level is r's report of level n, or nil.
func (r Result) level(n int) *grade.LevelReport {
	if i := slices.IndexFunc(r.Levels, func(l grade.LevelReport) bool { return l.Number == n }); i >= 0 {
		return &r.Levels[i]
	}
	return nil
}

// classRow is a student's row of the Markdown table: a cell a level, the
// parts done, the last level done and the note.
func classRow(r Result) []string {
	row := []string{r.Name}
	last := "-"
	for _, lv := range levels.All {
		cell := ""
		if l := r.level(lv.Number); l != nil {
			switch {
			case !slices.ContainsFunc(l.Parts, func(p grade.PartReport) bool { return p.Cases > 0 }) && l.BuildError == "" && len(l.Problems) == 0:
				// a level this checkout does not have
			case l.Status == grade.NoBuild && strings.HasPrefix(l.BuildError, refusedPrefix):
				cell = "refused"
			case l.Status == grade.NoBuild:
				cell = "build fails"
			default:
				cell = fmt.Sprintf("%d/%d", l.PartsDone, len(l.Parts))
			}
			if l.Status == grade.Done {
				last = strconv.Itoa(l.Number)
			}
		}
		if len(r.InProcess[lv.Number]) > 0 && cell != "" {
			cell += InProcessMark
		}
		row = append(row, cell)
	}
	done, of := r.PartsDone()
	return append(row, fmt.Sprintf("%d/%d", done, of), last, r.Err)
}

// section is what the report writes under the class table, alike in
// Markdown and HTML: a table (its header first) or a list.
type section struct {
	Title, Note string
	Table       [][]string
	Items       []item
}

type item struct {
	Text string
	Sub  []string // the items under it
}

// sections are the class part by part, why each begun level is not done,
// and the known mistakes, each left out when empty.
func sections(results []Result) []section {
	parts := section{Title: "The class, part by part", Table: [][]string{{"part", "done", "the case most students fail there"}}}
	for _, l := range levels.All {
		for _, p := range l.Parts {
			done, failing := 0, map[string]int{}
			for _, r := range results {
				if rl := r.level(l.Number); rl != nil {
					for _, rp := range rl.Parts {
						switch {
						case rp.Number != p.Number:
						case rp.Done:
							done++
						case rp.Failing != "":
							failing[rp.Failing]++
						}
					}
				}
			}
			most, by := "", 0
			for name, n := range failing {
				if n > by || n == by && name < most {
					most, by = name, n
				}
			}
			if done > 0 || by > 0 {
				cell := ""
				if by > 0 {
					cell = fmt.Sprintf("%q (%s)", most, grade.Plural(by, "student"))
				}
				parts.Table = append(parts.Table, []string{fmt.Sprintf("L%d.%d %s", l.Number, p.Number, p.Title), fmt.Sprintf("%d of %d", done, len(results)), cell})
			}
		}
	}
	why := section{Title: "Why, for each level begun and not done", Note: " (its first part not done; the later parts wait for it)"}
	for _, r := range results {
		if lines := whyLines(r); len(lines) > 0 {
			why.Items = append(why.Items, item{r.Name, lines})
		}
	}
	mistakes := section{Title: "Known mistakes", Note: " (a failing part whose cases fail the way a known mistake does), the most made first"}
	for _, c := range classMistakes(results) {
		mistakes.Items = append(mistakes.Items, item{Text: fmt.Sprintf("level %d part %d \"%s\": %s (%s)", c.Level, c.Part, c.label(),
			grade.Plural(len(c.Students), "student"), strings.Join(c.Students, ", "))})
	}
	return slices.DeleteFunc([]section{parts, why, mistakes}, func(s section) bool { return len(s.Table) < 2 && len(s.Items) == 0 })
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

// WriteMarkdown writes the class as a padded Markdown table, then the
// sections under it.
func WriteMarkdown(w io.Writer, results []Result) {
	header := []string{"student"}
	for _, l := range levels.All {
		header = append(header, fmt.Sprintf("L%d", l.Number))
	}
	rows := [][]string{append(header, "parts", "last level done", "note")}
	footnote := false
	for _, r := range results {
		rows = append(rows, classRow(r))
		footnote = footnote || len(r.InProcess) > 0
	}
	writeTable(w, rows)
	if footnote {
		fmt.Fprintf(w, "\n%s\n", InProcessFootnote)
	}
	for _, s := range sections(results) {
		fmt.Fprintf(w, "\n%s%s:\n\n", s.Title, s.Note)
		if s.Table != nil {
			writeTable(w, s.Table)
		}
		for _, it := range s.Items {
			fmt.Fprintf(w, "- %s\n", MarkdownText(it.Text))
			for _, sub := range it.Sub {
				fmt.Fprintf(w, "  - %s\n", MarkdownText(sub))
			}
		}
	}
}

// writeTable writes rows, escaped, as a Markdown table whose columns, but
// the free last one, line up; the first row is the header.
func writeTable(w io.Writer, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for i, row := range rows {
		rows[i] = make([]string, len(row))
		for j, c := range row {
			rows[i][j] = MarkdownText(c)
			if j < len(row)-1 {
				widths[j] = max(widths[j], 3, utf8.RuneCountInString(rows[i][j]))
			}
		}
	}
	rule := make([]string, len(widths))
	for i, n := range widths {
		rule[i] = strings.Repeat("-", max(n, 3))
	}
	rows = slices.Insert(rows, 1, rule)
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			b.WriteString("| " + c + strings.Repeat(" ", max(0, widths[i]-utf8.RuneCountInString(c))) + " ")
		}
		fmt.Fprintln(w, b.String()+"|")
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
// can sum; a cell that starts as a formula would gets a leading apostrophe.
func WriteCSV(w io.Writer, results []Result) {
	cw := csv.NewWriter(w)
	header, inProc := []string{"student"}, []string{}
	for _, l := range levels.All {
		header = append(header, fmt.Sprintf("level_%d", l.Number))
		inProc = append(inProc, fmt.Sprintf("level_%d_in_process", l.Number))
	}
	header = append(append(header, "total", "max"), inProc...)
	cw.Write(append(header, "commit", "graded_at", "note", "known_mistakes", "why"))
	text := func(s string) string {
		if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
			return "'" + s
		}
		return s
	}
	for _, r := range results {
		row, inProc := []string{text(r.Name)}, []string{}
		for _, lv := range levels.All {
			n := 0
			if l := r.level(lv.Number); l != nil {
				n = l.PartsDone
			}
			row = append(row, strconv.Itoa(n))
			inProc = append(inProc, strconv.Itoa(len(r.InProcess[lv.Number])))
		}
		done, of := r.PartsDone()
		row = append(append(row, strconv.Itoa(done), strconv.Itoa(of)), inProc...)
		graded, why, mistakes := "", "", []string{}
		if !r.Graded.IsZero() {
			graded = r.Graded.UTC().Format(time.RFC3339)
		}
		if lines := whyLines(r); len(lines) > 0 {
			why = lines[0]
		}
		for _, m := range StudentMistakes(r.Levels) {
			mistakes = append(mistakes, fmt.Sprintf("L%d.%d %s", m.Level, m.Part, m.label()))
		}
		cw.Write(append(row, r.Commit, graded, text(r.Err), text(strings.Join(mistakes, "; ")), text(why)))
	}
	cw.Flush()
}

// cellStates are the HTML heat map's cell classes, colours and legend.
var cellStates = []struct{ Class, Colour, Words string }{
	{"done", "#2e7d32", "done"},
	{"inproc", "#9ccc65", "done, judged in part in the student's process"},
	{"fail", "#e53935", "failing"},
	{"nobuild", "#6a1b9a", "does not compile, or a limit was hit"},
	{"todo", "#e0e0e0", "not started, or waits for an earlier part"},
}

//go:embed templates/report.html
var reportHTML string

// WriteHTML writes the class as one self-contained page: a heat map of
// students by parts, then the sections under it.
func WriteHTML(w io.Writer, results []Result) {
	type cell struct{ Class, Title string }
	type row struct {
		Name, Parts, Note string
		Cells             []cell
	}
	var rows []row
	for _, r := range results {
		done, of := r.PartsDone()
		hr := row{Name: r.Name, Parts: fmt.Sprintf("%d/%d", done, of), Note: r.Err}
		for _, lv := range levels.All {
			got := r.level(lv.Number)
			for i, part := range lv.Parts {
				class, why := "todo", "not graded"
				if got != nil && i < len(got.Parts) {
					switch p := got.Parts[i]; {
					case p.Done && slices.Contains(r.InProcess[lv.Number], p.Number):
						class, why = "inproc", "done; judged in part in the student's process"
					case p.Done:
						class, why = "done", "done"
					case got.Status == grade.NoBuild:
						class, why = "nobuild", p.Why
					case p.Failing != "" || strings.HasPrefix(p.Why, "the race detector"):
						class, why = "fail", p.Why
					default:
						why = p.Why
					}
				} else if r.Err != "" && len(r.Levels) == 0 {
					class, why = "nobuild", r.Err
				}
				if i == 0 {
					class += " first"
				}
				hr.Cells = append(hr.Cells, cell{class, fmt.Sprintf("L%d.%d %s: %s", lv.Number, part.Number, part.Title, why)})
			}
		}
		rows = append(rows, hr)
	}
	e := func(s string) string { return html.EscapeString(TerminalText(s)) }
	t := template.Must(template.New("").Funcs(template.FuncMap{"e": e}).Parse(reportHTML))
	t.Execute(w, map[string]any{"States": cellStates, "Levels": levels.All, "Rows": rows, "Sections": sections(results)})
}

// PartMistake is the known mistake named for one failing part.
type PartMistake struct {
	Level, Part int
	Names       []string // one, or several that fail the very same cases
}

// label is the mistake as the report writes it: "a or b".
func (m PartMistake) label() string { return strings.Join(m.Names, " or ") }

// StudentMistakes returns the known mistake named for each failing part of
// a student's graded levels, in level and part order: each name up to its
// first ": ".
func StudentMistakes(ls []grade.LevelReport) []PartMistake {
	var out []PartMistake
	for _, l := range ls {
		for _, p := range l.Parts {
			if p.Done || len(p.KnownMistake) == 0 {
				continue
			}
			m := PartMistake{Level: l.Number, Part: p.Number}
			for _, name := range p.KnownMistake {
				if short, _, ok := strings.Cut(name, ": "); ok && short != "" {
					name = short
				}
				m.Names = append(m.Names, name)
			}
			out = append(out, m)
		}
	}
	return out
}

// classMistake is one known mistake and the students who made it.
type classMistake struct {
	PartMistake
	Students []string
}

// classMistakes gathers the known mistakes of the whole class, the most
// made first, then by level and part.
func classMistakes(results []Result) []*classMistake {
	var out []*classMistake
	for _, r := range results {
		for _, m := range StudentMistakes(r.Levels) {
			i := slices.IndexFunc(out, func(c *classMistake) bool {
				return c.Level == m.Level && c.Part == m.Part && c.label() == m.label()
			})
			if i < 0 {
				i, out = len(out), append(out, &classMistake{PartMistake: m})
			}
			out[i].Students = append(out[i].Students, r.Name)
		}
	}
	slices.SortStableFunc(out, func(a, b *classMistake) int {
		return cmp.Or(cmp.Compare(len(b.Students), len(a.Students)), cmp.Compare(a.Level, b.Level), cmp.Compare(a.Part, b.Part))
	})
	return out
}
