// Read this first: the fixed window, the simplest algorithm. Windows are
// [k·Per, (k+1)·Per), counted from the Unix epoch, and a client keeps the
// last instant of its current window and the requests charged in it.
// Keeping the last instant rather than k means a request only compares;
// no division is needed until a window ends.

package throttle

import "math"

// fixed is a FixedWindow Limit.
type fixed struct{ requests, per int64 }

// fixedWindow is one client's or group's window.
type fixedWindow struct {
	*fixed
	last int64 // the last instant of the window, math.MaxInt64 if it ends past the range
	used int64 // the requests charged in it
}

func (f *fixed) fresh(now int64) state { return &fixedWindow{fixed: f, last: lastOf(now, f.per)} }

func (w *fixedWindow) room(now int64) int64 {
	if now > w.last { // a later window
		w.last, w.used = lastOf(now, w.per), 0
	}
	return w.requests - w.used
}

func (w *fixedWindow) charge(_, n int64) { w.used += n }

// wait is the time to the window's end. The window may end past the last
// instant an int64 holds; then the wait comes from now's place in it.
func (w *fixedWindow) wait(now, _ int64) int64 {
	if w.last < math.MaxInt64 {
		return w.last - now + 1
	}
	return w.per - floorMod(now, w.per)
}

// idleAfter is the window's end: the next one starts empty.
func (w *fixedWindow) idleAfter() int64 { return w.last }
