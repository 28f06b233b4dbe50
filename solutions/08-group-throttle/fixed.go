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
	last int64 // the last instant of the window of the latest charge, math.MaxInt64 if it ends past the range
	used int64 // the requests charged in it
}

func (f *fixed) fresh(now int64) fixedWindow {
	return fixedWindow{fixed: f, last: lastOf(now, f.per)}
}

func (w fixedWindow) room(now int64) int64 {
	if now > w.last {
		return w.requests // a later window, which starts empty
	}
	return w.requests - w.used
}

func (w fixedWindow) charge(now, n int64) fixedWindow {
	if now > w.last {
		w.last, w.used = lastOf(now, w.per), 0
	}
	w.used += n
	return w
}

// wait is the time to the window's end: a denial is always in the window
// of the latest charge. The window may end past the last instant an int64
// holds; then the wait comes from now's place in it.
func (w fixedWindow) wait(now, _ int64) int64 {
	if w.last < math.MaxInt64 {
		return w.last - now + 1
	}
	return w.per - floorMod(now, w.per)
}

// idleAfter is the window's end: the next one starts empty.
func (w fixedWindow) idleAfter() int64 { return w.last }
