package mutation

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Spec is a level's spec as its own tests check it: its cases, built with
// a constructor of type N, and its fuzz target's seeds, with the decoder
// that makes a case of each. A spec's _test.go files declare it once,
//
//	var suite = mutation.SpecOf(cases, fuzzSeeds, fuzzCase)
//
// and each check of the spec on itself is then one line:
//
//	func TestSpecCatchesMutants(t *testing.T)     { suite.CatchesMutants(t, mutants) }
//	func TestMistakesTableIsCurrent(t *testing.T) { suite.MistakesTableIsCurrent(t, mutants) }
type Spec[T, N any] struct {
	// Cases binds the spec's table to a constructor.
	Cases func(newT N) []timeline.Case[T]
	// Seeds are the fuzz target's seeds, and Decode the fuzz target's
	// decoder: the case of one input, built with newT.
	Seeds  [][]byte
	Decode func(newT N, data []byte) timeline.Case[T]
}

// SpecOf is the Spec of a spec's cases function, its fuzz target's seeds
// and its decoder, with the types read from them.
func SpecOf[T, N any](cases func(newT N) []timeline.Case[T], seeds [][]byte, decode func(newT N, data []byte) timeline.Case[T]) Spec[T, N] {
	return Spec[T, N]{Cases: cases, Seeds: seeds, Decode: decode}
}

// SeedCases are the cases of the fuzz target's seeds, built with newT and
// named "fuzz seed 1" and on: see the function SeedCases.
func (s Spec[T, N]) SeedCases(newT N) []timeline.Case[T] {
	return SeedCases(s.Seeds, func(data []byte) timeline.Case[T] { return s.Decode(newT, data) })
}

// Impl is one of the implementations a spec checks itself with: a
// mutant, a small, complete implementation with one mistake a learner
// makes; or one written for the first parts only.
type Impl[N any] struct {
	// Name says what it is in words. A mutant's name says its mistake:
	// the interviewer's guide cites it, and the grader names a learner's
	// mistake with it.
	Name string
	// Part is, for a mutant, the part whose cases must catch it; for an
	// implementation of the first parts, the last part it was written for.
	Part int
	// New builds it.
	New N
}

// CatchesMutants runs Caught for each mutant: the spec's cases, built
// with it, must catch it in its part.
func (s Spec[T, N]) CatchesMutants(t *testing.T, mutants []Impl[N]) {
	t.Helper()
	for _, m := range mutants {
		t.Run(m.Name, func(t *testing.T) {
			caught, problems := timeline.JudgeOutcomes(m.Name, m.Part, s.played(m))
			for _, p := range problems {
				t.Error(p)
			}
			t.Logf("caught by: %q", caught)
		})
	}
}

// plays keeps what each mutant's cases of its parts gave, by part and
// name, in this test binary: CatchesMutants and MistakesTableIsCurrent
// judge the same plays, which are the spec's own tests' main cost.
var plays sync.Map

// played plays the cases of parts 1 to m.Part built with m, once.
func (s Spec[T, N]) played(m Impl[N]) []timeline.Outcome {
	key := fmt.Sprintf("%d %s", m.Part, m.Name)
	if o, ok := plays.Load(key); ok {
		return o.([]timeline.Outcome)
	}
	var upTo []timeline.Case[T]
	for _, c := range s.Cases(m.New) {
		if c.Part <= m.Part {
			upTo = append(upTo, c)
		}
	}
	o := timeline.PlayAll(upTo)
	plays.Store(key, o)
	return o
}

// MistakesTableIsCurrent keeps the spec's testdata/mistakes.json, the
// cases each mutant fails, in step with the spec and its mutants: it
// records each mutant with timeline.RecordMistake and checks the table
// with CheckMistakes, which says how to write it again.
func (s Spec[T, N]) MistakesTableIsCurrent(t *testing.T, mutants []Impl[N]) {
	t.Helper()
	var m timeline.Mistakes
	for _, k := range mutants {
		m.Mistakes = append(m.Mistakes, timeline.MistakeOf(k.Name, k.Part, s.played(k)))
	}
	CheckMistakes(t, m)
}

// EachPartNeedsOnlyItsOwnFeatures runs DoneThrough for each
// implementation, written for parts 1 to its Part only, the way a learner
// who has done those parts would have it: every case and every fuzz seed
// of those parts, built with it, must pass.
func (s Spec[T, N]) EachPartNeedsOnlyItsOwnFeatures(t *testing.T, partial []Impl[N]) {
	t.Helper()
	for _, p := range partial {
		DoneThrough(t, p.Name, p.Part, append(s.Cases(p.New), s.SeedCases(p.New)...))
	}
}

// FuzzKeepsEachPartToItsScale plays random inputs of the fuzz target,
// beyond its seeds (3,000 of them, 300 under -short; from seed, each of
// minLen bytes and up to spread more), against each implementation of
// partial written for a part before lastPart. Every timeline the target
// labels with one of that implementation's parts must pass: otherwise
// the fuzzer would fail code of an early part on what only a later part
// asks. Every part up to lastPart must get some timelines.
func (s Spec[T, N]) FuzzKeepsEachPartToItsScale(t *testing.T, partial []Impl[N], seed uint64, minLen, spread, lastPart int) {
	t.Helper()
	inputs := 3000
	if testing.Short() {
		inputs = 300
	}
	rng := rand.New(rand.NewPCG(seed, uint64(lastPart)))
	byPart := map[int]int{}
	for range inputs {
		data := make([]byte, minLen+rng.IntN(spread))
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		byPart[s.Decode(partial[0].New, data).Part]++
		for _, p := range partial {
			if p.Part >= lastPart {
				continue
			}
			c := s.Decode(p.New, data)
			if c.Part > p.Part {
				continue
			}
			if o := timeline.Play(c); o.Verdict != timeline.Pass {
				t.Fatalf("%s, written for parts 1 to %d, fails a fuzz timeline of part %d, input %v:\n%s", p.Name, p.Part, c.Part, data, o.Report)
			}
		}
	}
	t.Logf("timelines by part: %v", byPart)
	for part := 1; part <= lastPart; part++ {
		if byPart[part] == 0 {
			t.Errorf("no random timeline of part %d among %d: the fuzz target leaves that part out", part, inputs)
		}
	}
}
