package spec

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// Wrong Redis throttlers that parts 6 to 8 must catch. Each is a small
// fixed-window throttler (every limit is counted as a fixed window, which
// the cases below do not mind) with one realistic mistake.

type redisBugs struct {
	twoTrips  bool // reads the counts, then charges them in a second round trip
	noTTL     bool // never sets a TTL
	noHashTag bool // the client's and the group's keys have no common hash tag
	rawKeys   bool // pastes names into keys: a client named like the group shares its key
	noReload  bool // EVALSHA only: after SCRIPT FLUSH every call fails
	noFailure bool // ignores FailOpen and FailClosed
	noTimeout bool // ignores WithTimeout: a call without a deadline may wait forever
	trustCtx  bool // hands the context to go-redis, which may not honour its deadline
	timeTrip  bool // reads the server's TIME in a round trip of its own, before the script
	evalEach  bool // sends the script's source with EVAL on every call
	noEscape  bool // escapes braces in names, but not its escape character '%'
	luaTime   bool // passes the time as one Lua number: near 2262 a double holds only multiples of 2,048ns

	noReloadLoaded bool // noReload's state: the script was loaded once
}

const mutantScript = `
local n, now, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
if ARGV[2] == 'time' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1e9 + tonumber(t[2]) * 1e3
end
-- The window of limit i, and the time left to its end: given by the
-- caller, who divides int64 time exactly, or divided here in doubles.
local function window(i, per)
  if ARGV[2] == 'given' then
    local j = 4 + 2 * #KEYS + 2 * i
    return tonumber(ARGV[j - 1]), tonumber(ARGV[j])
  end
  local w = math.floor(now / per)
  return w, (w + 1) * per - now
end
local charge, force = ARGV[4] ~= '0', ARGV[4] == '2'
local room, ends = math.huge, 0
for i, key in ipairs(KEYS) do
  local req, per = tonumber(ARGV[3 + 2 * i]), tonumber(ARGV[4 + 2 * i])
  local w, left = window(i, per)
  local v = redis.call('HMGET', key, 'w', 'c')
  local c = 0
  if tonumber(v[1]) == w then c = tonumber(v[2]) end
  room = math.min(room, req - c)
  ends = math.max(ends, left)
end
if not force and (n > room or not charge) then return {0, math.max(room, 0), ends} end
for i, key in ipairs(KEYS) do
  local per = tonumber(ARGV[4 + 2 * i])
  local w = window(i, per)
  local v = redis.call('HMGET', key, 'w', 'c')
  local c = 0
  if tonumber(v[1]) == w then c = tonumber(v[2]) end
  redis.call('HSET', key, 'w', w, 'c', c + n)
  if ttl == '1' then redis.call('PEXPIRE', key, math.ceil(2 * per / 1e6)) end
end
return {1, math.max(room - n, 0), 0}
`

var mutantDecide = redis.NewScript(mutantScript)

type redisMutant struct {
	holds bool // rdb ends calls at their context's deadline
	rdb   redis.UniversalClient
	cfg   limits.Config
	o     redisOpts
	bugs  redisBugs
}

func (m *redisMutant) Allow(ctx context.Context, client string) (limits.Decision, error) {
	return m.AllowN(ctx, client, 1)
}

func (m *redisMutant) AllowN(ctx context.Context, client string, n int) (limits.Decision, error) {
	if !m.bugs.noTimeout {
		timeout := DefaultTimeout
		if m.o.timeout > 0 {
			timeout = m.o.timeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if m.bugs.trustCtx || m.holds {
		return m.decide(ctx, client, n)
	}
	type reply struct {
		d   limits.Decision
		err error
	}
	done := make(chan reply, 1)
	go func() {
		d, err := m.decide(ctx, client, n)
		done <- reply{d, err}
	}()
	select {
	case r := <-done:
		return r.d, r.err
	case <-ctx.Done():
		return m.decision(nil, ctx.Err())
	}
}

func (m *redisMutant) decide(ctx context.Context, client string, n int) (limits.Decision, error) {
	var g *limits.Group
	for i := range m.cfg.Groups {
		for _, c := range m.cfg.Groups[i].Clients {
			if c == client {
				g = &m.cfg.Groups[i]
			}
		}
	}
	esc := strings.NewReplacer("%", "%25", "{", "%7B", "}", "%7D")
	if m.bugs.noEscape {
		esc = strings.NewReplacer("{", "%7B", "}", "%7D")
	}
	keys := []string{m.o.prefix + "{c" + esc.Replace(client) + "}"}
	switch {
	case m.bugs.rawKeys:
		keys = []string{m.o.prefix + client}
	case m.bugs.noHashTag && g != nil:
		keys = []string{m.o.prefix + "client:" + esc.Replace(client)}
	case g != nil:
		keys = []string{m.o.prefix + "{g" + esc.Replace(g.Name) + "}c" + esc.Replace(client)}
	}
	var now any = "time" // the script reads TIME
	var nowNs int64      // the time, when the script is given each window
	switch {
	case m.o.clk != nil && m.bugs.luaTime:
		now = m.o.clk.Now().UnixNano()
	case m.o.clk != nil:
		now, nowNs = "given", m.o.clk.Now().UnixNano()
	case m.bugs.timeTrip:
		t, err := m.rdb.Time(ctx).Result()
		if err != nil {
			return m.decision(nil, err)
		}
		now = t.UnixNano()
	}
	args := []any{n, now, "1", "1", m.cfg.PerClient.Requests, int64(m.cfg.PerClient.Per)}
	if m.bugs.noTTL {
		args[2] = "0"
	}
	if g != nil {
		switch {
		case m.bugs.rawKeys:
			keys = append(keys, m.o.prefix+g.Name)
		case m.bugs.noHashTag:
			keys = append(keys, m.o.prefix+"group:"+esc.Replace(g.Name))
		default:
			keys = append(keys, m.o.prefix+"{g"+esc.Replace(g.Name)+"}")
		}
		args = append(args, g.Limit.Requests, int64(g.Limit.Per))
	}
	if now == "given" {
		for i, end := 5, len(args); i < end; i += 2 {
			w, left := windowOf(nowNs, args[i].(int64))
			args = append(args, w, left)
		}
	}
	run := func(args []any) ([]int64, error) {
		if m.bugs.noReload {
			if err := mutantDecide.Load(ctx, m.rdb).Err(); err != nil {
				return nil, err
			}
			m.bugs.noReload = false // loaded once, and never again
			m.bugs.noReloadLoaded = true
		}
		if m.bugs.noReloadLoaded {
			return mutantDecide.EvalSha(ctx, m.rdb, keys, args...).Int64Slice()
		}
		if m.bugs.evalEach {
			return mutantDecide.Eval(ctx, m.rdb, keys, args...).Int64Slice()
		}
		return mutantDecide.Run(ctx, m.rdb, keys, args...).Int64Slice()
	}
	if m.bugs.twoTrips {
		args[3] = "0"
		res, err := run(args)
		if err == nil && res[1] >= int64(n) {
			// Charge what was checked, without checking again, and answer
			// from the check: two calls that checked together report the
			// same Remaining, even away from the limit.
			checked := res[1]
			args[3] = "2"
			if res, err = run(args); err == nil {
				res[1] = checked - int64(n)
			}
		}
		return m.decision(res, err)
	}
	return m.decision(run(args))
}

// windowOf is the fixed window of length per that holds now, counted from
// the epoch, and the time left to its end, in exact int64 arithmetic.
func windowOf(now, per int64) (w, left int64) {
	w = now / per
	if now%per < 0 {
		w-- // division truncates toward zero; windows start at multiples of per
	}
	return w, per - (now - w*per)
}

func (m *redisMutant) decision(res []int64, err error) (limits.Decision, error) {
	if err != nil {
		if !m.bugs.noFailure && m.o.failOpen {
			return limits.Decision{Allowed: true}, err
		}
		if !m.bugs.noFailure && m.o.failClosed > 0 {
			return limits.Decision{RetryAfter: m.o.failClosed}, err
		}
		return limits.Decision{}, err
	}
	return limits.Decision{Allowed: res[0] == 1, Remaining: int(res[1]), RetryAfter: time.Duration(res[2])}, nil
}

func withRedisBugs(b redisBugs) redisCtor {
	return func(rdb redis.UniversalClient, cfg limits.Config, o redisOpts) (RedisThrottler, error) {
		if o.prefix == "" {
			o.prefix = "throttle:"
		}
		c, ok := rdb.(*redis.Client)
		holds := ok && c.Options().ContextTimeoutEnabled
		return &redisMutant{holds: holds, rdb: rdb, cfg: cfg, o: o, bugs: b}, nil
	}
}

// redisMutants are the wrong Redis throttlers, each with the part and the
// case meant to catch it. TestMistakesTableIsCurrent records what each one
// fails, for the grader to name.
var redisMutants = []struct {
	name string
	part int
	cas  string // the case meant to catch it
	bugs redisBugs
}{
	{"check, then charge in a second round trip", 6, "one round trip per decision", redisBugs{twoTrips: true}},
	{"check, then charge in a second round trip, under concurrency", 6, "8 goroutines and 4 throttlers share one limit exactly, fixed window", redisBugs{twoTrips: true}},
	{"EVALSHA without reloading after NOSCRIPT", 6, "a SCRIPT FLUSH is recovered without losing state", redisBugs{noReload: true}},
	{"keys without a TTL", 7, "every key has a TTL", redisBugs{noTTL: true}},
	{"a client's and its group's keys in different slots", 7, "all keys of one decision share a hash tag", redisBugs{noHashTag: true}},
	{"names pasted into keys", 7, "client IDs are data: braces, colons, newlines and every byte", redisBugs{rawKeys: true}},
	{"FailOpen ignored", 8, "FailOpen allows when Redis cannot decide", redisBugs{noFailure: true}},
	{"FailClosed ignored", 8, "FailClosed denies with its RetryAfter when Redis cannot decide", redisBugs{noFailure: true}},
	{"the time as one Lua number", 6, "up to the last instant of int64 time, in 2262, fixed window", redisBugs{luaTime: true}},
	{"TIME read in a round trip of its own", 6, "one round trip per decision, on the server's time", redisBugs{timeTrip: true}},
	{"EVAL with the whole script on every call", 6, "the script is sent once, then called by its SHA1", redisBugs{evalEach: true}},
	{"the escape character left as it is: a}b and a%7Db share a key", 7, "client IDs are data: braces, colons, newlines and every byte", redisBugs{noEscape: true}},
	{"WithTimeout ignored", 8, "a call without a deadline of its own ends at WithTimeout", redisBugs{noTimeout: true}},
	{"the context's deadline left to go-redis", 8, "a default go-redis client: the context's deadline still holds", redisBugs{trustCtx: true}},
}

func TestRedisSpecCatchesMutants(t *testing.T) {
	mutation.SkipSweepIfShort(t)
	t.Parallel()
	b := miniBackend(t)
	quietRedis()
	patientCases(t)
	for _, m := range redisMutants {
		t.Run(m.name, func(t *testing.T) {
			var target []timeline.Case[Throttler]
			for _, c := range redisCases(withRedisBugs(m.bugs), b) {
				if c.Name == m.cas {
					target = append(target, c)
				}
			}
			if len(target) != 1 {
				t.Fatalf("no case named %q", m.cas)
			}
			mutation.Caught(t, m.name, m.part, target)
		})
	}
}

// TestRedisMutantBaseline keeps the mutants honest: without a bug, the
// small throttler passes every case the mutants are checked against.
func TestRedisMutantBaseline(t *testing.T) {
	mutation.SkipSweepIfShort(t)
	t.Parallel()
	b := miniBackend(t)
	quietRedis()
	patientCases(t)
	var target []timeline.Case[Throttler]
	for _, c := range redisCases(withRedisBugs(redisBugs{}), b) {
		switch c.Name {
		case "one round trip per decision", "one round trip per decision, on the server's time", "the script is sent once, then called by its SHA1", "a SCRIPT FLUSH is recovered without losing state", "every key has a TTL",
			"all keys of one decision share a hash tag", "client IDs are data: braces, colons, newlines and every byte",
			"FailOpen allows when Redis cannot decide", "FailClosed denies with its RetryAfter when Redis cannot decide",
			"8 goroutines and 4 throttlers share one limit exactly, fixed window",
			"a call without a deadline of its own ends at WithTimeout", "a default go-redis client: the context's deadline still holds":
			target = append(target, c)
		}
	}
	if len(target) != 12 {
		t.Fatalf("found %d of the 12 cases", len(target))
	}
	mustPass(t, target)
}

// mustPass fails t for every case that does not pass.
func mustPass(t *testing.T, cs []timeline.Case[Throttler]) {
	t.Helper()
	for _, o := range timeline.PlayAll(0, cs) {
		if o.Verdict != protocol.Pass {
			t.Errorf("part %d, %s", o.Part, o.Report)
		}
	}
}
