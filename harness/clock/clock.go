// Package clock is the one source of time for the levels that keep their own
// (levels 7 and 8). It has no timers and no tickers on purpose: nothing in the
// ladder sleeps or runs in the background, and every structure catches up
// lazily when it is called.
//
// Levels 1 to 6 take the time as an argument instead, in the style of
// golang.org/x/time/rate's AllowN(t, n); the timeline runner drives both kinds
// from one Fake clock.
package clock

import (
	"fmt"
	"sync"
	"time"
)

// Clock tells the time. It is all a level needs from the outside world.
type Clock interface {
	Now() time.Time
}

// System is the real clock: time.Now, which carries a monotonic reading, so
// differences between two of its instants are not disturbed by changes to the
// wall clock.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// Epoch is the instant a Fake starts at, and offset 0 of every timeline: the
// Unix epoch, 1970-01-01 00:00:00 UTC. It is aligned to every window a level
// can ask for, and it is where a zero timestamp used as "never" goes wrong.
var Epoch = time.Unix(0, 0).UTC()

// BenchStart is where every benchmark's clock starts: a working morning in
// this century, not the epoch, so that the code runs at the times it will
// meet in service. Near the epoch, a week back is before 1970, and code
// indexed by absolute time takes paths it never takes in production.
var BenchStart = time.Date(2025, time.March, 3, 9, 30, 0, 0, time.UTC)

// Fake is a clock that moves only when told to. It is safe for concurrent
// use, so one goroutine can move it while others read it.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a Fake that reads Epoch.
func NewFake() *Fake { return &Fake{now: Epoch} }

// Now returns the fake's current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the fake forward by d. A negative d panics: use Set to move
// time backwards on purpose.
func (f *Fake) Advance(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("clock: Fake.Advance(%v): negative duration; use Set to go back in time", d))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// Set moves the fake to t, forwards or backwards. Going backwards is allowed
// because some levels must cope with a clock that does.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = t
}
