package spec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
	throttlespec "github.com/rateladder/rateladder/ladder/08-group-throttle/spec"
)

// redisDoneThrough is the mutants' base as a learner who has done parts 6
// to part only would have it. Part 6 pastes names into keys and sets no
// TTL (part 7's), hands the context to go-redis as it is, and has no
// WithTimeout, FailOpen or FailClosed (part 8's: the stub's panic);
// part 7 has part 7's keys; part 8 is the whole base.
func redisDoneThrough(part int) redisCtor {
	var bugs redisBugs
	if part < 7 {
		bugs.rawKeys, bugs.noTTL = true, true
	}
	if part < 8 {
		bugs.noTimeout, bugs.trustCtx = true, true
	}
	base := withRedisBugs(bugs)
	return func(rdb redis.UniversalClient, cfg limits.Config, o redisOpts) (RedisThrottler, error) {
		if part < 8 && (o.timeout > 0 || o.failOpen || o.failClosed > 0) {
			panic("not implemented: WithTimeout")
		}
		return base(rdb, cfg, o)
	}
}

// TestEachPartNeedsOnlyItsOwnFeatures checks that every case of parts 6
// to 8, and every seed of the fuzz target, is labelled with the lowest
// part whose features it needs: code written for parts 6 to K passes
// every case of those parts. The mutants' base counts every limit as a
// fixed window and checks no config, so the check plays the cases the
// whole base passes, and says how many that leaves out.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	t.Parallel()
	b := miniBackend(t)
	quietRedis()
	patientCases(t)
	all := func(newT redisCtor) []timeline.Case[Throttler] {
		return slices.Concat(redisCases(newT, b), throttlespec.FuzzSeedCases(b.syncCtor(newT), redisSkips, 6))
	}
	// Parts 6 to 8 are every part, the base itself: what it passes of
	// parts 6 and 7 is what the check plays.
	var right, wrong []string
	for _, o := range timeline.PlayAll(7, all(redisDoneThrough(8))) {
		if o.Verdict == protocol.Pass {
			right = append(right, o.Name)
		} else {
			wrong = append(wrong, o.Name)
		}
	}
	t.Logf("of parts 6 and 7, the base passes %d cases, which are checked, and not these %d: %q", len(right), len(wrong), wrong)
	for part := 6; part <= 7; part++ {
		t.Run(fmt.Sprintf("parts 6 to %d", part), func(t *testing.T) {
			cs := slices.DeleteFunc(all(redisDoneThrough(part)), func(c timeline.Case[Throttler]) bool { return !slices.Contains(right, c.Name) })
			mutation.Passes(t, fmt.Sprintf("the mutants' base, done through part %d", part), part, cs)
		})
	}
}
