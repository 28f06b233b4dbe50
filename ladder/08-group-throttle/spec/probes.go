package spec

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// env is what a probe has besides the throttler: e.Clock, the case's
// clock, which the probes set themselves.
type env = timeline.Env[Throttler, limits.Config]

// manyClients are the client names of the flood probes, made once.
var manyClients = sync.OnceValue(func() []string {
	names := make([]string, 100_000)
	for i := range names {
		names[i] = fmt.Sprintf("client-%06d", i)
	}
	return names
})

// exactUnderConcurrency checks part 5's exactness: 8 goroutines send 250
// requests each to one client whose limit is 1,000, at one instant. Exactly
// 1,000 are allowed, and their Remaining values are 999 down to 0, each
// once: a lost update shows as a repeated value. Meanwhile every goroutine
// also adds new clients, so the client table grows while others read it.
// The same again two minutes later, when every algorithm is fresh.
func exactUnderConcurrency(th Throttler, e env) error {
	const goroutines, each, limit = 8, 250, 1000
	for round, offset := range []time.Duration{0, 2 * minute} {
		e.Clock.Set(clock.Epoch.Add(offset))
		remaining := make([][]int, goroutines)
		wrongNew := make([]string, goroutines)
		timeline.Parallel(goroutines, func(g int) {
			for i := range each {
				if d := th.Allow("hot"); d.Allowed {
					remaining[g] = append(remaining[g], d.Remaining)
				}
				name := fmt.Sprintf("new-%d-%d-%d", round, g, i)
				if d := th.Allow(name); d != ok(limit-1) && wrongNew[g] == "" {
					wrongNew[g] = fmt.Sprintf("Allow(%q) = %v for a new client, want %v", name, d, ok(limit-1))
				}
			}
		})
		at := timeline.Offset(offset)
		for _, w := range wrongNew {
			if w != "" {
				return fmt.Errorf("at t=%s, with %d goroutines: %s", at, goroutines, w)
			}
		}
		all := slices.Concat(remaining...)
		if len(all) != limit {
			return fmt.Errorf("at t=%s, %d goroutines sent %d requests for one client with a limit of %d: %d were allowed, want exactly %d",
				at, goroutines, goroutines*each, limit, len(all), limit)
		}
		slices.Sort(all)
		for i, r := range all {
			if r != i {
				return fmt.Errorf("at t=%s, the %d allowed requests had Remaining values %s, want 0 to %d each once: two requests saw the same count",
					at, limit, summarize(all), limit-1)
			}
		}
	}
	return nil
}

// summarize writes a sorted list of numbers short: its first repeated
// value, or its ends.
func summarize(xs []int) string {
	for i := 1; i < len(xs); i++ {
		if xs[i] == xs[i-1] {
			return fmt.Sprintf("from %d to %d with %d twice", xs[0], xs[len(xs)-1], xs[i])
		}
	}
	return fmt.Sprintf("from %d to %d", xs[0], xs[len(xs)-1])
}

// groupMembers are the clients of the group in a groupLoad check.
var groupMembers = []string{"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7"}

// groupLoad is a check that a group stays all or nothing under
// concurrency: 8 members of a group of perGroup per 10s, each with
// perClient a minute of its own, send each requests at once.
type groupLoad struct{ each, perClient, perGroup int }

// inProcessGroup is part 5's load: 1,200 requests, 500 allowed. The Redis
// form, where each request is a round trip, runs a smaller one.
var inProcessGroup = groupLoad{each: 150, perClient: 100, perGroup: 500}

// config is the config the check runs on.
func (l groupLoad) config() limits.Config {
	return limits.Config{
		PerClient: fixed(l.perClient, minute),
		Groups:    []limits.Group{group("team", fixed(l.perGroup, 10*sec), groupMembers...)},
	}
}

// probe checks that exactly perGroup are allowed, none of them beyond a
// member's perClient. At 10s the group is fresh and the members' own
// windows are not: each must still have exactly what it did not use,
// because a denial charged nothing.
func (l groupLoad) probe(th Throttler, e env) error {
	each, perClient, perGroup := l.each, l.perClient, l.perGroup
	e.Clock.Set(clock.Epoch)
	allowed := make([]int, len(groupMembers))
	timeline.Parallel(len(groupMembers), func(g int) {
		for range each {
			if th.Allow(groupMembers[g]).Allowed {
				allowed[g]++
			}
		}
	})
	total := 0
	for g, n := range allowed {
		if n > perClient {
			return fmt.Errorf("client %q was allowed %d of its %d requests, want at most its own limit of %d", groupMembers[g], n, each, perClient)
		}
		total += n
	}
	if total != perGroup {
		return fmt.Errorf("8 clients of one group sent %d requests each at once: %d were allowed (%v), want exactly the group's %d",
			each, total, allowed, perGroup)
	}
	e.Clock.Set(clock.Epoch.Add(10 * sec))
	for g, name := range groupMembers {
		left := perClient - allowed[g]
		if left == 0 {
			continue
		}
		if d := th.AllowN(name, left); !d.Allowed {
			return fmt.Errorf("at t=10s, AllowN(%q, %d) = %v, want allowed: %q was allowed %d at t=0, so %d are left this minute unless a denial charged it",
				name, left, d, name, allowed[g], left)
		}
		if d := th.Allow(name); d.Allowed {
			return fmt.Errorf("at t=10s, Allow(%q) = %v after it used all %d of its own limit, want denied", name, d, perClient)
		}
	}
	return nil
}

// idleClientsForgotten: 100,000 clients make one request each at t=0, time
// passes beyond 2·Per, then one more client asks. Only that one may still
// be held.
func idleClientsForgotten(th Throttler, e env) error {
	e.Clock.Set(clock.Epoch)
	names := manyClients()
	for _, name := range names {
		if d := th.Allow(name); d != ok(4) {
			return fmt.Errorf("at t=0, Allow(%q) = %v for a new client, want %v", name, d, ok(4))
		}
	}
	if n := lenOf(th); n != len(names) {
		return fmt.Errorf("at t=0, Len() = %v after %d clients made a request each, want %d: none of them is fresh yet", n, len(names), len(names))
	}
	e.Clock.Set(clock.Epoch.Add(2*sec + ns))
	if d := th.Allow("late"); d != ok(4) {
		return fmt.Errorf("at t=2.000000001s, Allow(%q) = %v, want %v", "late", d, ok(4))
	}
	if n := lenOf(th); n != 1 {
		return fmt.Errorf("at t=2.000000001s, Len() = %v, want 1: the %d clients of t=0 made no request in (1ns, 2.000000001s] and must be forgotten", n, len(names))
	}
	return nil
}

// busyClientKept: a client drains its bucket, then 100,000 new clients
// arrive. The busy client must still be denied: forgetting it to make room
// would hand it a fresh burst.
func busyClientKept(th Throttler, e env) error {
	e.Clock.Set(clock.Epoch)
	if d := th.AllowN("busy", 10); d != ok(0) {
		return fmt.Errorf("at t=0, AllowN(%q, 10) = %v, want %v", "busy", d, ok(0))
	}
	e.Clock.Set(clock.Epoch.Add(sec))
	for _, name := range manyClients() {
		if d := th.Allow(name); d != ok(9) {
			return fmt.Errorf("at t=1s, Allow(%q) = %v for a new client, want %v", name, d, ok(9))
		}
	}
	want := no(0, 5*sec) // one token every 6s; a sixth of one is there
	if d := th.Allow("busy"); d != want {
		return fmt.Errorf("at t=1s, after 100,000 new clients, Allow(%q) = %v, want %v: the flood must not reset a busy client", "busy", d, want)
	}
	return nil
}

// lenBesideAllow calls Len from 4 goroutines while 4 others send one
// request each from 100 new clients, at one instant. The clock stands
// still, so no state becomes fresh: each Len counts the clients whose
// request is done, at least every one done before Len began, so one
// goroutine's readings never fall, and at the end Len is 400. A Len that
// reads the table without its lock is what the race detector finds here.
func lenBesideAllow(th Throttler, e env) error {
	const writers, each, readers, reads = 4, 100, 4, 20
	e.Clock.Set(clock.Epoch)
	wrong := make([]string, writers+readers)
	timeline.Parallel(writers+readers, func(g int) {
		if g < writers {
			for i := range each {
				name := fmt.Sprintf("len-%d-%d", g, i)
				if d := th.Allow(name); d != ok(4) && wrong[g] == "" {
					wrong[g] = fmt.Sprintf("Allow(%q) = %v for a new client, want %v", name, d, ok(4))
				}
			}
			return
		}
		last := 0
		for range reads {
			n, isInt := lenOf(th).(int)
			switch {
			case !isInt:
				wrong[g] = fmt.Sprint(lenOf(th))
				return
			case n < last || n > writers*each:
				wrong[g] = fmt.Sprintf("Len() = %d after Len() = %d in the same goroutine, while new clients asked: want from %d to %d", n, last, last, writers*each)
				return
			}
			last = n
		}
	})
	for _, w := range wrong {
		if w != "" {
			return fmt.Errorf("at t=0s, with %d goroutines calling Allow and %d calling Len: %s", writers, readers, w)
		}
	}
	if n := lenOf(th); n != writers*each {
		return fmt.Errorf("at t=0s, Len() = %v after %d new clients asked once each, want %d", n, writers*each, writers*each)
	}
	return nil
}
