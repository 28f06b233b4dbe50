package spec

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// Fuzz checks the throttlers newThrottler builds against the model, on
// random configs (any algorithm for the clients and for a group of "a" and
// "b"; "c" is in no group) and random timelines. The clock starts anywhere
// in the range of instants, from 1678 to 2262, or at either end of it; it
// mostly moves forward, sometimes by exactly a window or a nanosecond less,
// sometimes by a century or to the last instant, and now and then goes
// back, as far as to the first instant.
//
// A timeline's part is the lowest whose features its config needs (see
// partOf), while it keeps to the scale of parts 1 to 4: a clock within a
// century of 1970 that moves by at most a few windows a step, and limits
// of a day at most with at most 60 requests. A timeline that reaches
// further, by a century in one step, near or past the ends of the range,
// or with a longer limit, is part 5's, like the cases of the whole range
// of time.
func Fuzz[T Throttler](f *testing.F, newThrottler func(c clock.Clock, cfg limits.Config) (T, error)) {
	skipWithoutModel(f)
	addFuzzSeeds(f)
	newT := erase(newThrottler)
	f.Fuzz(func(t *testing.T, data []byte) {
		timeline.RunCase(t, fuzzCase(newT, data, 0))
	})
}

// fuzzModel builds the model the fuzz target takes its wants from. It is
// set in oracle.go, which a student copy does not have: the model is a
// whole throttler, and would be an answer.
var fuzzModel func(c clock.Clock, cfg limits.Config) (interface {
	AllowN(client string, n int) limits.Decision
}, error)

// skipWithoutModel skips the fuzz target in a student copy, which has no
// model to take wants from; the instructor's class report plays it.
func skipWithoutModel(f *testing.F) {
	if fuzzModel == nil {
		f.Skip("no fuzz model here: a student copy leaves out spec/oracle.go, which is a whole throttler; the class report plays the random timelines")
	}
}

func addFuzzSeeds(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add(seed)
	}
}

// fuzzSeeds are the fuzz target's seed inputs.
var fuzzSeeds = [][]byte{
	{1, 3, 2, 0, 1, 0, 2, 2, 5, 1, 0, 6, 0, 1, 7, 1, 4, 7, 0, 9},
	{0, 2, 1, 0, 2, 1, 0, 0, 3, 0, 3, 1, 1, 0, 8, 2, 0, 2, 6, 0, 10},
	{2, 4, 0, 1, 1, 4, 1, 5, 2, 0, 0, 1, 3, 0, 2, 4, 9, 1, 1, 8, 0, 2},
	{1, 5, 2, 4, 0, 1, 4, 0, 0, 5, 0, 2, 0, 6, 1, 0, 7, 1, 0, 7, 1, 0, 10, 2, 0},
	// Long limits near the ends of the range.
	{0, 0, 3, 1, 1, 4, 0, 2, 2, 2, 0, 1, 5, 0, 2, 7, 1, 1, 12, 0, 0, 0, 2, 9, 2, 1},
	{1, 1, 4, 1, 0, 2, 3, 4, 1, 3, 0, 0, 11, 1, 2, 8, 0, 0, 13, 2, 1, 0, 0, 1},
	{2, 6, 5, 1, 7, 6, 5, 2, 200, 17, 3, 9, 44, 1, 0, 5, 0, 0, 10, 1, 0, 0, 12, 2, 3},
	// Timelines of parts 1 to 4 at their scale, found by a search for six
	// steps or more with two clients, two allowed requests and two waits.
	{0, 14, 15, 14, 11, 12, 0, 11, 14, 5, 3, 11, 1, 11, 2, 3, 12, 10, 15, 5, 4, 9},
	{1, 14, 2, 9, 15, 5, 2, 13, 6, 4, 10, 12, 2, 6, 14, 4, 10, 6, 2, 14, 12, 3, 3, 8, 1, 1, 14},
	{14, 1, 9, 6, 2, 5, 11, 11, 7, 9, 12, 6, 3, 7, 0, 1, 11, 8, 0, 7, 1, 0, 15, 15},
	{10, 1, 15, 10, 14, 2, 11, 14, 13, 14, 5, 8, 14, 12, 8, 12, 7, 2, 9, 1, 7, 4, 7, 8, 12, 11, 5},
	{6, 10, 6, 5, 10, 6, 3, 5, 7, 0, 3, 12, 10, 0, 14, 15, 10, 7, 2, 3, 15, 13, 5, 15, 11, 15},
}

// fuzzSeedCases are the fuzz target's seeds as cases, named "fuzz seed 1"
// and on, so that a test can check each seed's part.
func fuzzSeedCases(newThrottler ctor, skip Feature) []timeline.Case[Throttler] {
	out := make([]timeline.Case[Throttler], len(fuzzSeeds))
	for i, seed := range fuzzSeeds {
		out[i] = fuzzCase(newThrottler, seed, skip)
		out[i].Name = fmt.Sprintf("fuzz seed %d", i+1)
	}
	return out
}

// partOf is the lowest part whose features cfg needs: a sliding window
// anywhere is part 2, a token bucket part 3, a group part 4. A fuzz
// timeline only calls AllowN, which every part has.
func partOf(cfg limits.Config) int {
	part := 1
	for _, l := range configLimits(cfg) {
		switch l.Algorithm {
		case limits.SlidingWindow:
			part = max(part, 2)
		case limits.TokenBucket:
			part = max(part, 3)
		}
	}
	if len(cfg.Groups) > 0 {
		part = max(part, 4)
	}
	return part
}

// configLimits are every limit of cfg: the clients' and each group's.
func configLimits(cfg limits.Config) []limits.Limit {
	out := []limits.Limit{cfg.PerClient}
	for _, g := range cfg.Groups {
		out = append(out, g.Limit)
	}
	return out
}

var (
	fuzzPers     = []time.Duration{60 * ms, 6 * sec, minute} // each divides into 1, 2, 3 and 60 buckets
	fuzzLongPers = []time.Duration{24 * hour, 146 * 8760 * hour, longest}
	fuzzRequests = []int{1, 2, 3, 5, 7, 60}
	fuzzBuckets  = []int{0, 2, 3, 4, 61}
)

// fuzzLimit picks a limit; with ManyBuckets skipped, a sliding window has
// 2 buckets, and with WholeRange skipped, Per is at most a minute. A limit
// New may refuse (a ring whose wait is longer than a Duration, a token
// bucket too large for exact arithmetic) becomes one a minute long, and if
// need be 60 a minute.
func fuzzLimit(in *timeline.Choices, skip Feature) limits.Limit {
	l := limits.Limit{
		Algorithm: limits.Algorithm(in.Intn(3)),
		Requests:  timeline.Pick(in, fuzzRequests...),
		Per:       timeline.Pick(in, fuzzPers...),
	}
	if skip&WholeRange == 0 && in.Intn(3) == 0 {
		l.Per = timeline.Pick(in, fuzzLongPers...)
		if in.Intn(4) == 0 {
			l.Requests = timeline.Pick(in, 1<<40, math.MaxInt)
		}
	}
	if l.Algorithm == limits.SlidingWindow {
		l.Buckets = timeline.Pick(in, fuzzBuckets...)
		if skip&ManyBuckets != 0 && l.Buckets > 2 {
			l.Buckets = 2
		}
	}
	if modelCheck("", l) != nil {
		l.Per = minute
	}
	if modelCheck("", l) != nil {
		l.Requests = 60
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
	m, err := fuzzModel(clk, cfg)
	if err != nil {
		panic(fmt.Sprintf("spec: the fuzz target made an invalid config: %v", err))
	}
	per := int64(cfg.PerClient.Per)
	requests := cfg.PerClient.Requests
	wide := skip&WholeRange == 0
	back := skip&ClockBack == 0
	var now int64 // Unix ns
	// far says the timeline leaves the scale of parts 1 to 4.
	far := false
	for _, l := range configLimits(cfg) {
		far = far || l.Per > 24*hour || l.Requests > 60
	}
	if wide {
		switch in.Intn(6) {
		case 1:
			now = math.MinInt64
		case 2:
			now = math.MaxInt64 - per/2
		case 3:
			now = math.MaxInt64 - 7*int64(ms)
		case 4:
			for range 8 {
				now = now<<8 | int64(in.Intn(256))
			}
		case 5:
			now = 1_700_000_000 * int64(sec)
		}
	}
	far = far || !ordinary(now)
	var ss []step
	for in.More() && len(ss) < 200 {
		switch k := in.Intn(16); {
		case k < 11:
			gap := []int64{0, 0, 1, int64(ms), 7 * int64(ms), per / 7, per / 2, per - 1, per, addSat(2*per, 3), -per / 3}[k]
			if gap > 0 || back {
				now = addSat(now, gap)
			}
		case k == 11 && wide:
			now, far = addSat(now, 100*8760*int64(hour)), true
		case k == 12 && wide:
			now, far = math.MaxInt64, true // the last instant
		case k == 13 && wide && back:
			now, far = math.MinInt64, true // the first instant
		case k == 14 && wide && back:
			now, far = addSat(now, -100*8760*int64(hour)), true
		}
		far = far || !ordinary(now)
		client := timeline.Pick(in, "a", "b", "c")
		n := 1 + in.Intn(min(requests, 60)+1)
		if requests > 60 && in.Intn(3) == 0 {
			n = timeline.Pick(in, requests/2, requests-1, requests)
		}
		clk.Set(clock.Epoch.Add(time.Duration(now)))
		ss = append(ss, at(time.Duration(now), allowN(client, n, m.AllowN(client, n))))
	}
	part := partOf(cfg)
	if far {
		part = 5
	}
	return timeline.Bind(clocked(newThrottler), row{Name: "fuzz", Part: part, Arg: cfg, Steps: ss})[0]
}

// ordinary says whether an instant, in Unix ns, is within a century of
// 1970: the times of parts 1 to 4.
func ordinary(now int64) bool {
	const century = 100 * 8760 * int64(hour)
	return -century <= now && now <= century
}

// addSat is a+b, held inside the int64 range.
func addSat(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}
