package interview

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"text/template"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
)

// InterviewsDir keeps every interview's summary, as JSON.
const InterviewsDir = "interviews"

// Summary is what an interview leaves behind.
type Summary struct {
	Level          int       `json:"level"`
	Title          string    `json:"title"`
	Started        time.Time `json:"started"`
	BudgetSeconds  int       `json:"budget_seconds"`
	ElapsedSeconds int       `json:"elapsed_seconds"`
	End            string    `json:"end"`
	FreshStub      bool      `json:"fresh_stub"`
	Hints          int       `json:"hints"`
	Parts          []Part    `json:"parts"`
	// InScope parts are on the clock, Offered are asked, stretch included; 0, in older summaries, means all.
	InScope       int `json:"in_scope,omitempty"`
	Offered       int `json:"offered,omitempty"`
	MistakesNamed int `json:"mistakes_named,omitempty"` // hints that named a known mistake
	// Questions is how many clarifying questions the parts reached had, on a terminal.
	Questions int     `json:"questions,omitempty"`
	Asked     []Asked `json:"asked,omitempty"`
}

// Asked is a clarifying question asked, in which part, after how many failed runs.
type Asked struct {
	Question string `json:"question"`
	Part     int    `json:"part"`
	Runs     int    `json:"runs"`
}

// Part is one part of an interview.
type Part struct {
	Number      int      `json:"part"`
	Title       string   `json:"title"`
	Reached     bool     `json:"reached"`
	Passed      bool     `json:"passed"`
	Seconds     int      `json:"seconds"` // from the part's question to its passing run, or to the end
	Runs        int      `json:"runs"`
	FirstRun    bool     `json:"passed_first_run"`
	Hints       int      `json:"hints"`
	Regressions int      `json:"regressions,omitempty"` // runs where the part, passed before, failed again
	RaceRuns    int      `json:"race_runs,omitempty"`
	Mistakes    []string `json:"known_mistakes,omitempty"`
}

// OfferedParts is how many parts the interview asks, in-scope and stretch.
func (s Summary) OfferedParts() int {
	if s.Offered <= 0 || s.Offered > len(s.Parts) {
		return len(s.Parts)
	}
	return s.Offered
}

// parts numbers the parts asked that passed, passed first run, or were not reached.
func (s Summary) parts(which string) (ns []string) {
	for _, p := range s.Parts[:s.OfferedParts()] {
		if map[string]bool{"passed": p.Passed, "first": p.Passed && p.FirstRun, "not reached": !p.Reached}[which] {
			ns = append(ns, strconv.Itoa(p.Number))
		}
	}
	return ns
}

// summaryText is the summary as docs/interview.md shows it, through a tabwriter.
var summaryText = template.Must(template.New("").Funcs(template.FuncMap{
	"secs":   func(n int) string { return grade.Minutes(time.Duration(n) * time.Second) },
	"plural": grade.Plural,
	"parts":  Summary.parts,
	"ended": func(end string) string {
		return map[string]string{EndPassed: "all parts passed", EndTimeUp: "time was up", EndStopped: "stopped (q or Ctrl-C)", EndClosed: "stopped when the terminal closed"}[end]
	},
	"list": func(ns []string) string {
		switch len(ns) {
		case 0:
			return "none"
		case 1:
			return "part " + ns[0]
		}
		return "parts " + strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
	},
	"runs": func(s Summary, races bool) string {
		var in []string
		for _, p := range s.Parts {
			if n := map[bool]int{false: p.Regressions, true: p.RaceRuns}[races]; n > 0 {
				in = append(in, fmt.Sprintf("part %d in %s", p.Number, grade.Plural(n, "run")))
			}
		}
		return strings.Join(in, ", ")
	},
}).Parse(`Interview summary: level {{.Level}}, {{.Title}}
Started {{.Started.Format "2006-01-02 15:04"}} with {{secs .BudgetSeconds}} on the clock. Ended after {{secs .ElapsedSeconds}}: {{ended .End}}.

  part	title	time	runs	hints	result
{{range $i, $p := .Parts}}  {{.Number}}	{{.Title}}	{{if ge $i $.OfferedParts}}-	-	-	take-home
{{- else if not .Reached}}-	-	-	not reached
{{- else}}{{secs .Seconds}}	{{.Runs}}	{{.Hints}}	{{if not .Passed}}not {{end}}passed{{if and .Passed .FirstRun}} on the first run{{end}}{{end}}
{{end}}
Parts passed: {{len (parts . "passed")}} of {{len .Parts}}.
Passed on the first run: {{list (parts . "first")}}.
Hints asked for (make hint-{{.Level}} during the interview): {{.Hints}}{{with .MistakesNamed}}, {{.}} of them naming a known mistake{{end}}.
{{if .Questions}}Clarifying questions asked: {{with .Asked}}{{len .}}{{else}}none{{end}} of {{.Questions}}.
{{range .Asked}}  {{.Question}} (part {{.Part}}, {{if .Runs}}after {{plural .Runs "failed run"}}{{else}}before its first run{{end}})
{{end}}{{end}}{{with runs . false}}Passed parts that broke again: {{.}}.
{{end}}{{with runs . true}}Races found: {{.}}.
{{end}}{{range .Parts}}{{$n := .Number}}{{range .Mistakes}}Known mistake matched in part {{$n}}: {{.}}
{{end}}{{end}}Parts not reached: {{list (parts . "not reached")}}.
{{if not .FreshStub}}It started from code already written, not from a fresh stub.
{{end}}`))

// WriteSummary prints an interview's summary.
func WriteSummary(w io.Writer, s Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	summaryText.Execute(tw, s) // a tabwriter keeps what it is given until Flush
	tw.Flush()
}

// SaveSummary keeps the summary in .ladder/interviews/ and returns its path in root.
func SaveSummary(root string, s Summary) (string, error) {
	path := filepath.Join(StateDir, InterviewsDir, fmt.Sprintf("level-%d-%s.json", s.Level, s.Started.Format("20060102-150405")))
	return path, writeJSON(root, path, s)
}

// MaxSummary is the most a kept summary can weigh; a bigger file is not one.
const MaxSummary = 1 << 20

// BestInterviews returns each level's best kept summary, and a warning for
// each file skipped: too big, or of a level the ladder lacks or other parts.
func BestInterviews(root string) (map[int]*grade.BestInterview, []string) {
	files, _ := filepath.Glob(filepath.Join(root, StateDir, InterviewsDir, "level-*.json")) // sorted
	out := map[int]*grade.BestInterview{}
	var skipped []string
	for _, f := range files {
		s, err := readSummary(f)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: skipped, %v", filepath.Join(StateDir, InterviewsDir, filepath.Base(f)), err))
			continue
		}
		b := &grade.BestInterview{Seconds: s.ElapsedSeconds, PartsPassed: len(s.parts("passed")), Parts: s.OfferedParts(), End: s.End,
			Started: s.Started, FreshStub: s.FreshStub, Interviews: 1}
		if old := out[s.Level]; old != nil {
			if b.Interviews += old.Interviews; !b.Beats(old) {
				b, old.Interviews = old, b.Interviews
			}
		}
		out[s.Level] = b
	}
	return out, skipped
}

func readSummary(path string) (s Summary, err error) {
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() || info.Size() > MaxSummary {
		return s, errors.New("not a summary file") // read nothing big, and follow no link
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("not a complete summary (%v)", err)
	}
	switch l, ok := levels.Numbered(s.Level); {
	case !ok:
		return s, fmt.Errorf("there is no level %d", s.Level)
	case len(s.Parts) != len(l.Parts):
		return s, fmt.Errorf("level %d has %d parts, the summary %d", s.Level, len(l.Parts), len(s.Parts))
	}
	return s, nil
}

// InterviewWarnings is where progress names summaries skipped: stderr keeps --json JSON.
var InterviewWarnings io.Writer = os.Stderr

// AddInterviews puts each level's best interview into the ladder.
func AddInterviews(root string, rep *grade.Ladder) {
	best, skipped := BestInterviews(root)
	for _, w := range skipped {
		fmt.Fprintln(InterviewWarnings, "ladder progress:", w)
	}
	for i := range rep.Levels {
		rep.Levels[i].BestInterview = best[rep.Levels[i].Number]
	}
}
