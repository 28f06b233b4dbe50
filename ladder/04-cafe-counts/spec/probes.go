package spec

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// env is what a probe has besides the café: e.New builds another.
type env = timeline.Env[Cafe, time.Duration]

// menu is a hundred drink names, made once so that ordering them in the
// probes and the benchmark allocates nothing on the caller's side.
var menu = func() []string {
	names := make([]string, 100)
	for i := range names {
		names[i] = "drink " + strconv.Itoa(i)
	}
	return names
}()

// newPanics checks that New rejects a window that is not positive, and
// names the value in its message.
func newPanics(_ Cafe, e env) error {
	return timeline.EachPanicsNaming("New", []time.Duration{0, -sec}, func(w time.Duration) { e.New(w) })
}

// steadyStateAllocs checks part 1's memory rule: a café that has seen a
// full window of steady orders reuses its memory. A queue that re-slices
// (q = q[1:]) and appends reallocates now and then; over many orders, that
// shows.
func steadyStateAllocs(_ Cafe, e env) error {
	const (
		window     = time.Second
		gap        = time.Millisecond // 1,000 orders in every window
		ordersEach = 20_000
	)
	c := e.New(window)
	now := clock.Epoch
	i := 0
	orderFor := func(n int) {
		for range n {
			now = now.Add(gap)
			drink := menu[i%len(menu)]
			i++
			c.Order(now, drink)
			c.Count(now, drink)
			c.Total(now)
		}
	}
	orderFor(5_000) // fill the window a few times over
	allocs := testing.AllocsPerRun(5, func() { orderFor(ordersEach) })
	if allocs > 0 {
		return fmt.Errorf("%v allocations per %d orders of %d drinks in steady state (1,000 orders in each window), want 0: reuse the queue's memory (see part 1 of the README)",
			allocs, ordersEach, len(menu))
	}
	return nil
}

// forgottenDrinksFreed checks part 2's memory rule: a café that forgets a
// drink when its count falls to zero holds memory for the orders in the
// window, not for every drink it ever saw.
func forgottenDrinksFreed(_ Cafe, e env) error {
	const (
		window   = time.Second
		gap      = time.Millisecond // 1,000 orders in every window
		drinks   = 100_000          // each ordered once
		limitKiB = 1024             // a right café holds about 100 KiB
	)
	before := timeline.LiveHeap()
	c := e.New(window)
	now := clock.Epoch
	for i := range drinks {
		now = now.Add(gap)
		c.Order(now, "drink "+strconv.Itoa(i))
	}
	after := timeline.LiveHeap()
	runtime.KeepAlive(c)
	if grew := (int64(after) - int64(before)) / 1024; grew > limitKiB {
		return fmt.Errorf("the café holds %d KiB after %d different drinks, one order each, with %d of them in the window; want at most %d KiB: forget a drink when its count falls to zero (see part 2 of the README)",
			grew, drinks, int(window/gap), limitKiB)
	}
	return nil
}
