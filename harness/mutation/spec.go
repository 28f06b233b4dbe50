package mutation

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rateladder/rateladder/harness/guide"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Spec is a level's spec as its own tests check it: its cases, built with a
// constructor of type N, and its fuzz target's seeds and decoder.
type Spec[T, N any] struct {
	Cases  func(newT N) []timeline.Case[T]
	Seeds  [][]byte
	Decode func(newT N, data []byte) timeline.Case[T]
}

// SpecOf is the Spec of a spec's cases function, its fuzz target's seeds
// and its decoder, with the types read from them.
func SpecOf[T, N any](cases func(newT N) []timeline.Case[T], seeds [][]byte, decode func(newT N, data []byte) timeline.Case[T]) Spec[T, N] {
	return Spec[T, N]{Cases: cases, Seeds: seeds, Decode: decode}
}

// SeedCases are the cases of the fuzz target's seeds, built with newT.
func (s Spec[T, N]) SeedCases(newT N) []timeline.Case[T] {
	return SeedCases(s.Seeds, func(data []byte) timeline.Case[T] { return s.Decode(newT, data) })
}

// SeedCases builds the case of each fuzz seed, named "fuzz seed 2".
func SeedCases[T any](seeds [][]byte, build func(data []byte) timeline.Case[T]) []timeline.Case[T] {
	out := make([]timeline.Case[T], len(seeds))
	for i, s := range seeds {
		out[i] = build(s)
		out[i].Name = fmt.Sprintf("fuzz seed %d", i+1)
	}
	return out
}

// Impl is a mutant (one mistake a learner makes), or an implementation of
// the first parts only.
type Impl[N any] struct {
	// Name says what it is; a mutant's names its mistake.
	Name string
	// Part is the part that must catch a mutant, or the last part done.
	Part int
	New  N
}

// CatchesMutants checks, as Caught does, that each mutant is caught in its part.
func (s Spec[T, N]) CatchesMutants(t *testing.T, mutants []Impl[N]) {
	t.Helper()
	SkipSweepIfShort(t)
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

// SkipSweepIfShort skips a test that plays every mutant on every case,
// under -short: make test runs the specs so, and make test-mutants, in
// make ci, runs them whole.
func SkipSweepIfShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("plays every mutant on every case: make test-mutants runs it")
	}
}

// plays caches each mutant's outcomes by part and name: CatchesMutants and
// MistakesTableIsCurrent judge the same plays.
var plays sync.Map

// played plays the cases of parts 1 to m.Part built with m, once.
func (s Spec[T, N]) played(m Impl[N]) []timeline.Outcome {
	key := fmt.Sprintf("%d %s", m.Part, m.Name)
	if o, ok := plays.Load(key); ok {
		return o.([]timeline.Outcome)
	}
	o := timeline.PlayThrough(m.Part, s.Cases(m.New))
	plays.Store(key, o)
	return o
}

// MistakesTableIsCurrent checks the spec's table of the cases each mutant
// fails with CheckMistakes.
func (s Spec[T, N]) MistakesTableIsCurrent(t *testing.T, mutants []Impl[N]) {
	t.Helper()
	SkipSweepIfShort(t)
	var m timeline.Mistakes
	for _, k := range mutants {
		m.Mistakes = append(m.Mistakes, timeline.MistakeOf(k.Name, k.Part, s.played(k)))
	}
	CheckMistakes(t, m)
}

// EachPartNeedsOnlyItsOwnFeatures runs DoneThrough for each partial
// implementation, on the cases and fuzz seeds.
func (s Spec[T, N]) EachPartNeedsOnlyItsOwnFeatures(t *testing.T, partial []Impl[N]) {
	t.Helper()
	for _, p := range partial {
		DoneThrough(t, p.Name, p.Part, append(s.Cases(p.New), s.SeedCases(p.New)...))
	}
}

// FuzzKeepsEachPartToItsScale checks that random fuzz timelines labelled
// with a partial implementation's parts pass against it, and that every
// part up to lastPart gets some.
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

// CheckMistakes is timeline.CheckMistakes with each mistake's Why taken from
// the level's INTERVIEWER.md, one or two folders up.
func CheckMistakes(t *testing.T, m timeline.Mistakes) {
	t.Helper()
	whys := map[string]string{}
	for _, dir := range []string{"..", filepath.Join("..", "..")} {
		path := filepath.Join(dir, guide.FileName)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		g, err := guide.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range g.Mistakes {
			whys[k.Mutant] = k.Text
		}
		break
	}
	for i := range m.Mistakes {
		m.Mistakes[i].Why = whys[m.Mistakes[i].Name]
	}
	timeline.CheckMistakes(t, m)
}
