package timeline

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// CheckREADMESamples checks that every code block of readme that starts
// `case "` is the Brief the cases, built with a wrong implementation, give.
func CheckREADMESamples[T any](t *testing.T, readme string, cases []Case[T]) {
	t.Helper()
	blocks, err := sampleBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatalf("%s shows no sample failure (a code block starting with `case \"`)", readme)
	}
	reports := map[string]string{} // by first line
	for _, o := range PlayAll(cases) {
		if o.Verdict != Pass {
			first, _, _ := strings.Cut(o.Brief, "\n")
			reports[first] = o.Brief
		}
	}
	for _, b := range blocks {
		first, _, _ := strings.Cut(b.text, "\n")
		got, ok := reports[first]
		if !ok {
			t.Errorf("%s:%d: the sample %q is not a failure this implementation gives", readme, b.line, first)
			continue
		}
		// cmp.Diff picks spaces or no-break spaces at random.
		if strings.ReplaceAll(got, "\u00a0", " ") != strings.ReplaceAll(b.text, "\u00a0", " ") {
			t.Errorf("%s:%d: the sample differs from the runner's real brief report.\nREADME:\n%s\n\nrunner:\n%s", readme, b.line, b.text, got)
		}
	}
}

type sample struct {
	line int
	text string
}

// sampleBlocks returns the code blocks of a Markdown file that start
// with `case "`.
func sampleBlocks(path string) ([]sample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the README: %w", err)
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []sample
	start := -1 // the index of a code block's first line, inside one
	for i, line := range lines {
		switch {
		case !strings.HasPrefix(strings.TrimSpace(line), "```"):
		case start < 0:
			start = i + 1
		default:
			if start < i && strings.HasPrefix(lines[start], `case "`) {
				out = append(out, sample{line: start + 1, text: strings.Join(lines[start:i], "\n")})
			}
			start = -1
		}
	}
	return out, nil
}

// CheckBriefs checks that each Brief of cases built with a wrong
// implementation fits one screen, says what is wrong in its first 10 lines
// and marks the first wrong step; some case must fail.
func CheckBriefs[T any](t *testing.T, cases []Case[T]) {
	t.Helper()
	failed := 0
	for _, o := range PlayAll(cases) {
		if o.Verdict == Pass {
			continue
		}
		failed++
		lines := strings.Split(o.Brief, "\n")
		t.Logf("case %q: brief %d lines, whole report %d", o.Case, len(lines), strings.Count(o.Report, "\n")+1)
		if len(lines) > briefLines {
			t.Errorf("case %q: Brief has %d lines, want at most %d:\n%s", o.Case, len(lines), briefLines, o.Brief)
		}
		what, _, _ := strings.Cut(o.Summary, " (step ")
		what = strings.TrimSuffix(what, "…")
		if !strings.Contains(strings.Join(lines[:min(10, len(lines))], "\n"), what) {
			t.Errorf("case %q: the first 10 lines of Brief do not say %q:\n%s", o.Case, what, o.Brief)
		}
		if o.Verdict == Fail && o.Step > 0 && !strings.Contains(o.Brief, fmt.Sprintf("✗  %d ", o.Step)) {
			t.Errorf("case %q: Brief lacks the ✗ of step %d:\n%s", o.Case, o.Step, o.Brief)
		}
	}
	if failed == 0 {
		t.Errorf("no case fails, so no brief was checked")
	}
}
