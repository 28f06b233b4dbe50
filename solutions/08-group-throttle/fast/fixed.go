package fast

// fixed counts requests in windows [k·Per, (k+1)·Per) counted from the
// Unix epoch.
type fixed struct{ rule }

// fixedState is one client's or group's window.
type fixedState struct {
	last int64 // the last instant of the window of the latest charge, at most math.MaxInt64
	used int64 // the requests charged in that window
}

func (a *fixed) fresh(now int64) fixedState { return fixedState{last: lastOf(now, a.per)} }

func (a *fixed) room(st *fixedState, now int64) int64 {
	if now > st.last {
		return a.requests // a later window
	}
	return a.requests - st.used
}

func (a *fixed) charge(st *fixedState, now, n int64) {
	if now > st.last {
		*st = a.fresh(now)
	}
	st.used += n
}

func (a *fixed) take(st *fixedState, now, n int64) (room, at int64) {
	if now > st.last {
		if n <= a.requests {
			*st = fixedState{last: lastOf(now, a.per), used: n}
		}
		return a.requests, now
	}
	if now <= st.last-a.per || st.last == maxInstant { // before the window, or near 2262
		now = max(now, a.from(st))
	}
	if room = a.requests - st.used; n <= room {
		st.used += n
	}
	return room, now
}

// wait is the time to the window's end. A denial happens only inside the
// window of the latest charge; the window may end past the last instant an
// int64 holds, so the wait comes from now's place in it, not from last.
func (a *fixed) wait(st *fixedState, now, _ int64) int64 {
	if st.last < maxInstant {
		return st.last - now + 1
	}
	return a.per - floorMod(now, a.per)
}

func (a *fixed) stamp(st *fixedState) int64 { return st.last }
func (a *fixed) from(st *fixedState) int64  { return spanStart(st.last, a.per) }
