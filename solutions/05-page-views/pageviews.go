// Package pageviews is the reference solution of level 5: the page views of
// the last window, kept in a fixed ring of time buckets with a running total.
package pageviews

import (
	"fmt"
	"math"
	"time"

	"github.com/rateladder/rateladder/ladder/05-page-views/viewerr"
)

// The errors Add and Count return. A call that returns one of them changes
// nothing. They are defined once, in package viewerr, and shared with the
// spec, which tells them apart with errors.Is.
var (
	// ErrTimeWentBackwards means now is earlier than the latest instant
	// the counter has accepted.
	ErrTimeWentBackwards = viewerr.ErrTimeWentBackwards
	// ErrNegativeViews means Add was given fewer than zero views.
	ErrNegativeViews = viewerr.ErrNegativeViews
	// ErrTimeOutOfRange means now is outside the instants the counter
	// accepts: those whose UnixNano is defined, from 1677-09-21T00:12:43.145224192Z
	// to 2262-04-11T23:47:16.854775807Z.
	ErrTimeOutOfRange = viewerr.ErrTimeOutOfRange
)

// The first and last instants the counter accepts: UnixNano is defined
// between them and nowhere else.
var (
	earliest = time.Unix(0, math.MinInt64)
	latest   = time.Unix(0, math.MaxInt64)
)

// Counter counts the page views of the last window, at bucket granularity:
// time is cut into buckets [k×bucket, (k+1)×bucket) counted from the Unix
// epoch, and Count(now) is the sum of the n = window/bucket buckets that
// end with now's bucket.
//
// Memory is n ints, fixed by New. Each call first moves the ring forward to
// now's bucket, emptying the buckets that left the window and subtracting
// them from the running total, so Count only reads the total. A zero
// Counter is not usable; call New.
type Counter struct {
	width int64 // bucket width in nanoseconds
	ring  []int // views per bucket; ring[head] is the current bucket
	head  int
	total int   // the sum of ring, kept up to date so that Count never sums
	cur   int64 // index of the current bucket, counted from the epoch
	last  int64 // UnixNano of the latest instant accepted
}

// New returns a Counter of the views in the last window, in buckets of the
// given width. It panics unless bucket > 0 and window is a positive whole
// multiple of bucket.
func New(window, bucket time.Duration) *Counter {
	if bucket <= 0 {
		panic(fmt.Sprintf("pageviews.New: bucket must be positive, got %v", bucket))
	}
	if window <= 0 || window%bucket != 0 {
		panic(fmt.Sprintf("pageviews.New: window must be a positive whole multiple of the bucket, got window %v and bucket %v", window, bucket))
	}
	return &Counter{
		width: int64(bucket),
		ring:  make([]int, window/bucket),
		// Start at the earliest instant accepted: the first call is then
		// never backwards, and needs no special case.
		last: math.MinInt64,
		cur:  floorDiv(math.MinInt64, int64(bucket)),
	}
}

// Add records views page views at now, all at once. It returns
// ErrTimeOutOfRange, ErrTimeWentBackwards or ErrNegativeViews, checked in
// that order, and then changes nothing.
func (c *Counter) Add(now time.Time, views int) error {
	t, err := c.check(now)
	if err != nil {
		return err
	}
	if views < 0 {
		return ErrNegativeViews
	}
	c.advance(t)
	c.ring[c.head] += views
	c.total += views
	return nil
}

// Count returns the views in the n buckets that end with now's bucket. It
// returns 0 and ErrTimeOutOfRange or ErrTimeWentBackwards, checked in that
// order, and then changes nothing.
func (c *Counter) Count(now time.Time) (int, error) {
	t, err := c.check(now)
	if err != nil {
		return 0, err
	}
	c.advance(t)
	return c.total, nil
}

// check returns now as nanoseconds since the epoch, or the error that
// rejects it. It changes nothing, so a rejected call leaves no trace.
func (c *Counter) check(now time.Time) (int64, error) {
	if now.Before(earliest) || now.After(latest) {
		return 0, ErrTimeOutOfRange
	}
	t := now.UnixNano()
	// Instants, not buckets: an earlier time in the same bucket is still
	// time going backwards.
	if t < c.last {
		return 0, ErrTimeWentBackwards
	}
	return t, nil
}

// advance moves the ring forward to the bucket of t, which is not before
// the current one, emptying every bucket that leaves the window on the way.
func (c *Counter) advance(t int64) {
	c.last = t
	k := floorDiv(t, c.width)
	// With 1ns buckets, k and c.cur can be up to 2^64-1 apart, more than
	// an int64 holds; since k >= c.cur, the unsigned difference is exact.
	gap := uint64(k) - uint64(c.cur)
	c.cur = k
	if gap >= uint64(len(c.ring)) {
		// Every bucket has left the window: one reset, however long the
		// gap, instead of a loop over it.
		clear(c.ring)
		c.total, c.head = 0, 0
		return
	}
	for range gap {
		c.head++
		if c.head == len(c.ring) {
			c.head = 0
		}
		c.total -= c.ring[c.head]
		c.ring[c.head] = 0
	}
}

// floorDiv returns a/b rounded down, for b > 0. Go's / rounds toward zero,
// which would put -0.5s and 0.5s in the same one-second bucket.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
