package spec

import (
	"math"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// fuzzSeeds are the fuzz target's seed inputs; the spec's own tests play
// them too, to check the part each is labelled with. Each seed: bucket,
// n-1, start, then per step a gap, a call and, for an Add, the views.
var fuzzSeeds = [][]byte{
	{2, 4, 0, 2, 1, 1, 3, 1, 2, 4, 0, 1, 1, 3, 0},
	{0, 2, 1, 0, 1, 1, 1, 0, 11, 0, 9, 1, 4, 10, 2},
	{1, 3, 2, 0, 1, 1, 11, 0, 10, 1, 3, 6, 0, 2, 0},
	{0, 0, 3, 0, 1, 2, 3, 0, 11, 0, 7, 1, 1, 1, 0},
	// Two more of part 1, found by a search for timelines of six steps
	// or more with a Count that is not 0.
	{2, 5, 5, 10, 8, 2, 15, 15, 6, 12, 14, 13, 13, 5, 12, 7},
	{8, 1, 0, 14, 8, 7, 15, 15, 3, 14, 8, 14, 13, 1, 4, 6, 6},
}

// Fuzz checks the counters newCounter builds against a brute-force model
// that keeps every view and counts by scanning, on random timelines with
// long gaps, times going backwards, negative views and instants outside
// the accepted range.
func Fuzz[C Counter](f *testing.F, newCounter func(window, bucket time.Duration) C) {
	timeline.Fuzz(f, fuzzSeeds, func(w, b time.Duration) Counter { return newCounter(w, b) }, fuzzCase)
}

// longGap is the most buckets a gap of part 1 moves across: a loop over
// every bucket of it is still quick. A longer one takes part 2's reset.
const longGap = 1_000_000

var (
	fuzzBuckets = []time.Duration{ns, 250 * ms, sec}
	fuzzStarts  = []time.Time{clock.Epoch, clock.Epoch.Add(-2500 * ms), firstInstant, lastInstant.Add(-3 * sec)}
	fuzzViews   = []int{0, 1, 2, 5, -1}
)

// fuzzCase decodes data into a timeline whose wants come from the model,
// played against the counters newCounter builds.
func fuzzCase(newCounter func(window, bucket time.Duration) Counter, data []byte) timeline.Case[Counter] {
	return timeline.Bind(unclocked(newCounter), fuzzRow(data))[0]
}

// fuzzRow decodes data into the timeline's row. Its part is the highest
// that a step needs: 2 for a start at an end of the accepted range, a
// step longer than longGap buckets (the first call's from the start too)
// or an instant out of range, 3 for time going backwards or negative
// views. A timeline of part 1 so stays near 1970 and moves by short steps.
func fuzzRow(data []byte) row {
	in := timeline.NewChoices(data)
	bucket := timeline.Pick(in, fuzzBuckets...)
	n := 1 + in.Intn(6)
	window := time.Duration(n) * bucket
	start := timeline.Pick(in, fuzzStarts...)
	// Gaps between calls, chosen to land near the edges of buckets and of
	// the window; the negative ones send time backwards.
	gaps := []time.Duration{0, ns, bucket - ns, bucket, bucket / 2, window - ns, window, window + ns, 3 * window, -ns, -bucket, years200}
	m := model{n: n, width: int64(bucket), last: math.MinInt64}
	var (
		steps []step
		off   time.Duration
		part  = 1
	)
	if !start.Equal(clock.Epoch) && !start.Equal(clock.Epoch.Add(-2500*ms)) {
		part = 2 // the ends of the range are part 2's
	}
	for in.More() && len(steps) < 100 {
		g := timeline.Pick(in, gaps...)
		if next := off + g; (g >= 0) == (next >= off) { // skip a gap that overflows
			off = next
			if g > longGap*bucket {
				part = max(part, 2)
			}
		}
		now := start.Add(off)
		if m.seen && m.refuse(now) == "" && uint64(floorDiv(now.UnixNano(), m.width))-uint64(floorDiv(m.last, m.width)) > longGap {
			part = max(part, 2)
		}
		var c timeline.Call[Counter]
		if in.Intn(3) == 0 {
			c = m.count(now)
		} else {
			c = m.add(now, timeline.Pick(in, fuzzViews...))
		}
		switch c.Want {
		case outOfRange:
			part = max(part, 2)
		case backwards, negative:
			part = 3
		}
		steps = append(steps, at(off, c))
	}
	return row{Name: "fuzz", Part: part, Arg: size{window, bucket}, Start: start, Steps: steps}
}

// model is the brute-force counter: every view accepted, and the latest
// instant accepted, as UnixNano, if seen.
type model struct {
	n     int
	width int64
	views []view
	last  int64
	seen  bool
}

type view struct {
	at    int64 // UnixNano
	count int
}

// refuse returns the error a call at now must give, or "" if none.
func (m *model) refuse(now time.Time) errName {
	if now.Before(firstInstant) || now.After(lastInstant) {
		return outOfRange
	}
	if now.UnixNano() < m.last {
		return backwards
	}
	return ""
}

func (m *model) add(now time.Time, views int) timeline.Call[Counter] {
	if e := m.refuse(now); e != "" {
		return addFails(views, e)
	}
	if views < 0 {
		return addFails(views, negative)
	}
	m.last, m.seen = now.UnixNano(), true
	m.views = append(m.views, view{m.last, views})
	return add(views)
}

func (m *model) count(now time.Time) timeline.Call[Counter] {
	if e := m.refuse(now); e != "" {
		return countFails(e)
	}
	m.last, m.seen = now.UnixNano(), true
	k := floorDiv(m.last, m.width)
	total := 0
	for _, v := range m.views {
		// k - n < bucket(v) <= k, in unsigned arithmetic because the two
		// can be more than an int64 apart.
		if uint64(k)-uint64(floorDiv(v.at, m.width)) < uint64(m.n) {
			total += v.count
		}
	}
	return count(total)
}

// floorDiv returns a/b rounded down, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
