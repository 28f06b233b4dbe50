package spec

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// env is what a probe has besides the aggregator: e.New builds another.
type env = timeline.Env[Aggregator, time.Duration]

// forgetsZeroCounts checks part 1's "zero counts are forgotten". It sends
// 40,000 messages from distinct users, then 40,000 to distinct channels,
// one every millisecond in a one-second window, so the window never holds
// more than 1,000 messages, and measures the heap after each run. An
// aggregator that keeps a count of zero for every name it has seen holds
// 40,000 names more after each run: well over a megabyte. (The runs are
// no longer than that so that the case stays quick under -race.)
func forgetsZeroCounts(_ Aggregator, e env) error {
	const (
		window  = time.Second
		gap     = time.Millisecond // 1,000 messages in each window
		each    = 40_000
		maxGrow = 512 << 10 // bytes; the 1,000 messages of a window take far less
	)
	a := e.New(window)
	now := clock.Epoch
	send := func(n int, from func(i int) (user, channel string)) {
		for i := range n {
			now = now.Add(gap)
			user, channel := from(i)
			a.Record(Message{At: now, User: user, Channel: channel})
		}
	}
	distinctUsers := func(i int) (string, string) { return fmt.Sprintf("user-%d", i), "#lobby" }
	distinctChannels := func(i int) (string, string) { return "ann", fmt.Sprintf("#room-%d", i) }

	// A warm-up, so that every structure reaches its working size first.
	send(2_000, distinctUsers)
	send(2_000, distinctChannels)
	for _, run := range []struct {
		what string
		from func(i int) (string, string)
	}{
		{"distinct users in one channel", func(i int) (string, string) { return distinctUsers(each + i) }},
		{"one user in distinct channels", func(i int) (string, string) { return distinctChannels(each + i) }},
	} {
		before := timeline.LiveHeap()
		send(each, run.from)
		grew := int64(timeline.LiveHeap()) - int64(before)
		if grew > maxGrow {
			return fmt.Errorf("the heap grew by %.1f MB over %d messages from %s, with at most 1,000 of them in the window; want under %d KB: forget a name whose count drops to zero, and drop old messages in Record as well as in queries",
				float64(grew)/(1<<20), each, run.what, maxGrow>>10)
		}
	}
	runtime.KeepAlive(a)
	return nil
}

// The complexity cases size their input so that the right class of
// algorithm and the wrong one are far apart: ten thousand times or more in
// time. Each times its calls against a limit of its own, under the case's
// timeout (timeline.DefaultTimeout, 10s), and makes fewer calls under the
// race detector, which slows a fast query far more than a scan.
//
// Measured on the 2-core machine this was written on, at load averages of
// 5 to 25, 8 runs each, with and without -race (the reference's time is
// the timed calls only; the wrong class's is its pace, times the calls):
//
//	case                          limit  reference   wrong class
//	TopTalker, 100,000 calls      4s     1.8-11ms    a scan of every user: 5-9ms a call, 500-900s
//	  under -race, 50,000 calls   8s     13-29ms     64ms a call, 3,200s
//	TopTalkers(10), 4,000 calls   4s     2-14ms      a sort of every user: 110ms a call, 440s
//	  under -race, 1,000 calls    8s     4-80ms      1.2s a call, 1,200s
//
// So the reference stays 100 times or more under each limit, and the
// wrong class 100 times or more past it. It gives up at a 20th of the
// limit once its pace is ten times the limit, so a wrong class fails in
// under a second. The fill of 100,000 users, which both cases need, is
// not timed against the limit: it takes the reference 0.1-0.15s, and
// about 0.3s under -race.
const boundUsers = 100_000

// The calls each complexity case makes, and its limit: fewer calls and a
// longer limit under -race, which slows a fast call far more than a slow one.
var (
	boundTop      = 100_000 // TopTalker calls
	boundTopK     = 4_000   // TopTalkers(10) calls
	boundLimitTop = 4 * time.Second
)

func init() {
	if timeline.RaceEnabled {
		boundTop, boundTopK, boundLimitTop = 50_000, 1_000, 8*time.Second
	}
}

// boundNames are the users of the complexity cases, built once.
var boundNames = sync.OnceValue(func() []string {
	names := make([]string, boundUsers)
	for i := range names {
		names[i] = fmt.Sprintf("user%06d", i)
	}
	return names
})

// fillUsers records one message from each of boundUsers users, all in a
// one-hour window, and returns the instant after the last. Every user has
// one message: one tie of 100,000 users, which a bucket of equal counts
// that is not kept in order must also scan.
func fillUsers(e env) (Aggregator, time.Time) {
	a := e.New(time.Hour)
	now := clock.Epoch
	for i, name := range boundNames() {
		now = clock.Epoch.Add(time.Duration(i) * time.Microsecond)
		a.Record(Message{At: now, User: name, Channel: "#lobby"})
	}
	return a, now
}

// topTalkerIsLogU checks part 2's "amortized O(log U) per TopTalker":
// 100,000 calls over 100,000 users, with the answer checked on each.
func topTalkerIsLogU(_ Aggregator, e env) error {
	a, now := fillUsers(e)
	want := tk(boundNames()[0], 1)
	var wrong error
	err := timeline.WithinLimit(boundTop, boundLimitTop,
		fmt.Sprintf("%d TopTalker calls over %d users", boundTop, boundUsers),
		"the README asks for O(log U) per TopTalker or better, and a scan over every user is O(U)",
		func(int) {
			if got, ok := a.TopTalker(now); wrong == nil && (got != want || !ok) {
				wrong = fmt.Errorf("TopTalker(t=%v) = %v, %t, want %v, true: every user has one message, and the smallest name wins the tie", now.Sub(clock.Epoch), got, ok, want)
			}
		})
	return errors.Join(wrong, err)
}

// topTalkersIsKLogU checks part 3's "O(k log U) or better: do not sort
// every user to show ten": 2,000 calls of TopTalkers(10) over 100,000
// users.
func topTalkersIsKLogU(_ Aggregator, e env) error {
	a, now := fillUsers(e)
	want := make([]Talker, 10)
	for i := range want {
		want[i] = tk(boundNames()[i], 1)
	}
	var wrong error
	err := timeline.WithinLimit(boundTopK, boundLimitTop,
		fmt.Sprintf("%d TopTalkers(10) calls over %d users", boundTopK, boundUsers),
		"the README asks for O(k log U) or better, and sorting every user to show ten is O(U log U)",
		func(int) {
			if got := a.TopTalkers(now, 10); wrong == nil && !slices.Equal(got, want) {
				wrong = fmt.Errorf("TopTalkers(t=%v, 10) = %v, want %v: every user has one message, and the smallest names win the tie", now.Sub(clock.Epoch), got, want)
			}
		})
	return errors.Join(wrong, err)
}
