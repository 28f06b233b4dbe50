package spec

import (
	"fmt"
	"slices"
	"testing"

	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// partial is the model as a learner's code of parts 1 to 4 leaves it:
// no lock yet, and Len still the stub's.
type partial struct{ *core }

// Len is part 5's, not written yet.
func (partial) Len() int { panic("not implemented: Throttler.Len") }

// doneThrough builds the mutants' base, the model, as a learner who has
// done parts 1 to part only would have it: New refuses what later parts
// add with an error, as code with no branch for it yet does. Part 1 takes
// only fixed windows, part 2 sliding windows too, part 3 token buckets
// too, part 4 groups; part 5 is the whole model.
func doneThrough(part int) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		fields := []string{"PerClient"}
		for i := range cfg.Groups {
			fields = append(fields, fmt.Sprintf("Groups[%d].Limit", i))
		}
		for i, l := range configLimits(cfg) {
			if (l.Algorithm == limits.SlidingWindow && part < 2) || (l.Algorithm == limits.TokenBucket && part < 3) {
				return nil, fmt.Errorf("%s.Algorithm is %v, which a throttler of parts 1 to %d does not have yet", fields[i], l.Algorithm, part)
			}
		}
		if len(cfg.Groups) > 0 && part < 4 {
			return nil, fmt.Errorf("groups are part 4, and this throttler has parts 1 to %d", part)
		}
		if part >= 5 {
			return newModel(c, cfg)
		}
		m, err := newCore(c, cfg, newPlainBook)
		if err != nil {
			return nil, err
		}
		return partial{m}, nil
	}
}

// fixedWindow is part 1 as a candidate writes it in an interview: a map
// from client to its window's index and count, the time in int64
// nanoseconds as UnixNano reads it, and a latest time that a clock going
// back does not move. It knows nothing of the ends of the range: past
// 2262 UnixNano wraps, and a window that ends past it wraps too.
type fixedWindow struct {
	clk     clock.Clock
	limit   limits.Limit
	latest  int64
	started bool
	clients map[string]*window
}

type window struct {
	index int64 // the window is [index·Per, (index+1)·Per)
	count int
}

func newFixedWindow(c clock.Clock, cfg limits.Config) (Throttler, error) {
	l := cfg.PerClient
	switch {
	case l.Requests < 1:
		return nil, fmt.Errorf("PerClient.Requests is %d, want at least 1", l.Requests)
	case l.Per <= 0:
		return nil, fmt.Errorf("PerClient.Per is %v, want more than 0", l.Per)
	case l.Algorithm != limits.FixedWindow:
		return nil, fmt.Errorf("PerClient.Algorithm is %v: only FixedWindow so far", l.Algorithm)
	case len(cfg.Groups) > 0:
		return nil, fmt.Errorf("groups are part 4")
	}
	return &fixedWindow{clk: c, limit: l, clients: map[string]*window{}}, nil
}

func (f *fixedWindow) Allow(client string) limits.Decision { return f.AllowN(client, 1) }

func (f *fixedWindow) AllowN(client string, n int) limits.Decision {
	if n < 1 {
		panic(fmt.Sprintf("AllowN(%q, %d)", client, n))
	}
	read := f.clk.Now().UnixNano()
	if !f.started || read > f.latest {
		f.latest, f.started = read, true
	}
	per := int64(f.limit.Per)
	k := f.latest / per
	if f.latest%per < 0 {
		k-- // floored: windows before 1970 too start at a multiple of Per
	}
	w := f.clients[client]
	if w == nil || w.index != k {
		w = &window{index: k}
		f.clients[client] = w
	}
	left := f.limit.Requests - w.count
	switch {
	case n > f.limit.Requests:
		return limits.Decision{Remaining: left} // never
	case n > left:
		return limits.Decision{Remaining: left, RetryAfter: time.Duration((k+1)*per - read)}
	}
	w.count += n
	return limits.Decision{Allowed: true, Remaining: left - n}
}

func (*fixedWindow) Len() int { panic("not implemented: Throttler.Len") }

// TestEachPartNeedsOnlyItsOwnFeatures checks that every case, and every
// seed of the fuzz target, is labelled with the lowest part whose
// features it needs: code written for parts 1 to K passes every case of
// those parts. Besides the model cut down to parts 1 to K, part 1 has
// fixedWindow, which knows nothing of the ends of the range: part 5 does.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	slowUnderRace(t)
	t.Run("a fixed window as an interview writes it", func(t *testing.T) {
		mutation.Passes(t, "a fixed window as an interview writes it", 1,
			slices.Concat(cases(newFixedWindow, 0), fuzzSeedCases(newFixedWindow, 0)))
	})
	for part := 1; part <= 5; part++ {
		t.Run(fmt.Sprintf("parts 1 to %d", part), func(t *testing.T) {
			newT := doneThrough(part)
			cs := slices.Concat(cases(newT, 0), fuzzSeedCases(newT, 0))
			if part == 5 {
				// Parts 1 to 5 are every part: the right implementation's
				// own check, TestRightImplementationPasses, plays the
				// tables; here only the seeds.
				cs = fuzzSeedCases(newT, 0)
			}
			mutation.Passes(t, fmt.Sprintf("the model, done through part %d", part), part, cs)
		})
	}
}

// TestFuzzSeedsCoverEveryAlgorithmPart checks that the seeds reach parts 2
// to 4, so that relabelling them leaves the fuzz target its variety.
func TestFuzzSeedsCoverEveryAlgorithmPart(t *testing.T) {
	seen := map[int][]string{}
	for _, c := range fuzzSeedCases(theModel, 0) {
		seen[c.Part] = append(seen[c.Part], c.Name)
	}
	for part := 2; part <= 4; part++ {
		if len(seen[part]) == 0 {
			t.Errorf("no fuzz seed is of part %d (seeds by part: %v), want at least one", part, seen)
		}
	}
}
