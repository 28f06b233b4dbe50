package interview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/stretchr/testify/require"
)

// splitREADME reads one README as the first of its level.
func splitREADME(path string) (Readme, error) {
	r := Readme{texts: map[int][]chunk{}, Guidance: map[int][]string{}, Adds: map[int][]string{}}
	err := r.split(path, 0)
	return r, err
}

func TestSplitREADMERefusesBrokenGuidance(t *testing.T) {
	for name, text := range map[string]string{
		"a guidance block or a clarification that does not end": "# L\n\n## Part 1: A\n\n<!-- guidance -->\n\nx\n",
		"README.md:4: <!-- guidance --> out of place":           "# L\n\n<!-- guidance -->\n<!-- guidance -->\n<!-- /guidance -->\n",
		"README.md:3: <!-- /guidance --> out of place":          "# L\n\n<!-- /guidance -->\n",
		"README.md:5: a heading inside a guidance block":        "# L\n\n<!-- guidance -->\n\n## Part 1: A\n\n<!-- /guidance -->\n",
	} {
		path := filepath.Join(t.TempDir(), "README.md")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		_, err := splitREADME(path)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), name)
	}
	// A marker in a code block is an example of one, not a block.
	path := filepath.Join(t.TempDir(), "README.md")
	require.NoError(t, os.WriteFile(path, []byte("# L\n\n```\n<!-- guidance -->\n```\n\n## Part 1: A\n\nq\n\n<!-- guidance -->\n\ng\n\n<!-- /guidance -->\n"), 0o644))
	r, err := splitREADME(path)
	require.NoError(t, err)
	require.Equal(t, "# L\n\n```\n<!-- guidance -->\n```", r.Section(0))
	require.Equal(t, "## Part 1: A\n\nq", r.Section(1))
	require.Equal(t, []string{"g"}, r.Guidance[1])
}

func TestSplitREADMEReadsClarifications(t *testing.T) {
	for name, text := range map[string]string{
		"a guidance block or a clarification that does not end":             "# L\n\n<!-- clarify: Q? -->\nx\n",
		"README.md:4: <!-- clarify: R? --> out of place":                    "# L\n\n<!-- clarify: Q? -->\n<!-- clarify: R? -->\n<!-- /clarify -->\n",
		"README.md:3: <!-- /clarify --> out of place":                       "# L\n\n<!-- /clarify -->\n",
		"README.md:5: a heading inside a guidance block or a clarification": "# L\n\n<!-- clarify: Q? -->\n\n## Part 1: A\n\n<!-- /clarify -->\n",
		"README.md:4: <!-- clarify: Q? --> out of place":                    "# L\n\n<!-- guidance -->\n<!-- clarify: Q? -->\n<!-- /clarify -->\n<!-- /guidance -->\n",
		`README.md:7: two clarifications ask "Q?"`:                          "# L\n\n<!-- clarify: Q? -->\nx\n<!-- /clarify -->\n\n<!-- clarify: Q? -->\ny\n<!-- /clarify -->\n",
	} {
		path := filepath.Join(t.TempDir(), "README.md")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		_, err := splitREADME(path)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), name)
	}
	path := filepath.Join(t.TempDir(), "README.md")
	text := "# L\n\nRules:\n\n<!-- clarify: Full? -->\n- Full.\n<!-- /clarify -->\n\n## Part 1: A\n\nq\n\n### Sub\n\n" +
		"<!-- clarify: Why? -->\nBecause.\n\n<!-- guidance -->\n\ng\n\n<!-- /guidance -->\n<!-- /clarify -->\n\n## Run it\n\n<!-- clarify: Not asked? -->\nx\n<!-- /clarify -->\n"
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	r, err := splitREADME(path)
	require.NoError(t, err)
	// Practice mode, and interview mode without a terminal, read the text.
	require.Equal(t, "# L\n\nRules:\n\n- Full.", r.Intro(1))
	require.Equal(t, "## Part 1: A\n\nq\n\n### Sub\n\nBecause.", r.Section(1))
	require.Equal(t, []string{"g"}, r.Guidance[1], "guidance in a clarification is a hint still")
	require.Equal(t, []Clarification{
		{Part: 0, Topic: "", Question: "Full?", Answer: "- Full."},
		{Part: 1, Topic: "Sub", Question: "Why?", Answer: "Because."},
	}, r.Clarifications)
	r.Withhold = true
	require.Equal(t, "# L\n\nRules:\n\nQ1. Full?", r.Intro(1))
	require.Equal(t, "## Part 1: A\n\nq\n\n### Sub\n\nQ2. Why?", r.Section(1))
	require.Equal(t, 1, r.Asking(0))
	require.Equal(t, 2, r.Asking(1))
}

func TestParseBudget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"45m", 45 * time.Minute, true},
		{"30", 30 * time.Minute, true},
		{"1h", time.Hour, true},
		{"0", 0, false},
		{"-5m", 0, false},
		{"soon", 0, false},
	} {
		got, err := ParseBudget(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("ParseBudget(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// The warning cuts its seconds as the status line cuts its minutes: with
// 1m59.7s left it says 1m59s, never 2m00s beside "1 min left".
func TestTheWarningAgreesWithTheStatusLine(t *testing.T) {
	var out strings.Builder
	fake := clock.NewFake()
	left := 2*time.Minute - 300*time.Millisecond
	iv := &Interview{Terminal: Terminal{Out: &out}, Clock: fake, Budget: time.Hour, deadline: fake.Now().Add(left),
		Level: levels.Level{Number: 3}, Offered: 2, sum: Summary{Parts: []Part{{Number: 1}, {Number: 2}}}}
	require.Equal(t, "", iv.checkClock(false))
	require.Equal(t, "\n2 minutes left (1m59s).\n[interview: level 3, part 1 of 2 · 1 min left]\n", out.String())
}

// The summary keeps what an interviewer would note beside the times: a
// passed part that broke again, a race, a known mistake.
func TestTheSummaryKeepsRegressionsRacesAndMistakes(t *testing.T) {
	var out strings.Builder
	WriteSummary(&out, Summary{Level: 3, Title: "Token bucket", End: EndStopped, FreshStub: true, Parts: []Part{
		{Number: 1, Title: "One", Reached: true, Passed: true, Runs: 4, Regressions: 2},
		{Number: 2, Title: "Two", Reached: true, Runs: 3, RaceRuns: 1, Mistakes: []string{"a denied AllowN still spends its tokens"}},
	}})
	for _, want := range []string{
		"Passed parts that broke again: part 1 in 2 runs.\n",
		"Races found: part 2 in 1 run.\n",
		"Known mistake matched in part 2: a denied AllowN still spends its tokens\n",
	} {
		require.Contains(t, out.String(), want)
	}
	out.Reset()
	WriteSummary(&out, Summary{Level: 3, Title: "Token bucket", End: EndPassed, FreshStub: true, Parts: []Part{{Number: 1, Title: "One", Reached: true, Passed: true, Runs: 1, FirstRun: true}}})
	for _, none := range []string{"broke again", "Races", "Known mistake"} {
		require.NotContains(t, out.String(), none)
	}
}

// When an earlier part broke, the report says the part asked now waits;
// the interview adds how it went, since it ran.
func TestAskedNowSaysHowThePartAskedWent(t *testing.T) {
	g := grade.Level{Parts: []grade.Part{
		{Number: 1, Ran: true, Total: 4, Passed: 3},
		{Number: 2, Ran: true, Total: 5, Passed: 2},
		{Number: 3, Ran: true, Total: 1, Passed: 1, Done: true},
		{Number: 4},
	}}
	for part, want := range map[int]string{2: "Part 2, asked now: 2 of 5 cases pass.", 3: "", 4: ""} {
		require.Equal(t, want, askedNow(g, part), "part %d", part)
	}
}

// A README without a part's section is refused by name: the interview
// would otherwise ask that part as an empty question.
func TestReadmePartsRefusesAMissingPart(t *testing.T) {
	root := t.TempDir()
	l := levels.Level{Number: 1, Dir: "ladder/01-x", Parts: []levels.Part{{Number: 1, Title: "A"}, {Number: 2, Title: "B"}}}
	require.NoError(t, os.MkdirAll(filepath.Join(root, l.Dir), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, l.Dir, "README.md"), []byte("# L\n\nintro\n\n## Part 1: A\n\nq\n"), 0o644))
	_, err := ReadmeParts(root, l)
	if want := `ladder/01-x/README.md: no "## Part 2:" section`; err == nil || err.Error() != want {
		t.Errorf("ReadmeParts = %v, want %q", err, want)
	}
}
