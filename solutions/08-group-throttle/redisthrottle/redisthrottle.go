// Package redisthrottle is the reference solution of level 8's distributed
// form: the same throttler as package throttle, with its state in Redis, so
// that every server of a fleet enforces one limit per client.
//
// Each decision is one round trip: a Lua script, sent once and then called
// by its SHA1 with EVALSHA, checks and charges the client's limit and its
// group's in one atomic step. Every key has a TTL, so Redis holds state
// only for clients that asked recently.
package redisthrottle

import (
	"context"
	_ "embed" // the Lua script
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/harness/clock"
	throttle "github.com/rateladder/rateladder/solutions/08-group-throttle"
)

//go:embed decide.lua
var decideSource string

// decide is the one script. redis.NewScript computes its SHA1 once.
var decide = redis.NewScript(decideSource)

// Lua's numbers are doubles, exact for integers below 2^53. New refuses
// limits whose arithmetic would not stay below it.
const (
	exact  = 1 << 53
	minPer = time.Microsecond
	maxPer = 240 * time.Hour // the script's long division needs 10*Per < 2^53 ns
)

// harnessMinTTL is the least TTL of a key when the time comes from a
// harness clock, whose time need not move with Redis's own. A key that
// outlives its state changes no answer, since the script checks the window
// or the time it stored; one that expired early would.
const harnessMinTTL = time.Minute

// Throttler decides, request by request, whether each client is within its
// limits, keeping the counters in Redis. It is safe for concurrent use, and
// many Throttlers on many machines sharing one Redis and one prefix enforce
// one set of limits together.
type Throttler struct {
	rdb     redis.UniversalClient
	opts    options
	client  []any             // the client limit's script arguments
	groupOf map[string]*group // read-only after New
	minTTL  string            // ms, as the script wants it
}

type group struct {
	name  string
	key   string // the group's state: prefix{g<name>}
	tag   string // prefix{g<name>}, the start of its members' keys too
	limit []any
}

type options struct {
	prefix   string
	clk      clock.Clock // nil: the Redis server's TIME
	onError  *throttle.Decision
	failMode string
}

// Option configures a Throttler.
type Option func(*options)

// WithPrefix namespaces every key: "myapp:" gives keys such as
// "myapp:{calice}". The default is "throttle:". Throttlers that share a
// prefix share their state, so they must share their config too. The
// prefix must not contain '{' or '}', which would change the keys' hash
// tag.
func WithPrefix(prefix string) Option { return func(o *options) { o.prefix = prefix } }

// WithClock takes the time from c instead of the Redis server's TIME. The
// tests use it with a fake clock. In production, servers whose clocks
// disagree would then disagree about windows; the server's TIME is one
// clock for the whole fleet.
func WithClock(c clock.Clock) Option { return func(o *options) { o.clk = c } }

// FailOpen makes a decision that Redis could not make (unreachable, a
// timeout, a script error) an allowed one: Allow returns
// Decision{Allowed: true} together with the error. Choose it when being
// throttled is worse than being overrun.
func FailOpen() Option {
	return func(o *options) { o.onError, o.failMode = &throttle.Decision{Allowed: true}, "open" }
}

// FailClosed makes a decision that Redis could not make a denial: Allow
// returns Decision{RetryAfter: retryAfter} together with the error.
// retryAfter must be positive, since a denial with RetryAfter 0 means
// Never.
func FailClosed(retryAfter time.Duration) Option {
	return func(o *options) {
		o.onError, o.failMode = &throttle.Decision{RetryAfter: retryAfter}, "closed"
	}
}

// New returns a Throttler that enforces cfg with its state in rdb. It does
// not talk to Redis: the script is sent with the first decision. A config
// comes from outside, so an invalid one returns an error naming the field,
// as throttle.New does; the Redis form also refuses a SlidingWindow with
// other than 2 buckets, and limits too large for Lua's exact arithmetic.
//
// For Allow to return within its context's deadline, rdb must honour
// contexts: in go-redis, set ContextTimeoutEnabled in its options.
func New(rdb redis.UniversalClient, cfg throttle.Config, opts ...Option) (*Throttler, error) {
	if rdb == nil {
		return nil, errors.New("redisthrottle.New: the Redis client is nil")
	}
	o := options{prefix: "throttle:"}
	for _, opt := range opts {
		opt(&o)
	}
	if strings.ContainsAny(o.prefix, "{}") {
		return nil, fmt.Errorf("redisthrottle.New: the prefix %q contains '{' or '}', which would change the keys' hash tag", o.prefix)
	}
	if o.onError != nil && !o.onError.Allowed && o.onError.RetryAfter <= 0 {
		return nil, fmt.Errorf("redisthrottle.New: FailClosed(%v): the retry must be positive", o.onError.RetryAfter)
	}
	// The rules every throttler shares (names, groups, Requests, Per,
	// Buckets) are throttle.New's; building one, once, is how to ask it.
	if _, err := throttle.New(clock.System{}, cfg); err != nil {
		return nil, fmt.Errorf("redisthrottle.New: %w", err)
	}
	client, err := compile("PerClient", cfg.PerClient)
	if err != nil {
		return nil, err
	}
	t := &Throttler{rdb: rdb, opts: o, client: client, groupOf: map[string]*group{}, minTTL: "1"}
	if o.clk != nil {
		t.minTTL = strconv.FormatInt(harnessMinTTL.Milliseconds(), 10)
	}
	for i, gc := range cfg.Groups {
		l, err := compile(fmt.Sprintf("Groups[%d].Limit", i), gc.Limit)
		if err != nil {
			return nil, err
		}
		tag := o.prefix + "{g" + escape(gc.Name) + "}"
		g := &group{name: gc.Name, key: tag, tag: tag, limit: l}
		for _, name := range gc.Clients {
			t.groupOf[name] = g
		}
	}
	return t, nil
}

// compile checks what only the Redis form needs of a limit that
// throttle.New has accepted, and turns it into the script's five arguments.
func compile(field string, l throttle.Limit) ([]any, error) {
	switch {
	case l.Per < minPer || l.Per > maxPer:
		return nil, fmt.Errorf("redisthrottle.New: %s.Per is %v; the Redis throttler needs %v to %v, for exact arithmetic in Lua", field, l.Per, minPer, maxPer)
	case l.Requests >= exact:
		return nil, fmt.Errorf("redisthrottle.New: %s.Requests %d is too large for exact arithmetic in Lua", field, l.Requests)
	}
	req, per := int64(l.Requests), int64(l.Per)
	args := []any{int(l.Algorithm), req, per, 0, 0}
	switch l.Algorithm {
	case throttle.SlidingWindow:
		if l.Buckets > 2 {
			return nil, fmt.Errorf("redisthrottle.New: %s.Buckets is %d; the Redis throttler keeps only the two-bucket sliding window (previous and current): use 0 or 2", field, l.Buckets)
		}
		if req > exact/per {
			return nil, fmt.Errorf("redisthrottle.New: %s: Requests (%d) × Per (%v) must stay below 2^53 for exact arithmetic in Lua", field, l.Requests, l.Per)
		}
	case throttle.TokenBucket:
		// As in throttle: a token is per/g units, and the bucket gains
		// requests/g units a nanosecond, g = gcd(requests, per).
		g := gcd(req, per)
		unit, refill := per/g, req/g
		if req > exact/unit {
			return nil, fmt.Errorf("redisthrottle.New: %s: Requests (%d) and Per (%v) are too large together for exact token arithmetic in Lua", field, l.Requests, l.Per)
		}
		args[3], args[4] = unit, refill
	}
	return args, nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Allow is AllowN(ctx, client, 1).
func (t *Throttler) Allow(ctx context.Context, client string) (throttle.Decision, error) {
	return t.AllowN(ctx, client, 1)
}

// AllowN decides n requests from client as one, all or nothing, in one
// round trip to Redis. It panics if n < 1. If Redis cannot decide (it is
// unreachable, ctx ends, the script fails), AllowN returns an error, and
// with FailOpen or FailClosed also the Decision that option chose.
func (t *Throttler) AllowN(ctx context.Context, client string, n int) (throttle.Decision, error) {
	if n < 1 {
		panic(fmt.Sprintf("redisthrottle: AllowN(%q, %d): n must be at least 1", client, n))
	}
	// go-redis takes keys and arguments as slices of interfaces, so a
	// decision allocates; the round trip costs far more.
	var keys []string
	args := make([]any, 0, 14)
	args = append(args, n)
	if t.opts.clk != nil {
		ns := t.opts.clk.Now().UnixNano()
		s, f := ns/1e9, ns%1e9
		if f < 0 {
			s, f = s-1, f+1e9
		}
		args = append(args, s, f)
	} else {
		args = append(args, "", 0)
	}
	args = append(args, t.minTTL)
	args = append(args, t.client...)
	if g := t.groupOf[client]; g != nil {
		keys = []string{g.tag + "c" + escape(client), g.key}
		args = append(args, g.limit...)
	} else {
		keys = []string{t.opts.prefix + "{c" + escape(client) + "}"}
	}
	// Run sends EVALSHA, and after a NOSCRIPT reply (a SCRIPT FLUSH, a
	// restart, a failover) EVAL with the source, which loads it again.
	res, err := decide.Run(ctx, t.rdb, keys, args...).Int64Slice()
	if err == nil && len(res) != 3 {
		err = fmt.Errorf("the script returned %d values, want 3", len(res))
	}
	if err != nil {
		err = fmt.Errorf("redisthrottle: AllowN(%q, %d): %w", client, n, err)
		if t.opts.onError != nil {
			return *t.opts.onError, fmt.Errorf("%w (failing %s)", err, t.opts.failMode)
		}
		return throttle.Decision{}, err
	}
	return throttle.Decision{
		Allowed:    res[0] == 1,
		Remaining:  int(min(res[1], math.MaxInt)),
		RetryAfter: time.Duration(res[2]),
	}, nil
}

// escape writes a client or group name so that it cannot end a hash tag
// or be mistaken for another name: '%', '{' and '}' become %25, %7B and
// %7D. Every other byte, newlines included, is safe in a Redis key.
func escape(name string) string {
	if !strings.ContainsAny(name, "%{}") {
		return name
	}
	var b strings.Builder
	for i := range len(name) {
		switch c := name[i]; c {
		case '%':
			b.WriteString("%25")
		case '{':
			b.WriteString("%7B")
		case '}':
			b.WriteString("%7D")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
