package spec

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
)

// TestMistakesTableIsCurrent keeps testdata/mistakes.json, the cases each
// mutant fails, in step with the spec and its mutants: the grader names a
// learner's mistake of parts 6 to 8 from it. After a change to either,
// LADDER_UPDATE_MISTAKES=1 go test -run TestMistakesTableIsCurrent . in
// this folder writes it again.
//
// The mutants share a base that counts every limit as a fixed window, so
// the cases of the other algorithms fail whatever the mistake. The table
// records what each mutant fails among the cases the base passes, and
// lists the rest as blind: those the base fails, those of 8 goroutines on
// one limit (a wrong throttler fails them on some runs only), and those
// that need a real redis-server, which this test does not start.
func TestMistakesTableIsCurrent(t *testing.T) {
	quietRedis()
	patientCases(t)
	// The plays mostly wait on deadlines, so they run side by side, each
	// on a miniredis of its own: a SCRIPT FLUSH or a count of round trips
	// must not reach another's.
	base := redisMutantsSideBySide(t, []redisBugs{{}}, []int{8}, nil)[0]
	m := timeline.Mistakes{Blind: map[int][]string{}}
	seen := map[string]bool{} // the cases the base passes, and that say the same on every run
	for part := 6; part <= 8; part++ {
		for _, c := range base.Fails[part] {
			m.Blind[part] = append(m.Blind[part], c)
		}
	}
	for _, c := range redisCases(withRedisBugs(redisBugs{}), &backend{name: "miniredis"}) {
		if concurrent(c.Name) && !slices.Contains(m.Blind[c.Part], c.Name) {
			m.Blind[c.Part] = append(m.Blind[c.Part], c.Name)
		}
		if !slices.Contains(m.Blind[c.Part], c.Name) {
			seen[c.Name] = true
		}
	}
	for _, c := range ServerCases() {
		m.Blind[c.Part] = append(m.Blind[c.Part], c.Name)
	}
	var bugs []redisBugs
	var parts []int
	for _, k := range redisMutants {
		bugs, parts = append(bugs, k.bugs), append(parts, k.part)
	}
	for i, rec := range redisMutantsSideBySide(t, bugs, parts, seen) {
		rec.Name = redisMutants[i].name
		m.Mistakes = append(m.Mistakes, rec)
	}
	mutation.CheckMistakes(t, m)
}

// redisMutantsSideBySide records, at once, what each throttler with bugs[i]
// fails of parts 6 to parts[i]: of the cases only, when only is not nil.
func redisMutantsSideBySide(t *testing.T, bugs []redisBugs, parts []int, only map[string]bool) []timeline.Mistake {
	out := make([]timeline.Mistake, len(bugs))
	var wg sync.WaitGroup
	for i := range bugs {
		b := miniBackend(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := redisCases(withRedisBugs(bugs[i]), b)
			if only != nil {
				cs = slices.DeleteFunc(cs, func(c timeline.Case[Throttler]) bool { return !only[c.Name] })
			}
			out[i] = timeline.RecordMistake("", parts[i], cs)
		}()
	}
	wg.Wait()
	return out
}

// concurrent says whether a case runs several goroutines against one
// limit: a throttler that checks and charges in two steps fails it only
// when two of them meet between the steps.
func concurrent(name string) bool { return strings.HasPrefix(name, "8 goroutines") }
