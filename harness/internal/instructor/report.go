package instructor

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/guide"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Result is one checkout in the class report.
type Result struct {
	Name         string
	Levels       []grade.LevelReport
	Err          string
	InProcess    map[int][]int // by level, the parts done with a case the student's own process judged
	RandomFailed bool          // a case of the checker's random timelines failed
	Commit       string        // the student's last commit, if a git checkout
	Graded       time.Time
	Took         time.Duration
}

// InProcessMark marks a level's cell with parts done in process.
const InProcessMark = "*"

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

// level is r's report of level n, empty if it has none.
func (r Result) level(n int) grade.LevelReport {
	if i := slices.IndexFunc(r.Levels, func(l grade.LevelReport) bool { return l.Number == n }); i >= 0 {
		return r.Levels[i]
	}
	return grade.LevelReport{}
}

// tables is the class in every format, from one pass: the Markdown and
// CSV tables, header first, and the HTML heat map's rows.
func tables(results []Result) (md, sheet [][]string, heat []heatRow) {
	md, sheet = [][]string{{"student"}}, [][]string{{"student"}}
	var inProcHeader []string
	for _, l := range levels.All {
		md[0] = append(md[0], fmt.Sprintf("L%d", l.Number))
		sheet[0] = append(sheet[0], fmt.Sprintf("level_%d", l.Number))
		inProcHeader = append(inProcHeader, fmt.Sprintf("level_%d_in_process", l.Number))
	}
	md[0] = append(md[0], "parts", "last level done", "note")
	sheet[0] = slices.Concat(sheet[0], []string{"total", "max"}, inProcHeader, []string{"commit", "graded_at", "note", "known_mistakes", "why"})
	// A cell that starts as a formula would gets a leading apostrophe.
	text := func(s string) string { return cond(strings.ContainsAny(s[:min(len(s), 1)], "=+-@\t\r"), "'") + s }
	for _, r := range results {
		done, of := r.PartsDone()
		mdRow, sheetRow, inProcs, last := []string{r.Name}, []string{text(r.Name)}, []string{}, "-"
		hr := heatRow{Name: r.Name, Parts: fmt.Sprintf("%d/%d", done, of), Note: r.Err}
		for _, lv := range levels.All {
			got, inProc := r.level(lv.Number), r.InProcess[lv.Number]
			cell := fmt.Sprintf("%d/%d", got.PartsDone, len(got.Parts))
			switch {
			case !slices.ContainsFunc(got.Parts, func(p grade.PartReport) bool { return p.Cases > 0 }) && got.BuildError == "" && len(got.Problems) == 0:
				cell = "" // a level this checkout does not have
			case got.Status == grade.NoBuild && strings.HasPrefix(got.BuildError, refusedPrefix):
				cell = "refused"
			case got.Status == grade.NoBuild:
				cell = "build fails"
			}
			if got.Status == grade.Done {
				last = strconv.Itoa(lv.Number)
			}
			cell += cond(len(inProc) > 0 && cell != "", InProcessMark)
			mdRow, sheetRow = append(mdRow, cell), append(sheetRow, strconv.Itoa(got.PartsDone))
			inProcs = append(inProcs, strconv.Itoa(len(inProc)))
			for i, part := range lv.Parts {
				class, why := "todo", "not graded"
				if i < len(got.Parts) {
					switch p := got.Parts[i]; {
					case p.Done && slices.Contains(inProc, p.Number):
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
				hr.Cells = append(hr.Cells, heatCell{class + cond(i == 0, " first"), fmt.Sprintf("L%d.%d %s: %s", lv.Number, part.Number, part.Title, why)})
			}
		}
		var mistakes []string
		for _, m := range StudentMistakes(r.Levels) {
			mistakes = append(mistakes, fmt.Sprintf("L%d.%d %s", m.Level, m.Part, m.label()))
		}
		md = append(md, append(mdRow, hr.Parts, last, r.Err))
		sheet = append(sheet, slices.Concat(sheetRow, []string{strconv.Itoa(done), strconv.Itoa(of)}, inProcs,
			[]string{r.Commit, r.Graded.UTC().Format(time.RFC3339), text(r.Err), text(strings.Join(mistakes, "; ")), text(append(whyLines(r), "")[0])}))
		heat = append(heat, hr)
	}
	return md, sheet, heat
}

// A heatRow is a student's row of the HTML heat map.
type heatRow struct {
	Name, Parts, Note string
	Cells             []heatCell
}

type heatCell struct{ Class, Title string }

// WriteMarkdown writes the class as a padded Markdown table and sections.
func WriteMarkdown(w io.Writer, results []Result) {
	md, _, _ := tables(results)
	writeTable(w, md)
	if slices.ContainsFunc(results, func(r Result) bool { return len(r.InProcess) > 0 }) {
		fmt.Fprint(w, "\n\\* judged in part inside the student's own process (allocations, memory, races), which the student's code could fake; every other case was decided outside it.\n")
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

// writeTable writes rows, escaped, header first, as a Markdown table whose
// columns but the last line up.
func writeTable(w io.Writer, rows [][]string) {
	rows = slices.Insert(rows, 1, slices.Repeat([]string{"---"}, len(rows[0]))) // the rule, padded with "-"
	widths := make([]int, len(rows[0]))
	for i, row := range rows {
		rows[i] = make([]string, len(row))
		for j, c := range row {
			rows[i][j] = MarkdownText(c)
			if j < len(row)-1 {
				widths[j] = max(widths[j], utf8.RuneCountInString(rows[i][j]))
			}
		}
	}
	for i, row := range rows {
		line, pad := "", cmp.Or(cond(i == 1, "-"), " ")
		for j, c := range row {
			line += "| " + c + strings.Repeat(pad, max(0, widths[j]-utf8.RuneCountInString(c))) + " "
		}
		fmt.Fprintln(w, line+"|")
	}
}

// WriteCSV writes the class as CSV that a spreadsheet can sum.
func WriteCSV(w io.Writer, results []Result) {
	_, sheet, _ := tables(results)
	csv.NewWriter(w).WriteAll(sheet)
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

// WriteHTML writes the class as one self-contained page: a heat map.
func WriteHTML(w io.Writer, results []Result) {
	_, _, heat := tables(results)
	t := template.Must(template.New("").Funcs(template.FuncMap{"e": func(s string) string { return html.EscapeString(TerminalText(s)) }}).Parse(reportHTML))
	t.Execute(w, map[string]any{"States": cellStates, "Levels": levels.All, "Rows": heat, "Sections": sections(results)})
}

// MarkdownText escapes text for a Markdown table cell or list item: a
// backslash before what would end a cell, format or link; TerminalText's.
func MarkdownText(s string) string {
	return strings.TrimSpace(TerminalText(markdownEscapes.Replace(s)))
}

var markdownEscapes = strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`",
	"[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "#", `\#`)

// TerminalText is s with control characters written as Go escapes: a
// student's text cannot drive the instructor's terminal.
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

// section is a table, header first, or a list under the class table.
type section struct {
	Title, Note string
	Table       [][]string
	Items       []item
}

type item struct {
	Text string
	Sub  []string // the items under it
}

// sections are the class part by part, why each level is not done, and
// the known mistakes, but the empty ones.
func sections(results []Result) []section {
	parts := section{Title: "The class, part by part", Table: [][]string{{"part", "done", "the case most students fail there"}}}
	for _, l := range levels.All {
		for _, p := range l.Parts {
			done, failing, most := 0, map[string]int{}, ""
			for _, r := range results {
				if rl := r.level(l.Number); p.Number <= len(rl.Parts) {
					if rp := rl.Parts[p.Number-1]; rp.Done {
						done++
					} else if f := rp.Failing; f != "" {
						// most stays the most failed case, the first by name of a tie.
						if failing[f]++; failing[f] > failing[most] || failing[f] == failing[most] && f < most {
							most = f
						}
					}
				}
			}
			if done > 0 || most != "" {
				cell := cond(most != "", fmt.Sprintf("%q (%s)", most, grade.Plural(failing[most], "student")))
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
	students := map[string][]string{} // by "level 2 part 1 \"a or b\"": one digit each, so they sort by level and part
	for _, r := range results {
		for _, m := range StudentMistakes(r.Levels) {
			key := fmt.Sprintf("level %d part %d \"%s\"", m.Level, m.Part, m.label())
			students[key] = append(students[key], r.Name)
		}
	}
	made := slices.SortedFunc(maps.Keys(students), func(a, b string) int {
		return cmp.Or(cmp.Compare(len(students[b]), len(students[a])), strings.Compare(a, b))
	})
	for _, m := range made {
		mistakes.Items = append(mistakes.Items, item{Text: fmt.Sprintf("%s: %s (%s)", m,
			grade.Plural(len(students[m]), "student"), strings.Join(students[m], ", "))})
	}
	return slices.DeleteFunc([]section{parts, why, mistakes}, func(s section) bool { return len(s.Table) < 2 && len(s.Items) == 0 })
}

// whyLines says why the first part not done of each begun level is not.
func whyLines(r Result) []string {
	if r.Err != "" && len(r.Levels) == 0 {
		return []string{r.Err} // graded nothing: stopped, or refused
	}
	var out []string
	for _, l := range r.Levels {
		i := slices.IndexFunc(l.Parts, func(p grade.PartReport) bool { return !p.Done })
		if l.Status == grade.Done || l.Status == grade.NotStarted || i < 0 {
			continue
		}
		why := cmp.Or(l.Parts[i].Why, append(slices.Clip(l.Problems), "")[0])
		out = append(out, fmt.Sprintf("L%d.%d %s", l.Number, l.Parts[i].Number, why))
	}
	return out
}

// PartMistake is the known mistake named for one failing part.
type PartMistake struct {
	Level, Part int
	Names       []string // one, or several that fail the very same cases
}

// label is the mistake as the report writes it: "a or b".
func (m PartMistake) label() string { return strings.Join(m.Names, " or ") }

// StudentMistakes returns each failing part's known mistake, short.
func StudentMistakes(ls []grade.LevelReport) []PartMistake {
	var out []PartMistake
	for _, l := range ls {
		for _, p := range l.Parts {
			if p.Done || len(p.KnownMistake) == 0 {
				continue
			}
			m := PartMistake{Level: l.Number, Part: p.Number}
			for _, name := range p.KnownMistake {
				short, _, _ := strings.Cut(name, ": ")
				m.Names = append(m.Names, cmp.Or(short, name))
			}
			out = append(out, m)
		}
	}
	return out
}

//go:embed templates/debrief.txt
var debriefText string

// WriteDebrief shows a done level's classic mistakes and approaches.
func WriteDebrief(w io.Writer, root string, g grade.Level, st grade.Style) error {
	done := g.Status() == grade.Done
	data := map[string]any{"G": g, "Done": done, "Heading": guide.Approaches, "Next": nil}
	if i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return !p.Done }); i >= 0 {
		data["Next"] = g.Parts[i]
	}
	if done {
		gd, err := guide.Load(filepath.Join(root, g.Level.Dir, guide.FileName))
		if err != nil {
			return err
		}
		data["Guide"] = gd
		data["Approaches"], _ = gd.Section(guide.Approaches)
	}
	bold := func(s string) string { return st.Paint("1", s) }
	return template.Must(template.New("").Funcs(template.FuncMap{"bold": bold, "lower": grade.Lower}).Parse(debriefText)).Execute(w, data)
}

// The GitHub Classroom workflow: the class report from the instructor's
// pinned commit on the student's checkout, a point a part.
const (
	ClassroomFile = ".github/workflows/classroom.yml" // the workflow's file
	PartPoints    = 1                                 // what a part is worth: every part counts the same
	InstructorDir = "instructor"                      // the instructor's checkout's folder
	StudentDir    = "student"                         // the student's checkout's folder
	DonePartsFile = "parts-done.txt"                  // the results file: a line a part done
	// ClassroomGradeCommand writes the results file, in 20 minutes at most.
	ClassroomGradeCommand = "go run ./harness/cmd/ladder class-report --format parts --parallel 1 --timeout 20m ../" + StudentDir + " > ../" + DonePartsFile + " && cat ../" + DonePartsFile
)

// gradedStep is one part of one level, as a step of the workflow.
type gradedStep struct {
	ID   string // letters and digits only, as the reporter wants: "level3part2"
	Name string // "Level 3, part 2: Time going backwards"
}

// classroomPlan is the instructor's repository, commit, steps and Redis.
type classroomPlan struct {
	Repo, Ref string
	Steps     []gradedStep
	Redis     bool
}

// PartID names a part in the workflow and in the results file.
func PartID(level, part int) string { return fmt.Sprintf("level%dpart%d", level, part) }

// PlanClassroom makes a step of every part, graded by repo at commit ref.
func PlanClassroom(root, repo, ref string, lvs []levels.Level) (classroomPlan, error) {
	if !regexp.MustCompile(`^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$`).MatchString(repo) {
		return classroomPlan{}, fmt.Errorf("the instructor's repository is %q; name it as owner/name", repo)
	}
	if !regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`).MatchString(ref) {
		return classroomPlan{}, fmt.Errorf("the instructor's commit is %q; pin a commit's full hash, which no push can move", ref)
	}
	plan := classroomPlan{Repo: repo, Ref: ref}
	for _, l := range lvs {
		for _, p := range l.Parts {
			man, err := protocol.ReadManifest(filepath.Join(root, filepath.FromSlash(l.SpecDir(l.ModuleOf(p.Number))), protocol.ManifestFile))
			if err != nil {
				return classroomPlan{}, fmt.Errorf("level %d: %w", l.Number, err)
			}
			plan.Redis = plan.Redis || slices.ContainsFunc(man.Cases, func(c protocol.ManifestCase) bool { return c.Needs == "redis-server" })
			plan.Steps = append(plan.Steps, gradedStep{PartID(l.Number, p.Number), fmt.Sprintf("Level %d, part %d: %s", l.Number, p.Number, p.Title)})
		}
	}
	return plan, nil
}

// WriteDoneParts writes the parts each result has done, one PartID a line.
func WriteDoneParts(w io.Writer, results []Result) {
	for _, r := range results {
		for _, l := range r.Levels {
			for _, p := range l.Parts {
				if p.Done {
					fmt.Fprintln(w, PartID(l.Number, p.Number))
				}
			}
		}
	}
}

//go:embed templates/classroom.yml
var classroomYAML string

// WriteClassroom writes the workflow of plan.
func WriteClassroom(w io.Writer, plan classroomPlan) error {
	t := template.Must(template.New("").Funcs(template.FuncMap{"q": strconv.Quote, "upper": strings.ToUpper}).Parse(classroomYAML))
	return t.Execute(w, map[string]any{"Plan": plan, "Points": grade.Plural(len(plan.Steps)*PartPoints, "point"), "PartPoints": PartPoints,
		"StudentDir": StudentDir, "InstructorDir": InstructorDir, "DonePartsFile": DonePartsFile, "GradeCommand": ClassroomGradeCommand})
}

// inStudentCopy says whether a copy takes a file: no reference, answer,
// spec's test or oracle.go, or tools' output.
func inStudentCopy(path string) bool {
	if slices.ContainsFunc([]string{"solutions/", AnswersDir + "/", interview.StateDir + "/", "plots/"}, func(p string) bool { return strings.HasPrefix(path, p) }) {
		return false
	}
	_, role := levels.RoleOf(path)
	return role != levels.Spec || !strings.HasSuffix(path, "_test.go") && !strings.HasSuffix(path, "/oracle.go")
}

// referenceRuns lists the runs of 6 trimmed lines of 8 bytes or more.
func referenceRuns(data []byte) []string {
	var lines, runs []string
	for l := range strings.Lines(string(data)) {
		if l = strings.TrimSpace(l); len(l) >= 8 {
			lines = append(lines, l)
		}
	}
	for i := 0; i+6 <= len(lines); i++ {
		runs = append(runs, strings.Join(lines[i:i+6], "\n"))
	}
	return runs
}

// references maps the references' runs to their files, but the stubs'.
func references(tree []shipped.TreeEntry) map[string]string {
	runs := map[string]string{}
	for _, e := range tree {
		if strings.HasPrefix(e.Path, "solutions/") && !strings.HasSuffix(e.Path, "_test.go") && (strings.HasSuffix(e.Path, ".go") || strings.HasSuffix(e.Path, ".lua")) {
			for _, r := range referenceRuns(e.Data) {
				runs[r] = e.Path
			}
		}
	}
	for _, e := range tree {
		if _, role := levels.RoleOf(e.Path); role == levels.Code {
			for _, r := range referenceRuns(e.Data) {
				delete(runs, r)
			}
		}
	}
	return runs
}

// WarnUncommitted says what the copy leaves out as uncommitted.
func WarnUncommitted(root, head string, stderr io.Writer) {
	out, err := shipped.Git(root, "status", "--porcelain=v1", "--untracked-files=all")
	if err != nil || out == "" {
		return
	}
	fmt.Fprintf(stderr, "warning: the working tree has uncommitted changes. The copy is made from the last commit (%s) and does not contain them:\n  %s\n",
		head[:7], strings.ReplaceAll(strings.TrimSuffix(out, "\n"), "\n", "\n  "))
}

// StudentCopyFiles picks a copy's files, and the problems that forbid it.
func StudentCopyFiles(modPath string, tree []shipped.TreeEntry) (files []shipped.TreeEntry, problems []string) {
	levelFiles, refs := map[string][]byte{}, references(tree)
	for _, e := range tree {
		if !inStudentCopy(e.Path) {
			continue
		}
		ref := ""
		if _, role := levels.RoleOf(e.Path); role != levels.Code {
			for _, r := range referenceRuns(e.Data) {
				ref = cmp.Or(ref, refs[r])
			}
		}
		kind := BinaryKind(e.Data)
		if p := cmp.Or(
			cond(ref != "", fmt.Sprintf("%s carries lines of the reference %s: a student copy hands out no answer, whatever the file's name", e.Path, ref)),
			cond(e.Mode == "120000", fmt.Sprintf("%s is a symlink (to %s): a student copy takes none", e.Path, e.Data)),
			cond(e.Mode == "160000", e.Path+" is a submodule: a student copy takes none"),
			cond(kind != "", fmt.Sprintf("%s is %s: a student copy takes no binary", e.Path, kind)),
			cond(len(e.Data) > maxStudentFile, fmt.Sprintf("%s is %.1f MiB, over the %d MiB a student copy takes for one file", e.Path, float64(len(e.Data))/(1<<20), maxStudentFile>>20)),
		); p != "" {
			problems = append(problems, p)
			continue
		}
		if imp := solutionsImport(modPath, e.Path, e.Data); imp != "" {
			problems = append(problems, fmt.Sprintf("%s imports %s: nothing handed out may import solutions/", e.Path, imp))
		}
		if n, role := levels.RoleOf(e.Path); n != 0 && role != levels.Reference {
			levelFiles[e.Path] = e.Data
		} else if strings.HasPrefix(e.Path, "ladder/") && strings.HasSuffix(e.Path, ".go") {
			problems = append(problems, e.Path+" is Go code outside every level's folder")
		}
		files = append(files, e)
	}
	for _, p := range shipped.Classify(modPath, levelFiles).Other {
		problems = append(problems, p+" is not the stub as shipped ("+shipped.StubProblem(levelFiles[p])+")")
	}
	return files, problems
}

// cond is s if ok, else "".
func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// solutionsImport is the solutions/ package a Go file or go.mod names.
func solutionsImport(modPath, name string, data []byte) string {
	if !strings.HasSuffix(name, ".go") && path.Base(name) != "go.mod" {
		return ""
	}
	ip := regexp.MustCompile(regexp.QuoteMeta(modPath+"/solutions") + `(/[^"\s]*)?(["\s]|$)`).Find(data)
	return strings.TrimRight(string(ip), "\" \t\r\n")
}

// CheckStubsOf runs make test-stubs's check on files, and says what fails.
func CheckStubsOf(files []shipped.TreeEntry, stderr io.Writer) ([]string, error) {
	if !slices.ContainsFunc(files, func(e shipped.TreeEntry) bool { _, role := levels.RoleOf(e.Path); return role == levels.Code }) {
		return nil, nil
	}
	tmp, err := os.MkdirTemp("", "ladder-stubcheck-")
	if err != nil {
		return nil, err
	}
	defer sandbox.RemoveAll(tmp)
	if err := WriteEntries(tmp, files); err != nil {
		return nil, err
	}
	fmt.Fprintln(stderr, "Checking that every stub fails every case as not implemented...")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	return grade.CheckStubs(ctx, tmp)
}

// WriteEntries writes commit files under dir.
func WriteEntries(dir string, files []shipped.TreeEntry) error {
	for _, e := range files {
		perm := os.FileMode(0o644)
		if e.Mode == "100755" {
			perm = 0o755
		}
		if err := writeFile(dir, e.Path, e.Data, perm); err != nil {
			return err
		}
	}
	return nil
}

// WithoutGitRepoEnv drops the variables that would point git elsewhere.
func WithoutGitRepoEnv(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains([]string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"}, name)
	})
}

// The largest file a copy takes or a report reads; a level's most files.
const (
	maxStudentFile = 1 << 20
	maxLevelFiles  = 300
)

// BinaryKind says what binary data is, or "" for text and pictures: a NUL
// byte, or an ELF or archive header (which may have none).
func BinaryKind(data []byte) string {
	for _, b := range []struct{ start, kind string }{
		{"\x7fELF", "an ELF binary (Linux)"},
		{"!<arch>\n", "an archive (a Go package's .a file, or ar's)"},
		{"\x89PNG\r\n\x1a\n", ""}, {"\xff\xd8\xff", ""}, {"GIF87a", ""}, {"GIF89a", ""},
	} {
		if bytes.HasPrefix(data, []byte(b.start)) {
			return b.kind
		}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "a binary file (it holds a NUL byte, which no text file does)"
	}
	return ""
}

// AnswersDir holds the ladder command's tests' answers, left out of a copy.
const AnswersDir = "harness/cmd/ladder/testdata/answers"
