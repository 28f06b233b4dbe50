package spec

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// env is what a probe has besides the logger: e.New builds another.
type env = timeline.Env[Logger, time.Duration]

// burstThenOneCall checks part 2's bound after a burst: 5,000 distinct
// messages at t=0, then one call two intervals later. Every message of the
// burst was printed at or before now - 2 x interval, so none may be left.
func burstThenOneCall(_ Logger, e env) error {
	const (
		interval = time.Second
		burst    = 5_000
	)
	l := e.New(interval)
	messages := make([]string, burst)
	for i := range messages {
		messages[i] = "request " + strconv.Itoa(i) + " failed"
	}
	for _, m := range messages {
		if !l.ShouldPrint(clock.Epoch, m) {
			return fmt.Errorf("ShouldPrint(t=0s, %q) = false, want true: it is the first call with that message", m)
		}
	}
	if got := l.Len(); got != burst {
		return fmt.Errorf("Len() = %d after %d distinct messages at t=0s, want %d: every one of them is blocked", got, burst, burst)
	}
	if !l.ShouldPrint(clock.Epoch.Add(2*interval), "one more") {
		return fmt.Errorf(`ShouldPrint(t=2s, "one more") = false, want true: it is the first call with that message`)
	}
	if got := l.Len(); got != 1 {
		return fmt.Errorf("Len() = %d after %d distinct messages at t=0s and one more at t=2s (interval 1s), want 1: "+
			"a message last printed at or before now - 2 x interval must be forgotten, and the new one must be remembered", got, burst)
	}
	return nil
}

// steadyStream checks part 2's bound all along a long run: one fresh
// message every 10 milliseconds for 50 intervals of a second, with a message
// that repeats on every call. After each call, Len must be at least the
// messages printed in the last interval (they are all blocked) and at most
// those printed in the last two.
func steadyStream(_ Logger, e env) error {
	const (
		interval    = time.Second
		gap         = 10 * time.Millisecond
		perInterval = int(interval / gap)
		calls       = 50 * perInterval
		hot         = "heartbeat"
	)
	l := e.New(interval)
	for i := range calls {
		now := clock.Epoch.Add(time.Duration(i) * gap)
		// The heartbeat prints on the first call of every second, and is
		// refused on the other 99.
		if got, want := l.ShouldPrint(now, hot), i%perInterval == 0; got != want {
			return fmt.Errorf("ShouldPrint(t=%v, %q) = %v, want %v: it is called every %v with a 1s interval", now.Sub(clock.Epoch), hot, got, want, gap)
		}
		m := "request " + strconv.Itoa(i)
		if !l.ShouldPrint(now, m) {
			return fmt.Errorf("ShouldPrint(t=%v, %q) = false, want true: it is the first call with that message", now.Sub(clock.Epoch), m)
		}
		// The heartbeat is always blocked, so it adds one to both bounds.
		lo, hi := 1+min(i+1, perInterval), 1+min(i+1, 2*perInterval)
		if got := l.Len(); got < lo || got > hi {
			return fmt.Errorf("Len() = %d at t=%v, after one fresh message every %v and a heartbeat (interval 1s), want between %d and %d: "+
				"at least every message printed in the last interval, at most those of the last two", got, now.Sub(clock.Epoch), gap, lo, hi)
		}
	}
	return nil
}
