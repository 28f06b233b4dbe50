package timeline

import (
	"bufio"
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
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the README: %w", err)
	}
	defer f.Close()
	var out []sample
	var cur *sample
	var lines []string
	inCode := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if inCode && cur != nil {
				cur.text = strings.Join(lines, "\n")
				out = append(out, *cur)
			}
			inCode, cur, lines = !inCode, nil, nil
			continue
		}
		if !inCode {
			continue
		}
		if cur == nil && len(lines) == 0 && strings.HasPrefix(line, `case "`) {
			cur = &sample{line: n}
		}
		lines = append(lines, line)
	}
	return out, sc.Err()
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
