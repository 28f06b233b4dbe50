package spec

import (
	"fmt"
	"runtime"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// env is what a probe has besides the aggregator: e.New builds another.
type env = timeline.Env[Aggregator, time.Duration]

// panicsOnBadWindow checks that New(0) and New(-1s) panic, naming the value.
func panicsOnBadWindow(_ Aggregator, e env) error {
	return timeline.EachPanicsNaming("New", []time.Duration{0, -time.Second}, func(w time.Duration) { e.New(w) })
}

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
