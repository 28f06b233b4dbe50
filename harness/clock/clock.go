// Package clock is the source of time for the levels that keep their own
// (levels 7 and 8); it has no timers on purpose, as nothing in the ladder
// sleeps.
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

// System is the real clock: time.Now.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// Epoch is the instant a Fake starts at, and offset 0 of every timeline: the
// Unix epoch, where a zero timestamp used as "never" goes wrong.
var Epoch = time.Unix(0, 0).UTC()

// BenchStart is where every benchmark's clock starts: a time of this
// century, as in service, not the epoch.
var BenchStart = time.Date(2025, time.March, 3, 9, 30, 0, 0, time.UTC)

// Fake is a clock that moves only when told to; it is safe for concurrent use.
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

// Set moves the fake to t, forwards or backwards.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = t
}
