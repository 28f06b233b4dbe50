package spec

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
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
//
// Its subtest "two mistakes" plays every pair of mutants of part 6 or 7
// as one throttler with both mistakes (part 8's pairs would wait on real
// deadlines for seconds, and its mistakes each fail a case of their own), and matches what it fails of that
// part with the table, as the grader does. A pair gets no name, or one of
// its two, or the name of a mistake that fails the very cases the pair
// fails, which no rule could tell from it. It logs how often a pair is
// named (go test -v -run TestMistakesTableIsCurrent .).
func TestMistakesTableIsCurrent(t *testing.T) {
	mutation.SkipSweepIfShort(t)
	t.Parallel()
	quietRedis()
	patientCases(t)
	base := sideBySide(t, []redisBugs{{}}, func(int, timeline.Case[Throttler]) bool { return true })[0]
	m := protocol.Mistakes{Blind: map[int][]string{}}
	seen := map[string]bool{} // the cases the base passes, and that say the same on every run
	for _, c := range redisCases(withRedisBugs(redisBugs{}), &backend{name: "miniredis"}) {
		if slices.Contains(base.Fails[c.Part], c.Name) || concurrent(c.Name) {
			m.Blind[c.Part] = append(m.Blind[c.Part], c.Name)
		} else {
			seen[c.Name] = true
		}
	}
	for _, c := range ServerCases() {
		m.Blind[c.Part] = append(m.Blind[c.Part], c.Name)
	}

	// Each mutant plays the cases seen of its part and those before; each
	// pair, the cases seen of its part, which is all the grader compares.
	type pair struct{ a, b int }
	var pairs []pair
	var bugs []redisBugs
	var parts []int
	for _, k := range redisMutants {
		bugs, parts = append(bugs, k.bugs), append(parts, k.part)
	}
	for i, a := range redisMutants {
		for j := i + 1; j < len(redisMutants); j++ {
			if b := redisMutants[j]; b.part == a.part && a.part != 8 {
				pairs = append(pairs, pair{i, j})
				bugs, parts = append(bugs, a.bugs.and(b.bugs)), append(parts, a.part)
			}
		}
	}
	n := len(redisMutants)
	recs := sideBySide(t, bugs, func(i int, c timeline.Case[Throttler]) bool {
		return seen[c.Name] && (c.Part == parts[i] || i < n && c.Part < parts[i])
	})
	for i, k := range redisMutants {
		rec := recs[i]
		rec.Name, rec.Part = k.name, k.part
		m.Mistakes = append(m.Mistakes, rec)
	}
	mutation.CheckMistakes(t, m)

	t.Run("two mistakes", func(t *testing.T) {
		named, right := 0, 0
		for i, p := range pairs {
			a, b, fails := redisMutants[p.a], redisMutants[p.b], recs[n+i].Fails[parts[n+i]]
			got := m.Match(a.part, fails)
			switch {
			case got.Best < 0:
				continue
			case got.Names(a.name) || got.Names(b.name):
				named++
				right++
			case got.Candidates[got.Best].Overlap == 1:
				named++
				t.Logf("%q + %q fail the very cases of %q, and are named so", a.name, b.name, got.Named())
			default:
				named++
				t.Errorf("%q + %q fail %q of part %d, and are named %q", a.name, b.name, fails, a.part, got.Named())
			}
		}
		t.Logf("pairs of one part: %d, %d named, %d of them as one of the two", len(pairs), named, right)
	})
}

// sideBySide plays, for each bugs[i], the cases keep(i, case) keeps,
// built with a throttler with those bugs, and records what it fails. The
// plays mostly wait on deadlines, so several run side by side, each on a
// miniredis of its own: a SCRIPT FLUSH or a count of round trips must not
// reach another's. A case of part 8 that fails is played once more, and
// counts only if it fails again: its calls wait on real deadlines, which a
// loaded machine may miss on one run, and the table must not change with
// the load. The other parts' cases run on the fake clock.
func sideBySide(t *testing.T, bugs []redisBugs, keep func(int, timeline.Case[Throttler]) bool) []protocol.Mistake {
	out := make([]protocol.Mistake, len(bugs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range bugs {
		b := miniBackend(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cs := slices.DeleteFunc(redisCases(withRedisBugs(bugs[i]), b), func(c timeline.Case[Throttler]) bool { return !keep(i, c) })
			rec := mutation.MistakeOf("", 8, timeline.PlayAll(8, cs))
			if fails := rec.Fails[8]; len(fails) > 0 {
				if rec.Fails[8] = slices.DeleteFunc(fails, func(name string) bool {
					i := slices.IndexFunc(cs, func(c timeline.Case[Throttler]) bool { return c.Name == name })
					return timeline.Play(cs[i]).Verdict == protocol.Pass
				}); len(rec.Fails[8]) == 0 {
					delete(rec.Fails, 8)
				}
			}
			out[i] = rec
		}()
	}
	wg.Wait()
	return out
}

// concurrent says whether a case runs several goroutines against one
// limit: a throttler that checks and charges in two steps fails it only
// when two of them meet between the steps.
func concurrent(name string) bool { return strings.HasPrefix(name, "8 goroutines") }

// and is a throttler with the mistakes of both.
func (b redisBugs) and(o redisBugs) redisBugs {
	return redisBugs{
		twoTrips: b.twoTrips || o.twoTrips, noTTL: b.noTTL || o.noTTL, noHashTag: b.noHashTag || o.noHashTag,
		rawKeys: b.rawKeys || o.rawKeys, noReload: b.noReload || o.noReload, noFailure: b.noFailure || o.noFailure,
		noTimeout: b.noTimeout || o.noTimeout, trustCtx: b.trustCtx || o.trustCtx, timeTrip: b.timeTrip || o.timeTrip,
		evalEach: b.evalEach || o.evalEach, noEscape: b.noEscape || o.noEscape, luaTime: b.luaTime || o.luaTime,
	}
}
