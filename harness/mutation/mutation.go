// Package mutation holds the checks a level's spec makes on itself: a right
// implementation passes, each wrong one (a mutant) is caught by its part,
// and the list of cases and the table of mistakes the grader reads are current.
package mutation

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rateladder/rateladder/harness/internal/guide"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Passes checks that every case of parts 1 to part (all, for 0) passes,
// built with impl: a right one, or one written for those parts only, which
// shows that each case needs no later part's feature.
func Passes[T any](t *testing.T, impl string, part int, cases []timeline.Case[T]) {
	t.Helper()
	played := timeline.PlayAll(part, cases)
	if len(played) == 0 {
		t.Errorf("%s: no case of parts 1 to %d to play", impl, part)
	}
	for _, o := range played {
		switch {
		case o.Verdict == protocol.Pass:
		case part == 0:
			t.Errorf("%s fails case %q (part %d), and it is right:\n%s", impl, o.Name, o.Part, o.Report)
		default:
			t.Errorf("%s, written for parts 1 to %d only, fails case %q of part %d: the case needs a later part's feature, so its part is wrong:\n%s",
				impl, part, o.Name, o.Part, o.Report)
		}
	}
}

// Caught checks, in a subtest named after the mutant, that it fails some
// case of the given part; it plays that part's cases only, each to its end.
func Caught[T any](t *testing.T, mutant string, part int, cases []timeline.Case[T]) {
	t.Helper()
	t.Run(mutant, func(t *testing.T) { t.Logf("caught by: %q", judgePart(t, mutant, part, cases)) })
}

// judgePart is Caught's verdict, in any t.
func judgePart[T any](t testing.TB, mutant string, part int, cases []timeline.Case[T]) (caught []string) {
	t.Helper()
	cases = slices.DeleteFunc(slices.Clone(cases), func(c timeline.Case[T]) bool { return c.Part != part })
	return JudgeOutcomes(t, mutant, part, timeline.PlayAll(0, cases))
}

// JudgeOutcomes judges what a mutant's cases gave, as Caught does, leaving
// out those of other parts: it fails t with what is wrong, and returns the
// cases that caught it.
func JudgeOutcomes(t testing.TB, mutant string, part int, outcomes []timeline.Outcome) (caught []string) {
	t.Helper()
	for _, o := range outcomes {
		switch {
		case o.Part != part, o.Verdict == protocol.Pass:
		case o.Verdict == protocol.NotImplemented, o.Verdict == protocol.TimedOut, o.Verdict == protocol.Exited:
			t.Errorf("mutant %q: case %q ended as %q; a mutant must be a complete implementation:\n%s", mutant, o.Name, o.Verdict, o.Report)
		default:
			caught = append(caught, o.Name)
		}
	}
	if len(caught) == 0 {
		t.Errorf("mutant %q passes any case of part %d: the spec no longer catches this wrong implementation", mutant, part)
	}
	return caught
}

// raceChildEnv names, in CaughtUnderRace's child, the test it runs.
const raceChildEnv = "LADDER_RACE_CHILD"

// CaughtUnderRace checks a mutant whose mistake shows only as a data race:
// it runs the test again in a child built with -race, where it calls play,
// and fails t unless the child reported a race or a concurrent map access.
// It skips under -short, and where -race cannot be built.
func CaughtUnderRace(t *testing.T, mutant string, play func(t *testing.T)) {
	t.Helper()
	if os.Getenv(raceChildEnv) == t.Name() {
		play(t)
		return
	}
	if testing.Short() {
		t.Skip("runs the mutant in a child process built with -race")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the race child with: %v", err)
	}
	// -vet=off: the child only has to show the race.
	cmd := exec.Command(goTool, "test", "-race", "-vet=off", "-count=1", "-run="+runPattern(t.Name()), ".")
	cmd.Env = append(os.Environ(), raceChildEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch caught, problem := judgeRaceChild(out, err); {
	case problem != "":
		t.Errorf("mutant %q: %s\n%s", mutant, problem, out)
	case caught == "":
		t.Skipf("this machine cannot build with -race, so mutant %q goes unchecked:\n%s", mutant, out)
	default:
		t.Logf("mutant %q: %s", mutant, caught)
	}
}

// judgeRaceChild says how a race child's output caught the mutant, or why
// it did not; both are empty where -race cannot be built.
func judgeRaceChild(out []byte, err error) (caught, problem string) {
	switch {
	case bytes.Contains(out, []byte("-race requires cgo")) || bytes.Contains(out, []byte("-race is not supported")):
		return "", ""
	case bytes.Contains(out, []byte("WARNING: DATA RACE")) || bytes.Contains(out, []byte("fatal error: concurrent map")):
		return "caught: the race detector reported a data race, or the child crashed with a concurrent map access", ""
	case err == nil:
		return "", "passes under -race: the spec no longer catches it"
	}
	return "", "the race child failed without a data race report: " + err.Error()
}

// runPattern is the -run pattern that matches the test named name, and no
// other: "^TestX$/^case_one$".
func runPattern(name string) string {
	return "^" + strings.ReplaceAll(regexp.QuoteMeta(name), "/", "$/^") + "$"
}

// Unwritten panics the way a stub's method does: "not implemented: T.M".
func Unwritten(method string) {
	panic("not implemented: " + method)
}

// Spec is a level's spec as its own tests check it: its cases, built with a
// constructor of type N, and its fuzz target's seeds and decoder.
type Spec[T, N any] struct {
	Cases  func(newT N) []timeline.Case[T]
	Seeds  [][]byte
	Decode func(newT N, data []byte) timeline.Case[T]
}

// SpecOf is the Spec of cases, seeds and decode, its types read from them.
func SpecOf[T, N any](cases func(newT N) []timeline.Case[T], seeds [][]byte, decode func(newT N, data []byte) timeline.Case[T]) Spec[T, N] {
	return Spec[T, N]{Cases: cases, Seeds: seeds, Decode: decode}
}

// SeedCases are the fuzz target's seeds as cases built with newT, named "fuzz seed 2".
func (s Spec[T, N]) SeedCases(newT N) []timeline.Case[T] {
	out := make([]timeline.Case[T], len(s.Seeds))
	for i, seed := range s.Seeds {
		out[i] = s.Decode(newT, seed)
		out[i].Name = fmt.Sprintf("fuzz seed %d", i+1)
	}
	return out
}

// Impl is a mutant (one mistake a learner makes), or an implementation of the first parts only.
type Impl[N any] struct {
	Name string // what it is; a mutant's names its mistake
	Part int    // the part that must catch a mutant, or the last part done
	New  N
}

// CatchesMutants checks, as Caught does, that each mutant is caught in its
// part, and with CheckMistakes that the table of the cases each fails is current.
func (s Spec[T, N]) CatchesMutants(t *testing.T, mutants []Impl[N]) {
	t.Helper()
	SkipSweepIfShort(t)
	var table protocol.Mistakes
	for _, m := range mutants {
		played := timeline.PlayAll(m.Part, s.Cases(m.New))
		t.Run(m.Name, func(t *testing.T) { t.Logf("caught by: %q", JudgeOutcomes(t, m.Name, m.Part, played)) })
		table.Mistakes = append(table.Mistakes, MistakeOf(m.Name, m.Part, played))
	}
	CheckMistakes(t, table)
}

// SkipSweepIfShort skips, under -short (make test), a test that plays every
// mutant on every case: make test-mutants, in make ci, runs it.
func SkipSweepIfShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("plays every mutant on every case: make test-mutants runs it")
	}
}

// EachPartNeedsOnlyItsOwnFeatures checks with Passes that each partial
// implementation passes the cases and fuzz seeds of its parts.
func (s Spec[T, N]) EachPartNeedsOnlyItsOwnFeatures(t *testing.T, partial []Impl[N]) {
	t.Helper()
	for _, p := range partial {
		Passes(t, p.Name, p.Part, append(s.Cases(p.New), s.SeedCases(p.New)...))
	}
}

// FuzzKeepsEachPartToItsScale checks, as EachPartNeedsOnlyItsOwnFeatures
// checks the seeds, random inputs of minLen to minLen+spread bytes on the
// partials before lastPart, and that every part up to lastPart gets some.
func (s Spec[T, N]) FuzzKeepsEachPartToItsScale(t *testing.T, partial []Impl[N], seed uint64, minLen, spread, lastPart int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(lastPart)))
	random := Spec[T, N]{Seeds: make([][]byte, 3000), Decode: s.Decode}
	if testing.Short() {
		random.Seeds = random.Seeds[:300]
	}
	for i := range random.Seeds {
		random.Seeds[i] = make([]byte, minLen+rng.IntN(spread))
		for j := range random.Seeds[i] {
			random.Seeds[i][j] = byte(rng.IntN(256))
		}
	}
	for _, p := range partial {
		if p.Part < lastPart {
			Passes(t, p.Name, p.Part, random.SeedCases(p.New))
		}
	}
	for part := 1; part <= lastPart; part++ {
		if !slices.ContainsFunc(random.SeedCases(partial[0].New), func(c timeline.Case[T]) bool { return c.Part == part }) {
			t.Errorf("no random timeline of part %d among %d: the fuzz target leaves that part out", part, len(random.Seeds))
		}
	}
}

// CheckManifest fails t unless protocol.ManifestFile lists cases, then
// extra, each with a name of its own, without a slash, and a part;
// LADDER_UPDATE_MANIFEST=1 writes it.
func CheckManifest[T any](t *testing.T, cases []timeline.Case[T], extra ...protocol.ManifestCase) {
	t.Helper()
	var m protocol.Manifest
	for _, c := range cases {
		m.Cases = append(m.Cases, protocol.ManifestCase{Part: c.Part, Name: c.Name, InProcess: c.InProcess})
	}
	if m.Cases = append(m.Cases, extra...); badCase(m) != "" {
		t.Fatalf("the spec itself is wrong: %s needs a name of its own, without a slash, and a part from 1", badCase(m))
	}
	checkGolden(t, protocol.ManifestFile, protocol.UpdateManifestEnv, m.Encode(), "the spec's cases changed")
}

// badCase names the first case of m that lacks a name of its own, without
// a slash, or a part; "" if none does.
func badCase(m protocol.Manifest) string {
	seen := map[string]bool{}
	for _, c := range m.Cases {
		if c.Name == "" || strings.Contains(c.Name, "/") || seen[c.Name] || c.Part < 1 {
			return fmt.Sprintf("case %q of part %d", c.Name, c.Part)
		}
		seen[c.Name] = true
	}
	return ""
}

// MistakeOf is the Mistake of a mutant, from what its cases of parts 1 to
// part gave.
func MistakeOf(mutant string, part int, outcomes []timeline.Outcome) protocol.Mistake {
	k := protocol.Mistake{Part: part, Name: mutant, Fails: map[int][]string{}}
	for _, o := range outcomes {
		if o.Verdict != protocol.Pass {
			k.Fails[o.Part] = append(k.Fails[o.Part], o.Name)
		}
	}
	return k
}

// CheckMistakes fails t unless protocol.MistakesFile holds m, each Why taken
// from the level's INTERVIEWER.md one or two folders up, and each mistake's
// failing cases match its name; LADDER_UPDATE_MISTAKES=1 writes it.
func CheckMistakes(t *testing.T, m protocol.Mistakes) {
	t.Helper()
	whys := map[string]string{}
	for _, dir := range []string{"..", filepath.Join("..", "..")} {
		if g, err := guide.Load(filepath.Join(dir, guide.FileName)); err == nil {
			for _, k := range g.Mistakes {
				whys[k.Mutant] = k.Text
			}
			break
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	for i, k := range m.Mistakes {
		m.Mistakes[i].Why = whys[k.Name]
		for part, fails := range k.Fails {
			if got := m.Match(part, fails); !got.Names(k.Name) {
				t.Errorf("mistake %q: its failing cases of part %d, %q, are matched to %q, want its name", k.Name, part, fails, got.Named())
			}
		}
	}
	checkGolden(t, protocol.MistakesFile, protocol.UpdateMistakesEnv, m.Encode(), "the spec's cases or mutants changed")
}

// checkGolden fails t unless file holds want; with env=1 it writes it.
func checkGolden(t *testing.T, file, env string, want []byte, because string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		if err := errors.Join(os.MkdirAll(filepath.Dir(file), 0o755), os.WriteFile(file, want, 0o644)); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is missing or stale: %s. Run %s=1 go test -run '^%s$' . in this folder to write it, and commit it.", file, because, env, t.Name())
	}
}
