package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// The Redis form of level 8 has a spec of its own, in the module
// ladder/08-group-throttle/redisthrottle, so that go-redis and miniredis
// never enter the main go.mod. It plays this package's cases again through
// the thin wrappers below; everything else it needs is its own.

// Cases returns the cases of parts 1 to 5 that need none of the features
// in skip, each building its throttler with newThrottler.
func Cases[T Throttler](newThrottler func(c clock.Clock, cfg limits.Config) (T, error), skip Feature) []timeline.Case[Throttler] {
	return cases(erase(newThrottler), skip)
}

// FuzzWithout is Fuzz on timelines that need none of the features in
// skip, each labelled part: the Redis form's part 6, where every timeline
// of parts 1 to 4 belongs.
func FuzzWithout[T Throttler](f *testing.F, newThrottler func(c clock.Clock, cfg limits.Config) (T, error), skip Feature, part int) {
	skipWithoutModel(f)
	addFuzzSeeds(f)
	newT := erase(newThrottler)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := fuzzCase(newT, data, skip)
		c.Part = part
		timeline.RunCase(t, c)
	})
}

// FuzzSeedCases are the fuzz target's seeds as cases, named "fuzz seed 1"
// and on, on timelines that need none of the features in skip, each
// labelled part, so that a spec can check its seeds' part.
func FuzzSeedCases[T Throttler](newThrottler func(c clock.Clock, cfg limits.Config) (T, error), skip Feature, part int) []timeline.Case[Throttler] {
	cs := fuzzSeedCases(erase(newThrottler), skip)
	for i := range cs {
		cs[i].Part = part
	}
	return cs
}

// GroupUnderConcurrency returns part 5's check that a group stays all or
// nothing while its members ask from 8 goroutines at once, and the config
// it must run on, at a size for a throttler that makes a round trip per
// request: 320 requests, 125 allowed. The Redis spec runs it on 4
// throttlers sharing one Redis.
func GroupUnderConcurrency() (limits.Config, func(th Throttler, clk *clock.Fake) error) {
	l := groupLoad{each: 40, perClient: 25, perGroup: 125}
	return l.config(), func(th Throttler, clk *clock.Fake) error { return l.probe(th, env{Clock: clk}) }
}

// Describe writes a config the way the cases' Setup lines show it.
func Describe(cfg limits.Config) string { return describe(cfg) }

// CheckBadConfig checks that newThrottler refuses cfg with an error that
// names one of fields.
func CheckBadConfig[T Throttler](newThrottler func(c clock.Clock, cfg limits.Config) (T, error), clk clock.Clock, cfg limits.Config, fields ...string) error {
	return checkBadConfig(erase(newThrottler), clk, cfg, fields)
}

// The words level 8's tables are written in, for the Redis form's spec to
// write its own tables in the same words.
var (
	Allow   = allow
	AllowN  = allowN
	Ok      = ok
	No      = no
	Steps   = steps
	Fixed   = fixed
	Sliding = sliding
	Token   = token
	Only    = only
)
