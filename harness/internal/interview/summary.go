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
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/levels"
)

// InterviewsDir keeps every interview's summary, as JSON and as text.
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
	// InScope is how many parts the clock is for, Offered how many are
	// asked (in scope, then stretch); 0 means every part.
	InScope       int `json:"in_scope,omitempty"`
	Offered       int `json:"offered,omitempty"`
	MistakesNamed int `json:"mistakes_named,omitempty"` // hints that named a known mistake
	// Questions is how many clarifying questions the parts reached had, on
	// a terminal; Asked is those asked.
	Questions int     `json:"questions,omitempty"`
	Asked     []Asked `json:"asked,omitempty"`
}

// Asked is a clarifying question asked, and in which part after how many
// (failed) runs.
type Asked struct {
	Question string `json:"question"`
	Part     int    `json:"part"`
	Runs     int    `json:"runs"`
}

// Part is one part of an interview.
type Part struct {
	Number   int    `json:"part"`
	Title    string `json:"title"`
	Reached  bool   `json:"reached"`
	Passed   bool   `json:"passed"`
	Seconds  int    `json:"seconds"` // from the part's question to its passing run, or to the end
	Runs     int    `json:"runs"`
	FirstRun bool   `json:"passed_first_run"`
	Hints    int    `json:"hints"`
	// Regressions counts runs where the part, passed before, failed again.
	Regressions int      `json:"regressions,omitempty"`
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

func (s Summary) partsPassed() int {
	n := 0
	for _, p := range s.Parts {
		if p.Passed {
			n++
		}
	}
	return n
}

// WriteSummary prints an interview's summary, as it is kept in
// .ladder/interviews/ and as the README shows one.
func WriteSummary(w io.Writer, s Summary) {
	fmt.Fprintf(w, "Interview summary: level %d, %s\n", s.Level, s.Title)
	how := map[string]string{EndPassed: "all parts passed", EndTimeUp: "time was up", EndStopped: "stopped (q or Ctrl-C)", EndClosed: "stopped when the terminal closed"}[s.End]
	fmt.Fprintf(w, "Started %s with %s on the clock. Ended after %s: %s.\n\n",
		s.Started.Format("2006-01-02 15:04"), grade.Minutes(time.Duration(s.BudgetSeconds)*time.Second),
		grade.Minutes(time.Duration(s.ElapsedSeconds)*time.Second), how)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  part\ttitle\ttime\truns\thints\tresult")
	var first, notReached []string
	passed := 0
	for i, p := range s.Parts {
		n := strconv.Itoa(p.Number)
		switch {
		case i >= s.OfferedParts():
			fmt.Fprintf(tw, "  %d\t%s\t-\t-\t-\ttake-home\n", p.Number, p.Title)
			continue
		case !p.Reached:
			fmt.Fprintf(tw, "  %d\t%s\t-\t-\t-\tnot reached\n", p.Number, p.Title)
			notReached = append(notReached, n)
			continue
		}
		result := "not passed"
		if p.Passed {
			passed++
			result = "passed"
			if p.FirstRun {
				result += " on the first run"
				first = append(first, n)
			}
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%d\t%s\n", p.Number, p.Title, grade.Minutes(time.Duration(p.Seconds)*time.Second), p.Runs, p.Hints, result)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nParts passed: %d of %d.\n", passed, len(s.Parts))
	fmt.Fprintf(w, "Passed on the first run: %s.\n", partList(first))
	named := ""
	if s.MistakesNamed > 0 {
		named = fmt.Sprintf(", %d of them naming a known mistake", s.MistakesNamed)
	}
	fmt.Fprintf(w, "Hints asked for (make hint-%d during the interview): %d%s.\n", s.Level, s.Hints, named)
	if s.Questions > 0 {
		asked := "none"
		if len(s.Asked) > 0 {
			asked = strconv.Itoa(len(s.Asked))
		}
		fmt.Fprintf(w, "Clarifying questions asked: %s of %d.\n", asked, s.Questions)
		for _, a := range s.Asked {
			when := "before its first run"
			if a.Runs > 0 {
				when = "after " + grade.Plural(a.Runs, "failed run")
			}
			fmt.Fprintf(w, "  %s (part %d, %s)\n", a.Question, a.Part, when)
		}
	}
	for _, c := range []struct {
		say string
		n   func(Part) int
	}{{"Passed parts that broke again", func(p Part) int { return p.Regressions }}, {"Races found", func(p Part) int { return p.RaceRuns }}} {
		var in []string
		for _, p := range s.Parts {
			if n := c.n(p); n > 0 {
				in = append(in, fmt.Sprintf("part %d in %s", p.Number, grade.Plural(n, "run")))
			}
		}
		if len(in) > 0 {
			fmt.Fprintf(w, "%s: %s.\n", c.say, strings.Join(in, ", "))
		}
	}
	for _, p := range s.Parts {
		for _, m := range p.Mistakes {
			fmt.Fprintf(w, "Known mistake matched in part %d: %s\n", p.Number, m)
		}
	}
	fmt.Fprintf(w, "Parts not reached: %s.\n", partList(notReached))
	if !s.FreshStub {
		fmt.Fprintln(w, "It started from code already written, not from a fresh stub.")
	}
}

func partList(parts []string) string {
	switch len(parts) {
	case 0:
		return "none"
	case 1:
		return "part " + parts[0]
	}
	return "parts " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// SaveSummary keeps the summary as .ladder/interviews/level-N-<time>.txt
// and .json, and returns the text file's path, relative to root.
func SaveSummary(root string, s Summary) (string, error) {
	base := filepath.Join(learner.StateDir, InterviewsDir, fmt.Sprintf("level-%d-%s", s.Level, s.Started.Format("20060102-150405")))
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(base)), 0o755); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", err
	}
	var text strings.Builder
	WriteSummary(&text, s)
	for ext, data := range map[string][]byte{".json": append(data, '\n'), ".txt": []byte(text.String())} {
		if err := os.WriteFile(filepath.Join(root, base+ext), data, 0o644); err != nil {
			return "", err
		}
	}
	return base + ".txt", nil
}

// MaxSummary is the most a kept summary can weigh; a bigger file is not one.
const MaxSummary = 1 << 20

// BestInterviews reads every kept summary and returns each level's best,
// and a warning for each file skipped: one too big to be a summary, or a
// summary of a level the ladder lacks or of other parts.
func BestInterviews(root string) (map[int]*grade.BestInterview, []string) {
	files, _ := filepath.Glob(filepath.Join(root, learner.StateDir, InterviewsDir, "level-*.json")) // sorted
	out := map[int]*grade.BestInterview{}
	var skipped []string
	for _, f := range files {
		s, err := readSummary(f)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: skipped, %v", filepath.Join(learner.StateDir, InterviewsDir, filepath.Base(f)), err))
			continue
		}
		b := &grade.BestInterview{Seconds: s.ElapsedSeconds, PartsPassed: s.partsPassed(), Parts: s.OfferedParts(), End: s.End,
			Started: s.Started, FreshStub: s.FreshStub}
		if old := out[s.Level]; old != nil && !b.Beats(old) {
			b = old
		} else if old != nil {
			b.Interviews = old.Interviews
		}
		b.Interviews++
		out[s.Level] = b
	}
	return out, skipped
}

func readSummary(path string) (s Summary, err error) {
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() || info.Size() > MaxSummary {
		return s, errors.New("not a summary file")
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

// InterviewWarnings is where make progress says which kept summaries it
// skipped: stderr, so that --json stays JSON.
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
