package timeline

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Manifest is the list of a spec's cases; the grader reads it with
// protocol.ReadManifest.
type Manifest = protocol.Manifest

// ManifestCase is one case a spec defines.
type ManifestCase = protocol.ManifestCase

// ManifestOf lists cases, each needing what needs says ("" for nothing).
func ManifestOf[T any](needs string, cases []Case[T]) Manifest {
	var m Manifest
	for _, c := range cases {
		mc := ManifestCase{Part: c.Part, Name: c.Name, Needs: needs, InProcess: c.InProcess}
		if c.InProcess != "" {
			mc.Steps = len(c.Steps) > 0
		}
		m.Cases = append(m.Cases, mc)
	}
	return m
}

// CheckManifest fails t unless protocol.ManifestFile holds m;
// LADDER_UPDATE_MANIFEST=1 writes it.
func CheckManifest(t *testing.T, m Manifest) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatalf("the spec's cases: %v", err)
	}
	checkGolden(t, protocol.ManifestFile, protocol.UpdateManifestEnv, m.Encode(), "the spec's cases changed")
}

// checkGolden fails t unless file holds want; with env=1 it writes it.
func checkGolden(t *testing.T, file, env string, want []byte, because string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run %s=1 go test -run '^%s$' . in this folder to write it", file, env, t.Name())
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: %s. Run %s=1 go test -run '^%s$' . in this folder to write it again, and commit it.", file, because, env, t.Name())
	}
}

// Mistakes is a spec's table of known mistakes; the grader reads it with
// protocol.ReadMistakes.
type Mistakes = protocol.Mistakes

// Mistake is one mutant and the cases it fails.
type Mistake = protocol.Mistake

// RecordMistake plays the cases of parts 1 to part, built with a mutant,
// and returns what it fails.
func RecordMistake[T any](mutant string, part int, cases []Case[T]) Mistake {
	return MistakeOf(mutant, part, PlayThrough(part, cases))
}

// MistakeOf is RecordMistake's Mistake, from what the mutant's cases of
// parts 1 to part gave.
func MistakeOf(mutant string, part int, outcomes []Outcome) Mistake {
	k := Mistake{Part: part, Name: mutant, Fails: map[int][]string{}}
	for _, o := range outcomes {
		if o.Verdict != Pass {
			k.Fails[o.Part] = append(k.Fails[o.Part], o.Case)
		}
	}
	return k
}

// CheckMistakes fails t unless protocol.MistakesFile holds m and each
// mistake's failing cases match its name; LADDER_UPDATE_MISTAKES=1 writes it.
func CheckMistakes(t *testing.T, m Mistakes) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatalf("the spec's mistakes: %v", err)
	}
	for _, k := range m.Mistakes {
		for part, fails := range k.Fails {
			if got := m.Match(part, fails); !got.Names(k.Name) {
				t.Errorf("mistake %q: its failing cases of part %d, %q, are matched to %q, want its name", k.Name, part, fails, got.Named())
			}
		}
	}
	checkGolden(t, protocol.MistakesFile, protocol.UpdateMistakesEnv, m.Encode(), "the spec's cases or mutants changed")
}

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
