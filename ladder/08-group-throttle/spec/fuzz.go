package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// Fuzz checks the throttlers newThrottler builds against the model, on
// random configs (any algorithm for the clients and for a group of "a" and
// "b"; "c" is in no group) and random timelines whose clock mostly moves
// forward, sometimes by exactly a window or a nanosecond less, and now and
// then goes back.
func Fuzz[T Throttler](f *testing.F, newThrottler func(c clock.Clock, cfg limits.Config) (T, error)) {
	addFuzzSeeds(f)
	newT := erase(newThrottler)
	f.Fuzz(func(t *testing.T, data []byte) {
		timeline.RunCase(t, fuzzCase(newT, data, 0))
	})
}

func addFuzzSeeds(f *testing.F) {
	f.Add([]byte{1, 3, 2, 0, 1, 0, 2, 2, 5, 1, 0, 6, 0, 1, 7, 1, 4, 7, 0, 9})
	f.Add([]byte{0, 2, 1, 0, 2, 1, 0, 0, 3, 0, 3, 1, 1, 0, 8, 2, 0, 2, 6, 0, 10})
	f.Add([]byte{2, 4, 0, 1, 1, 4, 1, 5, 2, 0, 0, 1, 3, 0, 2, 4, 9, 1, 1, 8, 0, 2})
	f.Add([]byte{1, 5, 2, 4, 0, 1, 4, 0, 0, 5, 0, 2, 0, 6, 1, 0, 7, 1, 0, 7, 1, 0, 10, 2, 0})
}

var (
	fuzzPers     = []time.Duration{60 * ms, 6 * sec, minute} // each divides into 1, 2, 3 and 60 buckets
	fuzzRequests = []int{1, 2, 3, 5, 7, 60}
	fuzzBuckets  = []int{0, 2, 3, 4, 61}
)

// fuzzLimit picks a limit; with ManyBuckets skipped, a sliding window has
// 2 buckets.
func fuzzLimit(in *timeline.Choices, skip Feature) limits.Limit {
	l := limits.Limit{
		Algorithm: limits.Algorithm(in.Intn(3)),
		Requests:  timeline.Pick(in, fuzzRequests...),
		Per:       timeline.Pick(in, fuzzPers...),
	}
	if l.Algorithm == limits.SlidingWindow {
		l.Buckets = timeline.Pick(in, fuzzBuckets...)
		if skip&ManyBuckets != 0 && l.Buckets > 2 {
			l.Buckets = 2
		}
	}
	return l
}

// fuzzCase decodes data into a timeline whose wants come from the model,
// leaving out what the features in skip need.
func fuzzCase(newThrottler ctor, data []byte, skip Feature) timeline.Case[Throttler] {
	in := timeline.NewChoices(data)
	cfg := limits.Config{PerClient: fuzzLimit(in, skip)}
	if in.Intn(2) == 0 {
		cfg.Groups = []limits.Group{group("team", fuzzLimit(in, skip), "a", "b")}
	}
	clk := clock.NewFake()
	m, err := newModel(clk, cfg, bugs{})
	if err != nil {
		panic(fmt.Sprintf("spec: the fuzz target made an invalid config: %v", err))
	}
	per := cfg.PerClient.Per
	gaps := []time.Duration{0, 0, ns, ms, 7 * ms, per / 7, per / 2, per - ns, per, 2*per + 3*ns, -per / 3}
	var (
		now time.Duration
		ss  []step
	)
	for in.More() && len(ss) < 200 {
		gap := timeline.Pick(in, gaps...)
		if skip&ClockBack != 0 {
			gap = max(0, gap)
		}
		now = max(0, now+gap)
		client := timeline.Pick(in, "a", "b", "c")
		n := 1 + in.Intn(cfg.PerClient.Requests+1)
		clk.Set(clock.Epoch.Add(now))
		ss = append(ss, at(now, allowN(client, n, m.AllowN(client, n))))
	}
	return timeline.Case[Throttler]{
		Name:    "fuzz",
		Part:    1,
		Setup:   describe(cfg),
		Clocked: true,
		New: func(c clock.Clock) Throttler {
			th, err := newThrottler(c, cfg)
			if err != nil {
				panic(fmt.Sprintf("New returned an error for a valid config: %v", err))
			}
			return th
		},
		Steps: ss,
	}
}
