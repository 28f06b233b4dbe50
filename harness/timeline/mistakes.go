package timeline

import (
	"testing"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Mistakes is a spec's table of known mistakes; the grader reads it with
// protocol.ReadMistakes.
type Mistakes = protocol.Mistakes

// Mistake is one mutant and the cases it fails.
type Mistake = protocol.Mistake

// RecordMistake plays the cases of parts 1 to part, built with a mutant,
// and returns what it fails.
func RecordMistake[T any](mutant string, part int, cases []Case[T]) Mistake {
	var upTo []Case[T]
	for _, c := range cases {
		if c.Part <= part {
			upTo = append(upTo, c)
		}
	}
	return MistakeOf(mutant, part, PlayAll(upTo))
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
