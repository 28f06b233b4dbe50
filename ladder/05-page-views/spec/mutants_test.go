package spec

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/ladder/05-page-views/viewerr"
)

// Wrong implementations that the spec must catch. Each is a complete
// counter with one mistake a learner makes; if an edit to the spec lets one
// of them pass, this test fails.

// flaw is the mistakes a ring mutant makes, one bit each: a mutant has
// one, and a counter written for the first parts only has those that the
// later parts correct (see parts_test.go).
type flaw int

// has reports whether f includes the mistake g.
func (f flaw) has(g flaw) bool { return f&g != 0 }

// sound is no mistake: it checks that the mutants' base is right.
const sound flaw = 0

const (
	sumsRing           flaw = 1 << iota // Count sums the ring instead of keeping a total
	freshRingOnReset                    // a long gap makes a new ring instead of clearing it
	zeroIsNever                         // starts with the latest time at 0, the epoch
	truncates                           // bucket = t / width, which rounds toward zero
	incrementsFirst                     // Add adds the views, then advances
	skipsLandingBucket                  // advancing empties the buckets passed, not the one landed on
	oneBucketTooMany                    // the window covers n+1 buckets
	loopsOverGap                        // no reset: a loop over every bucket of the gap
	signedGap                           // the gap in an int64, which overflows across the full range
	noRangeCheck                        // UnixNano outside 1678-2262
	resetsEarly                         // resets after n-1 buckets
	noBackwardsCheck                    // accepts time going backwards
	comparesBuckets                     // backwards only when the bucket goes back
	advancesFirst                       // Add moves the clock before it checks the views
	keepsRefusedTime                    // a backwards call still becomes the latest time
	countKeepsLatest                    // Count advances the ring but not the latest time
	acceptsNegative                     // negative views are added
	exactWindow                         // each view counts for exactly one window, not by bucket
)

// Work a cost-only mutant may do before it gives up, standing in for the
// runner's case timeout, which Catches cannot wait for. Each budget is far
// above what any case that a real one of these mutants finishes asks for,
// and far below what the case meant to catch it asks for.
const (
	// Buckets a sumsRing mutant may read over its life: runningTotal makes
	// a real one read 1.7e11, every other case fewer than 1e6.
	sumBudget = 100_000_000
	// Buckets a loopsOverGap mutant may step through in one call: the
	// 200-year cases ask for 6.3e9 and 6.3e18, every other case fewer
	// than 1e6.
	loopBudget = 100_000_000
)

// ring is a ring of buckets indexed by bucket mod n, the way the seed
// algorithm writes it, with its flaws switched on.
type ring struct {
	flaw    flaw
	width   int64
	buckets []int
	total   int
	cur     int64 // the current bucket
	last    int64 // the latest instant accepted, as UnixNano
	started bool
	work    int // buckets read by a sumsRing mutant so far
	// An exactWindow mutant keeps every view of the window instead of
	// buckets, and drops each one window after it.
	window int64
	views  []view
}

func newRing(f flaw) func(window, bucket time.Duration) Counter {
	return func(window, bucket time.Duration) Counter {
		n := int(window / bucket)
		if f.has(oneBucketTooMany) {
			n++
		}
		r := &ring{flaw: f, width: int64(bucket), buckets: make([]int, n), window: int64(window)}
		if f.has(zeroIsNever) {
			r.started = true // and last is 0: 1970 is "never"
		}
		return r
	}
}

func (r *ring) bucketOf(t int64) int64 {
	if r.flaw.has(truncates) {
		return t / r.width
	}
	return floorDiv(t, r.width)
}

func (r *ring) slot(k int64) int {
	n := int64(len(r.buckets))
	return int(((k % n) + n) % n)
}

// check returns the error that refuses a call at now, if any.
func (r *ring) check(now time.Time) (int64, error) {
	if !r.flaw.has(noRangeCheck) && (now.Before(firstInstant) || now.After(lastInstant)) {
		return 0, viewerr.ErrTimeOutOfRange
	}
	t := now.UnixNano()
	if !r.started || r.flaw.has(noBackwardsCheck) {
		return t, nil
	}
	back := t < r.last
	if r.flaw.has(comparesBuckets) {
		back = r.bucketOf(t) < r.cur
	}
	if back {
		if r.flaw.has(keepsRefusedTime) {
			r.last = t
		}
		return 0, viewerr.ErrTimeWentBackwards
	}
	return t, nil
}

// advance moves to the bucket of t, emptying the buckets that left.
func (r *ring) advance(t int64, isCount bool) {
	k := r.bucketOf(t)
	if isCount && r.flaw.has(countKeepsLatest) {
		// only the ring moves
	} else {
		r.last = t
	}
	if !r.started {
		r.started, r.cur = true, k
		return
	}
	n := uint64(len(r.buckets))
	gap := uint64(k) - uint64(r.cur)
	switch {
	case r.flaw.has(signedGap):
		if g := k - r.cur; g < 0 {
			gap = 0 // what `for range g` does with an overflowed g
		}
	case r.flaw.has(loopsOverGap):
		if gap > loopBudget {
			panic(fmt.Sprintf("stand-in: a loop over %d buckets in one call, which the runner's case timeout would stop", gap))
		}
		n = math.MaxUint64 // never reset
	case r.flaw.has(resetsEarly):
		n--
	}
	if gap >= n {
		if r.flaw.has(freshRingOnReset) {
			r.buckets = make([]int, len(r.buckets))
		} else {
			clear(r.buckets)
		}
		r.total = 0
	} else {
		if r.flaw.has(skipsLandingBucket) && gap > 0 {
			gap--
		}
		for i := range gap {
			s := r.cur + 1 + int64(i) // wraps past the largest int64 as the buckets do
			r.total -= r.buckets[r.slot(s)]
			r.buckets[r.slot(s)] = 0
		}
	}
	r.cur = k
}

func (r *ring) Add(now time.Time, views int) error {
	t, err := r.check(now)
	if err != nil {
		return err
	}
	if r.flaw.has(advancesFirst) {
		r.advance(t, false)
	}
	if views < 0 && !r.flaw.has(acceptsNegative) {
		return viewerr.ErrNegativeViews
	}
	if r.flaw.has(exactWindow) {
		r.last, r.started = t, true
		r.views = append(r.views, view{t, views})
		r.total += views
		return nil
	}
	k := r.bucketOf(t)
	if r.flaw.has(incrementsFirst) {
		r.buckets[r.slot(k)] += views
		r.total += views
		r.advance(t, false)
		return nil
	}
	r.advance(t, false)
	r.buckets[r.slot(k)] += views
	r.total += views
	return nil
}

func (r *ring) Count(now time.Time) (int, error) {
	t, err := r.check(now)
	if err != nil {
		return 0, err
	}
	if r.flaw.has(exactWindow) {
		r.last, r.started = t, true
		for len(r.views) > 0 && r.views[0].at <= t-r.window {
			r.total -= r.views[0].count
			r.views = r.views[1:]
		}
		return r.total, nil
	}
	r.advance(t, true)
	if !r.flaw.has(sumsRing) {
		return r.total, nil
	}
	r.work += len(r.buckets)
	if r.work > sumBudget {
		panic(fmt.Sprintf("stand-in: Count has summed %d buckets so far, and the runner's case timeout would stop it", r.work))
	}
	sum := 0
	for _, v := range r.buckets {
		sum += v
	}
	return sum, nil
}

// TestRightImplementationPasses plays every case against the ring the
// mutants share, with no flaw, so that each mutant is wrong in its flaw
// alone.
func TestRightImplementationPasses(t *testing.T) {
	mutation.Passes(t, "the mutants' ring with no flaw", 0, cases(newRing(sound)))
}

// suite is the spec as its own tests check it: its cases, and its fuzz
// target's seeds.
var suite = mutation.SpecOf(cases, fuzzSeeds, fuzzCase)

// mutants are the spec's wrong implementations, each with the part meant
// to catch it. TestSpecCatchesMutants checks that it does, and keeps
// testdata/mistakes.json, what each fails: after a change to the spec or
// the mutants, LADDER_UPDATE_MISTAKES=1 go test -run TestSpecCatchesMutants .
// in this folder writes it again.
var mutants = []mutation.Impl[func(window, bucket time.Duration) Counter]{
	{Name: "sums the ring in Count", Part: 1, New: newRing(sumsRing)},
	{Name: "makes a fresh ring after a long gap", Part: 1, New: newRing(freshRingOnReset)},
	{Name: "takes 1970 as never: refuses a first call before it", Part: 1, New: newRing(zeroIsNever)},
	{Name: "rounds negative times toward zero", Part: 1, New: newRing(truncates)},
	{Name: "increments before advancing", Part: 1, New: newRing(incrementsFirst)},
	{Name: "does not empty the bucket it lands on: a stale bucket is counted", Part: 1, New: newRing(skipsLandingBucket)},
	{Name: "covers one bucket too many", Part: 1, New: newRing(oneBucketTooMany)},
	{Name: "counts each view for exactly one window, not by bucket", Part: 1, New: newRing(exactWindow)},
	{Name: "loops over the whole gap", Part: 2, New: newRing(loopsOverGap)},
	{Name: "holds the gap in an int64, which overflows", Part: 2, New: newRing(signedGap)},
	{Name: "uses UnixNano outside 1678 to 2262", Part: 2, New: newRing(noRangeCheck)},
	{Name: "resets after n-1 buckets", Part: 2, New: newRing(resetsEarly)},
	{Name: "accepts time going backwards", Part: 3, New: newRing(noBackwardsCheck)},
	{Name: "compares buckets, not instants", Part: 3, New: newRing(comparesBuckets)},
	{Name: "changes state on an error: advances before checking the views", Part: 3, New: newRing(advancesFirst)},
	{Name: "changes state on an error: keeps a refused time as the latest", Part: 3, New: newRing(keepsRefusedTime)},
	{Name: "a Count does not move the latest time", Part: 3, New: newRing(countKeepsLatest)},
	{Name: "accepts negative views", Part: 3, New: newRing(acceptsNegative)},
}

func TestSpecCatchesMutants(t *testing.T) { suite.CatchesMutants(t, mutants) }
