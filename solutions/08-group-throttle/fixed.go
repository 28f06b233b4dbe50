// Read this first: the fixed window, the simplest algorithm. Windows are
// [k·Per, (k+1)·Per), counted from the Unix epoch, and a client keeps the
// last instant of its current window and the requests charged in it.
// Keeping the last instant rather than k means a request only compares;
// no division is needed until a window ends.

package throttle

import "math"

// fixed is a FixedWindow Limit: the rule of its windows.
type fixed struct{ requests, per int64 }

// fixedWindow is one client's or group's window.
type fixedWindow struct {
	last int64 // the last instant of the window of the latest charge, math.MaxInt64 if it ends past the range
	used int64 // the requests charged in it
}

func (f *fixed) fresh(now int64) fixedWindow { return fixedWindow{last: lastOf(now, f.per)} }

func (f *fixed) room(w fixedWindow, now int64) int64 {
	if now > w.last {
		return f.requests // a later window, which starts empty
	}
	return f.requests - w.used
}

func (f *fixed) charge(w fixedWindow, now, n int64) fixedWindow {
	if now > w.last {
		w.last, w.used = lastOf(now, f.per), 0
	}
	w.used += n
	return w
}

// wait is the time to the window's end: a denial is always in the window
// of the latest charge. The window may end past the last instant an int64
// holds; then the wait comes from now's place in it.
func (f *fixed) wait(w fixedWindow, now, _ int64) int64 {
	if w.last < math.MaxInt64 {
		return w.last - now + 1
	}
	return f.per - floorMod(now, f.per)
}

// idleAfter is the window's end: the next one starts empty.
func (f *fixed) idleAfter(w fixedWindow) int64 { return w.last }
