package spec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
	throttlespec "github.com/rateladder/rateladder/ladder/08-group-throttle/spec"
)

// redisCases are the Redis form's cases on backend b: the in-memory
// throttler's timelines that apply, as part 6, then parts 6 to 8's own.
func redisCases(newT redisCtor, b *backend) []timeline.Case[Throttler] {
	out := throttlespec.Cases(b.syncCtor(newT), redisSkips)
	for i := range out {
		out[i].Part = 6 // the same decisions as in memory
	}
	return append(out, redisOnly(newT, b)...)
}

// redisCase is a case of parts 6 to 8: a throttler for cfg built on b with
// the harness clock, steps, and a probe that may build more.
type redisCase struct {
	name  string
	part  int
	cfg   limits.Config
	steps []step
	start time.Time // offset 0; the zero Time is clock.Epoch
	probe func(th syncThrottler, clk *clock.Fake) error
}

func (rc redisCase) bind(newT redisCtor, b *backend) timeline.Case[Throttler] {
	c := timeline.Case[Throttler]{
		Name: rc.name, Part: rc.part, Setup: throttlespec.Describe(rc.cfg) + " on " + b.name, Clocked: true, Steps: rc.steps, Start: rc.start,
		New: func(clk clock.Clock) Throttler {
			th, err := b.syncCtor(newT)(clk, rc.cfg)
			if err != nil {
				panic(fmt.Sprintf("New returned an error for a valid config: %v", err))
			}
			return th
		},
	}
	if rc.probe != nil {
		c.Probe = func(th Throttler, clk *clock.Fake) error { return rc.probe(th.(syncThrottler), clk) }
	}
	return c
}

func redisOnly(newT redisCtor, b *backend) []timeline.Case[Throttler] {
	team := limits.Config{
		PerClient: fixed(3, minute),
		Groups:    []limits.Group{group("team", fixed(3, minute), "m1", "m2", "{team}")},
	}
	groupCfg, groupProbe := throttlespec.GroupUnderConcurrency()
	var out []timeline.Case[Throttler]
	for _, rc := range []redisCase{
		// Part 6: one atomic decision, one round trip.
		{
			name: "one round trip per decision", part: 6,
			cfg: limits.Config{
				PerClient: fixed(3, minute),
				Groups:    []limits.Group{group("team", token(5, minute), "alice", "bob")},
			},
			probe: func(_ syncThrottler, clk *clock.Fake) error { return oneRoundTrip(newT, b, clk, false) },
		},
		{
			// TIME belongs in the script, not in a round trip of its own.
			name: "one round trip per decision, on the server's time", part: 6,
			cfg: limits.Config{
				PerClient: fixed(3, minute),
				Groups:    []limits.Group{group("team", token(5, minute), "alice", "bob")},
			},
			probe: func(_ syncThrottler, clk *clock.Fake) error { return oneRoundTrip(newT, b, clk, true) },
		},
		{
			name: "the script is sent once, then called by its SHA1", part: 6, cfg: only(fixed(3, minute)),
			probe: func(_ syncThrottler, clk *clock.Fake) error { return scriptSentOnce(newT, b, clk) },
		},
		{
			// The README's SCRIPT FLUSH example.
			name: "a SCRIPT FLUSH is recovered without losing state", part: 6, cfg: only(fixed(5, minute)),
			steps: steps(
				at(0, allowN("alice", 3, ok(2))),
				at(0, scriptFlush(b)),
				at(sec, allow("alice", ok(1))), // the script is sent again
				at(sec, scriptFlush(b)),
				at(2*sec, allowN("alice", 2, no(1, 58*sec))),
				at(minute, allowN("alice", 5, ok(0))),
			),
		},
		{
			name: "by default the time is the server's, fixed window", part: 6, cfg: only(fixed(2, hour)),
			probe: func(_ syncThrottler, _ *clock.Fake) error { return serverTime(newT, b, fixed(2, hour)) },
		},
		{
			name: "by default the time is the server's, sliding window", part: 6, cfg: only(sliding(2, hour, 2)),
			probe: func(_ syncThrottler, _ *clock.Fake) error { return serverTime(newT, b, sliding(2, hour, 2)) },
		},
		{
			name: "by default the time is the server's, token bucket", part: 6, cfg: only(token(2, hour)),
			probe: func(_ syncThrottler, _ *clock.Fake) error { return serverTime(newT, b, token(2, hour)) },
		},
		// The ends of the time a time.Time holds in int64 nanoseconds, as
		// the harness clock passes it in: far above 2^53 ns either way.
		{
			name: "the first instant of int64 time, in 1677, fixed window", part: 6, cfg: only(fixed(2, hour)), start: firstInstant,
			steps: steps(
				at(0, allowN("alice", 2, ok(0))),
				at(0, allow("alice", no(0, toFirstHour))), // the hour ends at 01:00:00
				at(toFirstHour-ns, allow("alice", no(0, ns))),
				at(toFirstHour, allow("alice", ok(1))),
			),
		},
		{
			name: "the first instant of int64 time, in 1677, sliding window", part: 6, cfg: only(sliding(2, hour, 2)), start: firstInstant,
			steps: steps(
				at(0, allowN("alice", 2, ok(0))),
				// From 01:00 the 2 weigh 2·(60m−x)/60m, rounded up: 1 from x = 30m.
				at(0, allow("alice", no(0, toFirstHour+30*minute))),
				at(toFirstHour+30*minute-ns, allow("alice", no(0, ns))),
				at(toFirstHour+30*minute, allow("alice", ok(0))),
			),
		},
		{
			name: "the first instant of int64 time, in 1677, token bucket", part: 6, cfg: only(token(2, hour)), start: firstInstant,
			steps: steps(
				at(0, allowN("alice", 2, ok(0))),
				at(0, allow("alice", no(0, 30*minute))),
				at(30*minute-ns, allow("alice", no(0, ns))),
				at(30*minute, allow("alice", ok(0))),
			),
		},
		{
			name: "up to the last instant of int64 time, in 2262, fixed window", part: 6, cfg: only(fixed(2, hour)), start: lastHour,
			steps: steps(
				at(10*minute, allowN("alice", 2, ok(0))),
				at(10*minute, allow("alice", no(0, 50*minute))),
				// The window ends after the last instant: RetryAfter is still exact.
				at(toLastInstant, allow("alice", no(0, hour-toLastInstant))),
			),
		},
		{
			name: "up to the last instant of int64 time, in 2262, sliding window", part: 6, cfg: only(sliding(2, hour, 2)), start: lastHour,
			steps: steps(
				at(10*minute, allowN("alice", 2, ok(0))),
				at(10*minute, allow("alice", no(0, 80*minute))),
				at(toLastInstant, allow("alice", no(0, hour-toLastInstant+30*minute))),
			),
		},
		{
			name: "up to the last instant of int64 time, in 2262, token bucket", part: 6, cfg: only(token(2, hour)), start: lastHour,
			steps: steps(
				at(10*minute, allowN("alice", 2, ok(0))),
				at(10*minute, allow("alice", no(0, 30*minute))),
				at(40*minute, allow("alice", ok(0))),
				at(toLastInstant, allow("alice", no(0, 30*minute-(toLastInstant-40*minute)))),
			),
		},
		{
			name: "a clock that goes back from 2262 to 1677: still denied, RetryAfter positive", part: 6, cfg: only(fixed(2, hour)),
			probe: func(_ syncThrottler, clk *clock.Fake) error { return centuriesBack(newT, b, clk) },
		},
		{
			name: "8 goroutines and 4 throttlers share one limit exactly, fixed window", part: 6, cfg: only(fixed(250, minute)),
			probe: onFleet(newT, b, only(fixed(250, minute)), fleetExact),
		},
		{
			name: "8 goroutines and 4 throttlers share one limit exactly, sliding window", part: 6, cfg: only(sliding(250, minute, 2)),
			probe: onFleet(newT, b, only(sliding(250, minute, 2)), fleetExact),
		},
		{
			name: "8 goroutines and 4 throttlers share one limit exactly, token bucket", part: 6, cfg: only(token(250, minute)),
			probe: onFleet(newT, b, only(token(250, minute)), fleetExact),
		},
		{
			name: "8 goroutines and 4 throttlers keep a group all or nothing", part: 6, cfg: groupCfg,
			probe: onFleet(newT, b, groupCfg, groupProbe),
		},
		{
			// Every case runs under a prefix of its own: part 6 needs it.
			name: "the prefix namespaces every key", part: 6, cfg: team,
			probe: func(_ syncThrottler, clk *clock.Fake) error { return prefixNamespaces(newT, b, clk, team) },
		},

		// Part 7: keys.
		{
			// The README's client names. Each has its own 3 a minute; a
			// name that shared a key with another, or with the group,
			// would be denied.
			name: "client IDs are data: braces, colons, newlines and every byte", part: 7, cfg: team,
			steps: steps(
				at(0, allowN("m1", 3, ok(0))), // the group "team" is used up
				trickyNames(sec),
				at(2*sec, allow("m2", no(0, 58*sec))),     // the group still denies
				at(2*sec, allow("{team}", no(0, 58*sec))), // a member named like a hash tag
				at(2*sec, allowN(allBytes(), 3, no(0, 58*sec))),
			),
		},
		{
			name: "all keys of one decision share a hash tag", part: 7, cfg: team,
			probe: func(_ syncThrottler, clk *clock.Fake) error { return sharedHashTag(newT, b, clk, team) },
		},
		{
			name: "every key has a TTL", part: 7, cfg: team,
			probe: func(_ syncThrottler, clk *clock.Fake) error { return everyKeyExpires(newT, b, clk) },
		},

		// Part 8: faults.
		{
			name: "a stopped server: an error within the deadline", part: 8, cfg: only(fixed(5, minute)),
			probe: func(_ syncThrottler, clk *clock.Fake) error { return stoppedServer(newT, clk, redisOpts{}) },
		},
		{
			name: "a server that never answers: an error at the context's deadline", part: 8, cfg: only(fixed(5, minute)),
			probe: func(_ syncThrottler, clk *clock.Fake) error {
				return silentServer(newT, clk, newClient, redisOpts{}, deadline)
			},
		},
		{
			// The README's go-redis client with its defaults: it reads
			// with a timeout of its own (3s) and ignores the context's
			// deadline, unless the throttler makes it hold.
			name: "a default go-redis client: the context's deadline still holds", part: 8, cfg: only(fixed(5, minute)),
			probe: func(_ syncThrottler, clk *clock.Fake) error {
				return silentServer(newT, clk, defaultClient, redisOpts{}, deadline)
			},
		},
		{
			name: "a call without a deadline of its own ends at WithTimeout", part: 8, cfg: only(fixed(5, minute)),
			probe: func(_ syncThrottler, clk *clock.Fake) error {
				return silentServer(newT, clk, newClient, redisOpts{timeout: deadline}, 0)
			},
		},
		{
			name: "FailOpen allows when Redis cannot decide", part: 8, cfg: only(fixed(5, minute)),
			probe: func(_ syncThrottler, clk *clock.Fake) error {
				return stoppedServer(newT, clk, redisOpts{failOpen: true})
			},
		},
		{
			name: "FailClosed denies with its RetryAfter when Redis cannot decide", part: 8, cfg: only(fixed(5, minute)),
			probe: func(_ syncThrottler, clk *clock.Fake) error {
				return stoppedServer(newT, clk, redisOpts{failClosed: 3 * sec})
			},
		},
		{
			name: "a key of the wrong type: an error, not a panic", part: 8, cfg: team,
			probe: func(th syncThrottler, clk *clock.Fake) error { return wrongType(th, clk) },
		},
		{
			name: "a sliding window of more than two buckets is refused", part: 8, cfg: only(sliding(40, 30*sec, 4)),
			probe: badRedisConfig(newT, b, only(sliding(40, 30*sec, 4)), "PerClient.Buckets"),
		},
		{
			name: "a group's sliding window of more than two buckets is refused", part: 8,
			cfg: limits.Config{
				PerClient: fixed(3, minute),
				Groups:    []limits.Group{group("team", sliding(100, minute, 61), "alice")},
			},
			probe: badRedisConfig(newT, b, limits.Config{
				PerClient: fixed(3, minute),
				Groups:    []limits.Group{group("team", sliding(100, minute, 61), "alice")},
			}, "Groups[0].Limit.Buckets"),
		},
	} {
		if rc.probe != nil && len(rc.steps) == 0 && strings.Contains(rc.name, "refused") {
			// A config check: New must fail, so the case builds nothing.
			c := rc.bind(newT, b)
			c.New = func(clock.Clock) Throttler { return nil }
			probe := rc.probe
			c.Probe = func(_ Throttler, clk *clock.Fake) error { return probe(syncThrottler{}, clk) }
			out = append(out, c)
			continue
		}
		out = append(out, rc.bind(newT, b))
	}
	return out
}

// The ends of int64 nanoseconds since 1970, the instants a clock can pass
// to UnixNano: firstInstant is 1677-09-21 00:12:43.145224192 UTC, the
// hour of 01:00 starts toFirstHour later; lastHour is 2262-04-11 23:00
// UTC, toLastInstant before the last instant, 23:47:16.854775807.
var (
	firstInstant  = time.Unix(0, math.MinInt64).UTC()
	toFirstHour   = 47*minute + 16*sec + 854775808*ns
	lastHour      = time.Date(2262, 4, 11, 23, 0, 0, 0, time.UTC)
	toLastInstant = 47*minute + 16*sec + 854775807*ns
)

// centuriesBack uses up a limit late in 2262, then sets the clock back to
// 1677, for each algorithm. Whatever a throttler makes of a clock that goes
// back, the used-up limit must stay used up, and the wait, from the
// clock's reading to the end of a window or a refill in 2262, is longer
// than int64 nanoseconds hold: it must not wrap around to a negative
// RetryAfter.
func centuriesBack(newT redisCtor, b *backend, clk *clock.Fake) error {
	for _, l := range []limits.Limit{fixed(2, hour), sliding(2, hour, 2), token(2, hour)} {
		th, err := b.syncCtor(newT)(clk, only(l))
		if err != nil {
			return fmt.Errorf("calling New: %v", err)
		}
		clk.Set(lastHour.Add(10 * minute))
		if d := th.AllowN("alice", 2); d != ok(0) {
			return fmt.Errorf("%v at %v: AllowN(%q, 2) = %v, want %v", l, clk.Now(), "alice", d, ok(0))
		}
		clk.Set(firstInstant)
		if d := th.Allow("alice"); d.Allowed || d.Remaining != 0 || d.RetryAfter <= 0 {
			return fmt.Errorf("%v, the clock set back from 2262 to %v: Allow(%q) = %v, want denied with 0 left and a positive RetryAfter", l, clk.Now(), "alice", d)
		}
	}
	return nil
}

// trickyNames are client names that a key built by pasting strings
// together would confuse with each other, with a group, or with a hash
// tag. Each gets its own limit of 3.
var trickyNames = func(offset time.Duration) []step {
	names := []string{
		"alice", "alice\n", "alice\x00", "alice\r\n", "{alice}", "{alice", "alice}", "}alice{", "{}", "{",
		"}", "a:b", "a:b:", ":a:b", "team", "{team", "team}", "gteam", "{gteam}", "{cteam}", "%", "%7D",
		"a}b", "a%7Db", "m1\n", "m1}", "", " ", "\xff\xfe", "throttle:{calice}", "*", "[a-z]", allBytes(),
	}
	var out []step
	for _, name := range names {
		out = append(out, at(offset, allowN(name, 3, ok(0))), at(offset, allow(name, no(0, minute-offset))))
	}
	return out
}

// allBytes is a client ID with every byte value, 0 to 255, once.
func allBytes() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}

// scriptFlush is a step that empties the server's script cache, as a
// restart or a failover to a replica does.
func scriptFlush(b *backend) call {
	return call{
		Method: "SCRIPT FLUSH",
		Do: func(Throttler, time.Time) any {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			if err := b.rdb.ScriptFlush(ctx).Err(); err != nil {
				return err.Error()
			}
			return nil
		},
		Want: nil,
	}
}

// oneRoundTrip counts the commands of 200 decisions, allowed and denied,
// by a client in a group and one in none: after the first (which may
// have to send the script), each is exactly one. With serverTime, the
// throttler has no harness clock and reads the server's TIME, which must
// happen inside the script, in the same round trip.
func oneRoundTrip(newT redisCtor, b *backend, clk *clock.Fake, serverTime bool) error {
	counter := &commandCounter{}
	rdb := newClient(b.addr)
	defer rdb.Close()
	rdb.AddHook(counter)
	cfg := limits.Config{
		PerClient: fixed(3, minute),
		Groups:    []limits.Group{group("team", token(5, minute), "alice", "bob")},
	}
	o := redisOpts{prefix: b.prefix(), clk: clk}
	on := "on the harness clock"
	if serverTime {
		o.clk, on = nil, "on the server's TIME"
	}
	th, err := newT(rdb, cfg, o)
	if err != nil {
		return fmt.Errorf("calling New: %v", err)
	}
	s := syncThrottler{th: th}
	s.Allow("warm-up")
	counter.reset()
	const decisions = 200
	for i := range decisions {
		clk.Set(clock.Epoch.Add(time.Duration(i) * sec))
		switch i % 3 {
		case 0:
			s.Allow("alice")
		case 1:
			s.AllowN("bob", 2)
		default:
			s.Allow(fmt.Sprintf("carol-%d", i%7))
		}
	}
	if trips, names := counter.reset(); trips != decisions {
		return fmt.Errorf("%d decisions %s took %d round trips (%v), want exactly %d: one atomic script call each", decisions, on, trips, names, decisions)
	}
	return nil
}

// scriptSentOnce empties the script cache, then counts the commands of 50
// decisions by a new throttler: the script's source goes to Redis once
// (EVAL, or SCRIPT LOAD), and every other call is EVALSHA, which sends
// 40 bytes of SHA1 where EVAL sends the whole script.
func scriptSentOnce(newT redisCtor, b *backend, clk *clock.Fake) error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := b.rdb.ScriptFlush(ctx).Err(); err != nil {
		return fmt.Errorf("SCRIPT FLUSH: %v", err)
	}
	counter := &commandCounter{}
	rdb := newClient(b.addr)
	defer rdb.Close()
	// A PING first, so that the connection's own handshake (HELLO,
	// CLIENT SETINFO) is over before the counting starts.
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("PING: %v", err)
	}
	rdb.AddHook(counter)
	th, err := newT(rdb, only(fixed(3, minute)), redisOpts{prefix: b.prefix(), clk: clk})
	if err != nil {
		return fmt.Errorf("calling New: %v", err)
	}
	s := syncThrottler{th: th}
	const decisions = 50
	for i := range decisions {
		clk.Set(clock.Epoch.Add(time.Duration(i) * sec))
		s.Allow(fmt.Sprintf("client-%d", i%5))
	}
	_, names := counter.reset()
	sent := 0
	for name, count := range names {
		switch name {
		case "EVALSHA", "EVALSHA_RO":
		case "EVAL", "EVAL_RO", "SCRIPT":
			sent += count
		default:
			return fmt.Errorf("after a SCRIPT FLUSH, New and %d decisions sent the commands %v, want only EVALSHA, and the source once: %s is neither", decisions, names, name)
		}
	}
	if sent > 1 {
		return fmt.Errorf("after a SCRIPT FLUSH, New and %d decisions sent the commands %v: the source went %d times, want once, then EVALSHA", decisions, names, sent)
	}
	return nil
}

// serverTime checks that without a harness clock the throttler works from
// the Redis server's clock. On miniredis the server's time is set, so the
// answer is exact; a real server's is only known to lie in a range.
func serverTime(newT redisCtor, b *backend, l limits.Limit) error {
	// 00:30:00.25 on a day: half an hour and a quarter second into the hour.
	day := time.Date(2031, 5, 17, 0, 30, 0, 250_000_000, time.UTC)
	if b.mini != nil {
		b.mini.SetTime(day)
		defer b.mini.SetTime(time.Time{})
	}
	th, err := newT(b.rdb, only(l), redisOpts{prefix: b.prefix()})
	if err != nil {
		return fmt.Errorf("calling New without a clock: %v", err)
	}
	s := syncThrottler{th: th}
	for want := 1; want >= 0; want-- {
		if d := s.Allow("alice"); d != ok(want) {
			return fmt.Errorf("%v on the server's time: Allow(%q) = %v, want %v", l, "alice", d, ok(want))
		}
	}
	d := s.Allow("alice")
	var exact time.Duration
	switch l.Algorithm {
	case limits.FixedWindow:
		exact = 29*minute + 59750*ms // to the end of the hour
	case limits.SlidingWindow:
		exact = 29*minute + 59750*ms + 30*minute // then 2·(60−x)/60 <= 1 from x = 30m
	default:
		exact = 30 * minute // a token every 30 minutes
	}
	if b.mini != nil {
		if want := no(0, exact); d != want {
			return fmt.Errorf("%v on miniredis with its TIME at %v: the third Allow = %v, want %v", l, day.Format(time.RFC3339Nano), d, want)
		}
		return nil
	}
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > l.Per+l.Per {
		return fmt.Errorf("%v on the server's time: the third Allow = %v, want denied with RetryAfter in (0, %v]", l, d, 2*l.Per)
	}
	return nil
}

// onFleet runs a part 5 concurrency probe on 4 throttlers sharing one
// prefix, each with its own connection pool.
func onFleet(newT redisCtor, b *backend, cfg limits.Config, probe func(Throttler, *clock.Fake) error) func(syncThrottler, *clock.Fake) error {
	return func(_ syncThrottler, clk *clock.Fake) error {
		f, err := b.newFleet(newT, clk, cfg, 4)
		if err != nil {
			return fmt.Errorf("calling New: %v", err)
		}
		defer f.close()
		return probe(f, clk)
	}
}

// sharedHashTag makes decisions for group members and lone clients, each
// under a prefix of its own, and checks that the keys of each decision
// hash to one Redis Cluster slot.
func sharedHashTag(newT redisCtor, b *backend, clk *clock.Fake, cfg limits.Config) error {
	for _, client := range []string{"m1", "{team}", "m2", "alice", "{alice}", "a}b{c", allBytes()} {
		p := b.prefix()
		th, err := newT(b.rdb, cfg, redisOpts{prefix: p, clk: clk})
		if err != nil {
			return fmt.Errorf("calling New: %v", err)
		}
		syncThrottler{th: th}.Allow(client)
		keys, err := keysUnder(b.rdb, p)
		if err != nil {
			return err
		}
		wantKeys := 1
		if slices.Contains(cfg.Groups[0].Clients, client) {
			wantKeys = 2
		}
		if len(keys) < wantKeys {
			return fmt.Errorf("after Allow(%q) there are %d keys under the prefix %q (%q), want at least %d: one for the client and one for its group",
				client, len(keys), p, keys, wantKeys)
		}
		for _, k := range keys[1:] {
			if hashSlot(k) != hashSlot(keys[0]) {
				return fmt.Errorf("Allow(%q) wrote the keys %q (slot %d) and %q (slot %d): the keys of one decision must share a hash tag, or the script cannot run on Redis Cluster",
					client, keys[0], hashSlot(keys[0]), k, hashSlot(k))
			}
		}
	}
	return nil
}

// everyKeyExpires checks that every key written has a TTL: with the
// harness clock any TTL will do; with the server's time, no longer than
// the state matters (2·Per, plus a second of slack).
func everyKeyExpires(newT redisCtor, b *backend, clk *clock.Fake) error {
	for _, l := range []limits.Limit{fixed(5, 10*sec), sliding(5, 10*sec, 2), token(5, 10*sec)} {
		for _, serverClock := range []bool{false, true} {
			cfg := limits.Config{PerClient: l, Groups: []limits.Group{group("team", l, "m1")}}
			p := b.prefix()
			o := redisOpts{prefix: p, clk: clk}
			if serverClock {
				o.clk = nil
			}
			th, err := newT(b.rdb, cfg, o)
			if err != nil {
				return fmt.Errorf("calling New: %v", err)
			}
			s := syncThrottler{th: th}
			s.AllowN("alice", 2)
			s.AllowN("m1", 2)
			keys, err := keysUnder(b.rdb, p)
			if err != nil {
				return err
			}
			if len(keys) == 0 {
				return fmt.Errorf("%v: no keys under the prefix %q after two allowed requests", l, p)
			}
			for _, k := range keys {
				ttl, err := b.rdb.PTTL(context.Background(), k).Result()
				if err != nil {
					return err
				}
				switch {
				case ttl < 0:
					return fmt.Errorf("%v: the key %q has no TTL (PTTL = %v): Redis would keep it forever", l, k, ttl)
				case serverClock && ttl > 2*l.Per+sec:
					return fmt.Errorf("%v on the server's time: the key %q has a TTL of %v, want at most %v: 2·Per and a second",
						l, k, ttl, 2*l.Per+sec)
				}
			}
		}
	}
	return nil
}

// prefixNamespaces checks that every key starts with the prefix, and that
// throttlers with different prefixes do not share state.
func prefixNamespaces(newT redisCtor, b *backend, clk *clock.Fake, cfg limits.Config) error {
	p1, p2 := b.prefix()+"app-one:", b.prefix()+"app-two:"
	var ths []syncThrottler
	for _, p := range []string{p1, p2} {
		th, err := newT(b.rdb, cfg, redisOpts{prefix: p, clk: clk})
		if err != nil {
			return fmt.Errorf("calling New: %v", err)
		}
		ths = append(ths, syncThrottler{th: th})
	}
	// Throttlers that write outside their prefix would share these keys.
	before, err := keysUnder(b.rdb, b.base)
	if err != nil {
		return err
	}
	for i, th := range ths {
		for _, client := range []string{"alice", "m1"} {
			if d := th.AllowN(client, 3); d != ok(0) {
				return fmt.Errorf("throttler %d of 2, with its own prefix: AllowN(%q, 3) = %v, want %v: the two prefixes share state", i+1, client, d, ok(0))
			}
		}
	}
	after, err := keysUnder(b.rdb, b.base)
	if err != nil {
		return err
	}
	if len(after) == len(before) {
		return errors.New("four allowed requests wrote no key under this run's prefixes: the prefix is ignored")
	}
	for _, k := range after {
		if !slices.Contains(before, k) && !strings.HasPrefix(k, p1) && !strings.HasPrefix(k, p2) {
			return fmt.Errorf("the key %q does not start with the throttler's prefix %q or %q", k, p1, p2)
		}
	}
	for _, p := range []string{p1, p2} {
		if keys, _ := keysUnder(b.rdb, p); len(keys) == 0 {
			return fmt.Errorf("no key starts with the prefix %q", p)
		}
	}
	return nil
}

// deadline is how long the fault cases give a call, margin how much later
// it may return, and grace how long after the deadline a call that has
// not returned is reported as hanging. The margin is five deadlines: a
// right call returns at its deadline, and a busy machine only makes it
// late; the mistakes it must catch return at DefaultTimeout (3s), or
// never.
const (
	deadline = 300 * ms
	margin   = 1500 * ms
	grace    = 2 * sec
)

// callResult is what one call under a deadline gave.
type callResult struct {
	d       limits.Decision
	err     error
	took    time.Duration
	panicky any
}

// callWithin calls AllowN(ctx, client, 1) under a context with the fault
// cases' deadline, and checks that it returns by then.
func callWithin(th RedisThrottler, client string) (callResult, error) {
	return callBounded(th, client, 1, deadline, deadline)
}

// callBounded calls AllowN(ctx, client, n) in a goroutine, so that a call
// that hangs is reported, not waited for. ctx has a deadline ctxDeadline
// from now, or none if that is 0; the call must return within bound, and
// margin.
func callBounded(th RedisThrottler, client string, n int, ctxDeadline, bound time.Duration) (callResult, error) {
	done := make(chan callResult, 1)
	what := fmt.Sprintf("AllowN(ctx, %q, %d) with a context without a deadline", client, n)
	if ctxDeadline > 0 {
		what = fmt.Sprintf("AllowN(ctx, %q, %d) with a deadline of %v", client, n, ctxDeadline)
	}
	go func() {
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if ctxDeadline > 0 {
			ctx, cancel = context.WithTimeout(ctx, ctxDeadline)
		}
		defer cancel()
		start := time.Now()
		var r callResult
		defer func() {
			if p := recover(); p != nil {
				r.panicky = p
			}
			r.took = time.Since(start)
			done <- r
		}()
		r.d, r.err = th.AllowN(ctx, client, n)
	}()
	timer := time.NewTimer(bound + grace)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.panicky != nil {
			return r, fmt.Errorf("%s panicked: %v; a fault must come back as an error", what, r.panicky)
		}
		if r.took > bound+margin {
			return r, fmt.Errorf("%s took %v, want at most %v", what, r.took, bound)
		}
		return r, nil
	case <-timer.C:
		return callResult{}, fmt.Errorf("%s had not returned %v after it started: it must return by its deadline, %v", what, bound+grace, bound)
	}
}

// checkFault checks what a call gave when Redis could not decide.
func checkFault(r callResult, o redisOpts, what string) error {
	if r.err == nil {
		return fmt.Errorf("%s: AllowN = %v with a nil error, want an error", what, r.d)
	}
	want := limits.Decision{}
	switch {
	case o.failOpen:
		want = limits.Decision{Allowed: true}
	case o.failClosed > 0:
		want = limits.Decision{RetryAfter: o.failClosed}
	}
	if (o.failOpen || o.failClosed > 0) && r.d != want {
		return fmt.Errorf("%s: AllowN = %v, %q; want %v and the error", what, r.d, r.err, want)
	}
	return nil
}

// stoppedServer runs a throttler on a miniredis of its own, then stops
// the server: the next calls return errors, quickly.
func stoppedServer(newT redisCtor, clk *clock.Fake, o redisOpts) error {
	mr, err := startMiniredis()
	if err != nil {
		return err
	}
	defer mr.Close()
	rdb := newClient(mr.Addr())
	defer rdb.Close()
	o.clk = clk
	th, err := newT(rdb, only(fixed(5, minute)), o)
	if err != nil {
		return fmt.Errorf("calling New: %v", err)
	}
	return killMidRun(th, o, "the server was stopped", mr.Close)
}

// killMidRun makes one decision, calls stop, and checks the next two.
func killMidRun(th RedisThrottler, o redisOpts, what string, stop func()) error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if d, err := th.Allow(ctx, "alice"); d != ok(4) || err != nil {
		return fmt.Errorf("before the fault: Allow(ctx, %q) = %v, %v; want %v, nil", "alice", d, err, ok(4))
	}
	stop()
	for range 2 {
		r, err := callWithin(th, "alice")
		if err != nil {
			return fmt.Errorf("after %s: %v", what, err)
		}
		if err := checkFault(r, o, "after "+what); err != nil {
			return err
		}
	}
	return nil
}

// silentServer points a throttler, built with the options o on a client
// that newRDB makes, at a server that accepts connections and never
// answers: only the deadline ends the call. ctxDeadline is the call's
// context's, 0 for none; then o.timeout bounds it.
func silentServer(newT redisCtor, clk *clock.Fake, newRDB func(addr string) *redis.Client, o redisOpts, ctxDeadline time.Duration) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening: %v", err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	defer func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	rdb := newRDB(ln.Addr().String())
	defer rdb.Close()
	o.clk = clk
	th, err := newT(rdb, only(fixed(5, minute)), o)
	if err != nil {
		return fmt.Errorf("calling New: %v", err)
	}
	bound := ctxDeadline
	if bound == 0 {
		bound = o.timeout
	}
	r, err := callBounded(th, "alice", 1, ctxDeadline, bound)
	if err != nil {
		return fmt.Errorf("on a server that never answers: %v", err)
	}
	return checkFault(r, redisOpts{}, "on a server that never answers")
}

// wrongType overwrites every key of the throttler with a list, as a
// stray command from another program could: the next decision must return
// an error, and not panic.
func wrongType(th syncThrottler, clk *clock.Fake) error {
	th.AllowN("m1", 2)
	th.AllowN("alice", 2)
	keys, err := keysUnder(th.rdb, th.pfx)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		return fmt.Errorf("no keys under the prefix %q after two allowed requests", th.pfx)
	}
	ctx := context.Background()
	for _, k := range keys {
		th.rdb.Del(ctx, k)
		th.rdb.RPush(ctx, k, "not a throttle state")
	}
	for _, client := range []string{"m1", "alice"} {
		r, err := callWithin(th.th, client)
		if err != nil {
			return err
		}
		if r.err == nil {
			return fmt.Errorf("with its keys overwritten by lists, AllowN(ctx, %q, 1) = %v with a nil error, want an error", client, r.d)
		}
	}
	return nil
}

// badRedisConfig checks that New refuses cfg with an error naming field
// and saying how many buckets the Redis form takes.
func badRedisConfig(newT redisCtor, b *backend, cfg limits.Config, field string) func(syncThrottler, *clock.Fake) error {
	return func(_ syncThrottler, clk *clock.Fake) error {
		if err := throttlespec.CheckBadConfig(b.syncCtor(newT), clk, cfg, field); err != nil {
			return err
		}
		_, err := newT(b.rdb, cfg, redisOpts{clk: clk})
		if !strings.Contains(err.Error(), "2") {
			return fmt.Errorf("%s returned the error %q, want one that says the Redis form takes 2 buckets", throttlespec.Describe(cfg), err)
		}
		return nil
	}
}

// ServerCase names a case that needs a real redis-server, which the
// spec skips where there is none.
type ServerCase struct {
	Name string
	Part int
}

// ServerCases are the cases that need a real redis-server: those that
// kill one, which run when redis-server is on the PATH, and the one that
// pauses one, which also needs REDIS_ADDR set. Nothing is started to list
// them.
func ServerCases() []ServerCase {
	var out []ServerCase
	for _, o := range killedServerOpts {
		out = append(out, ServerCase{killedServerName(o), 8})
	}
	return append(out, ServerCase{pausedServerName, 8})
}

// ServerCommand is how to run the cases of ServerCases.
const ServerCommand = "make test-level-8 REDIS=1"

// skipServerCases skips t, which would run count of ServerCases, with a
// message that says how many and how to run them; the log says why not
// here.
func skipServerCases(t *testing.T, count int, why string) {
	t.Helper()
	t.Log("skipped: " + why)
	t.Skip(serverSkipMessage(count))
}

// serverSkipMessage is "3 cases need a real redis-server: " and the
// command that runs them.
func serverSkipMessage(count int) string {
	noun := "cases need"
	if count == 1 {
		noun = "case needs"
	}
	return fmt.Sprintf("%d %s a real redis-server: %s", count, noun, ServerCommand)
}

// killedServerOpts are the options of the cases that kill a server.
var killedServerOpts = []redisOpts{{}, {failOpen: true}, {failClosed: 3 * sec}}

// killedServerName is the name of the case that kills a server with o.
func killedServerName(o redisOpts) string {
	name := "a killed redis-server: an error within the deadline"
	switch {
	case o.failOpen:
		name += ", failing open"
	case o.failClosed > 0:
		name += ", failing closed"
	}
	return name
}

// pausedServerName is the name of the case that pauses a server.
const pausedServerName = "a paused redis-server: each call ends by its deadline and is charged at most once"

// ownServerCases start a redis-server of their own and kill it mid-run.
// Without redis-server on the PATH, the test is skipped.
func ownServerCases(t *testing.T, newT redisCtor) []timeline.Case[Throttler] {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		skipServerCases(t, len(killedServerOpts), "no redis-server on the PATH")
	}
	var out []timeline.Case[Throttler]
	servers := map[string]*redisServer{} // by address; the cases run one at a time
	for _, o := range killedServerOpts {
		name := killedServerName(o)
		out = append(out, timeline.Case[Throttler]{
			Name: name, Part: 8, Setup: "New(client of a redis-server started for this case, PerClient: FixedWindow 5 per 1m0s)", Clocked: true,
			New: func(clk clock.Clock) Throttler {
				srv, err := startRedisServer(bin)
				if err != nil {
					panic(err.Error())
				}
				t.Cleanup(srv.stop)
				servers[srv.addr] = srv
				rdb := newClient(srv.addr)
				t.Cleanup(func() { _ = rdb.Close() })
				o := o
				o.clk = clk
				th, err := newT(rdb, only(fixed(5, minute)), o)
				if err != nil {
					panic(fmt.Sprintf("New returned an error for a valid config: %v", err))
				}
				return syncThrottler{th: th, rdb: rdb, pfx: srv.addr}
			},
			Probe: func(th Throttler, _ *clock.Fake) error {
				s := th.(syncThrottler)
				srv := s.pfx
				return killMidRun(s.th, o, "redis-server on "+srv+" was killed", servers[srv].stop)
			},
		})
	}
	return out
}

// pausedServerCases pause a redis-server of their own with SIGSTOP, as a
// long fork, a swapped-out host or a debugger would: connections are
// accepted and commands are read into the kernel's buffers, but nothing
// answers until SIGCONT. Without redis-server on the PATH, or where
// processes cannot be paused, the test is skipped.
func pausedServerCases(t *testing.T, newT redisCtor) []timeline.Case[Throttler] {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		skipServerCases(t, 1, "no redis-server on the PATH")
	}
	if !canPause {
		skipServerCases(t, 1, "processes cannot be paused with SIGSTOP here")
	}
	cfg := only(fixed(100, minute))
	var srv *redisServer
	return []timeline.Case[Throttler]{{
		Name: pausedServerName, Part: 8,
		Setup:   "New(a go-redis client with its default options, of a redis-server started for this case, PerClient: FixedWindow 100 per 1m0s)",
		Clocked: true,
		New: func(clk clock.Clock) Throttler {
			var err error
			if srv, err = startRedisServer(bin); err != nil {
				panic(err.Error())
			}
			t.Cleanup(srv.stop)
			rdb := defaultClient(srv.addr)
			t.Cleanup(func() { _ = rdb.Close() })
			th, err := newT(rdb, cfg, redisOpts{clk: clk})
			if err != nil {
				panic(fmt.Sprintf("New returned an error for a valid config: %v", err))
			}
			return syncThrottler{th: th, rdb: rdb}
		},
		Probe: func(th Throttler, clk *clock.Fake) error {
			s := th.(syncThrottler)
			short, err := newT(s.rdb, cfg, redisOpts{clk: clk, timeout: deadline})
			if err != nil {
				return fmt.Errorf("calling New with WithTimeout(%v): %v", deadline, err)
			}
			return pausedServer(s.th, short, srv)
		},
	}}
}

// pausedServer makes one decision, pauses the server, and makes three
// calls of 10 requests that must each end by its deadline: th's default
// of 3s, a context's 300ms, and short's WithTimeout of 300ms. Then it
// resumes the server and checks that each was charged at most once.
func pausedServer(th, short RedisThrottler, srv *redisServer) error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if d, err := th.Allow(ctx, "alice"); d != ok(99) || err != nil {
		return fmt.Errorf("before the pause: Allow(ctx, %q) = %v, %v; want %v, nil", "alice", d, err, ok(99))
	}
	if err := srv.pause(); err != nil {
		return err
	}
	resumed := false
	defer func() {
		if !resumed {
			_ = srv.resume()
		}
	}()
	calls := []struct {
		th          RedisThrottler
		what        string
		ctxDeadline time.Duration
		bound       time.Duration
	}{
		{th, "by default", 0, DefaultTimeout},
		{th, "with a context's deadline", deadline, deadline},
		{short, fmt.Sprintf("with WithTimeout(%v)", deadline), 0, deadline},
	}
	for _, c := range calls {
		r, err := callBounded(c.th, "alice", 10, c.ctxDeadline, c.bound)
		if err != nil {
			return fmt.Errorf("with the server paused, %s: %v", c.what, err)
		}
		if r.err == nil {
			return fmt.Errorf("with the server paused, %s: AllowN(ctx, %q, 10) = %v with a nil error, want an error", c.what, "alice", r.d)
		}
		// A paused server answers nothing: only the deadline can end the
		// call. A throttler may round it down a little, not by a tenth.
		if r.took < c.bound*9/10 {
			return fmt.Errorf("with the server paused, %s: AllowN(ctx, %q, 10) returned %q after %v, want the deadline of %v: nothing else can end it",
				c.what, "alice", r.err, r.took, c.bound)
		}
	}
	if err := srv.resume(); err != nil {
		return err
	}
	resumed = true
	// The three calls were sent before their deadlines, and Redis runs
	// what it has read when it resumes: each may have been charged 10,
	// but no more than once.
	d, err := th.Allow(ctx, "alice")
	if err != nil {
		return fmt.Errorf("after the server resumed: Allow(ctx, %q) returned the error %q", "alice", err)
	}
	if lo := 100 - 1 - 3*10 - 1; !d.Allowed || d.Remaining < lo || d.Remaining > 98 || d.Remaining%10 != 8 {
		return fmt.Errorf("after the server resumed: Allow(ctx, %q) = %v, want allowed with 98, 88, 78 or 68 left: each of the three calls that timed out may have been charged its 10 once, and never twice",
			"alice", d)
	}
	return nil
}

// redisServer is a redis-server process started by a case.
type redisServer struct {
	cmd  *exec.Cmd
	addr string
}

// startRedisServer starts redis-server on a free port of 127.0.0.1,
// without persistence, and waits until it answers PING.
func startRedisServer(bin string) (*redisServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	cmd.Stdout, cmd.Stderr = nil, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %v", bin, err)
	}
	srv := &redisServer{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr})
	defer rdb.Close()
	for start := time.Now(); ; {
		ctx, cancel := context.WithTimeout(context.Background(), 200*ms)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return srv, nil
		}
		if time.Since(start) > 5*sec {
			srv.stop()
			return nil, fmt.Errorf("redis-server on %s did not answer PING within 5s: %v", srv.addr, err)
		}
		time.Sleep(20 * ms) // waiting for a process to start, not for the throttler
	}
}

// stop kills the server, once.
func (s *redisServer) stop() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

// fleetExact is part 5's exactness check, lighter, for a throttler that
// makes a round trip per call: 8 goroutines send 50 requests each at one
// instant to one client allowed 250. Exactly 250 are allowed, and their
// Remaining values are 249 down to 0, each once. (Small, because every
// request is a round trip, and slow under -race.)
func fleetExact(th Throttler, clk *clock.Fake) error {
	const goroutines, each, limit = 8, 50, 250
	clk.Set(clock.Epoch)
	remaining := make([][]int, goroutines)
	timeline.Parallel(goroutines, func(g int) {
		for range each {
			if d := th.Allow("hot"); d.Allowed {
				remaining[g] = append(remaining[g], d.Remaining)
			}
		}
	})
	all := slices.Concat(remaining...)
	if len(all) != limit {
		return fmt.Errorf("%d goroutines on 4 throttlers sent %d requests for one client with a limit of %d: %d were allowed, want exactly %d",
			goroutines, goroutines*each, limit, len(all), limit)
	}
	slices.Sort(all)
	for i, r := range all {
		if r != i {
			return fmt.Errorf("the %d allowed requests had Remaining values from %d to %d, %d in place of %d: two decisions saw the same count",
				limit, all[0], all[len(all)-1], r, i)
		}
	}
	return nil
}
