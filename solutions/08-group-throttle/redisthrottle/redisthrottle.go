// Package redisthrottle is the reference solution of level 8's distributed
// form: the same throttler as package throttle, with its state in Redis, so
// that every server of a fleet enforces one limit per client.
//
// Each decision is one round trip: a Lua script, sent once and then called
// by its SHA1 with EVALSHA, checks and charges the client's limit and its
// group's in one atomic step. Every key has a TTL, so Redis holds state
// only for clients that asked recently.
//
// Every call has a deadline, and returns by it whatever the go-redis
// client's own settings. A call that times out may still have been
// charged: see AllowN.
package redisthrottle

import (
	"context"
	_ "embed" // the Lua script
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/harness/clock"
	throttle "github.com/rateladder/rateladder/solutions/08-group-throttle"
)

//go:embed decide.lua
var decideSource string

// decide is the one script; redis.NewScript computes its SHA1 once, and
// decideSHA is it boxed once for the command's arguments.
var (
	decide        = redis.NewScript(decideSource)
	decideSHA any = decide.Hash()
)

// Lua's numbers are doubles, exact for integers below 2^53. New refuses
// limits whose arithmetic would not stay below it.
const (
	exact = 1 << 53
	// The number of the window an instant falls in, for any instant a
	// time.Time holds in nanoseconds (1677 to 2262, ±2^63 ns), must stay
	// below 2^53: so Per must be over 2^63 / 2^53 = 1,024ns.
	minPer = 2 * time.Microsecond
	maxPer = 240 * time.Hour // the script's long division needs 10*Per < 2^53 ns
)

// DefaultTimeout bounds a call whose context has no sooner deadline,
// unless WithTimeout says otherwise.
const DefaultTimeout = 3 * time.Second

// Throttler decides, request by request, whether each client is within its
// limits, keeping the counters in Redis. It is safe for concurrent use, and
// many Throttlers on many machines sharing one Redis and one prefix enforce
// one set of limits together.
type Throttler struct {
	rdb     redis.UniversalClient
	holds   bool          // rdb itself ends a call at its context's deadline
	timeout time.Duration // the longest a call may take
	opts    options
	client  []any             // the client limit's script arguments
	groupOf map[string]*group // read-only after New
	shared  atomic.Pointer[deadlineCtx]
}

// deadlineCtx is a context.Background with a deadline, which the calls
// that bring no context of their own share for a while (see bound).
type deadlineCtx struct {
	ctx      context.Context
	deadline time.Time
	cancel   context.CancelFunc // not called: its timer ends it
}

type group struct {
	key   string // the group's state, prefix{g<name>}, and the start of its members' keys
	limit []any
}

type options struct {
	prefix   string
	clk      clock.Clock // nil: the Redis server's TIME
	timeout  time.Duration
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

// WithTimeout bounds every call: it returns at most d after it starts, or
// by its context's deadline if that comes first. The default is
// DefaultTimeout, 3s. d must be positive. A call whose context is
// context.Background() or context.TODO() may end up to 1% of d (and at
// most 10ms) sooner: such calls share their deadlines (see bound).
//
// A go-redis client's ReadTimeout (5s by default in go-redis v9.22) bounds
// a call too, when it is shorter: after it, go-redis would send the script
// again on another connection, and a decision sent twice can be charged
// twice.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

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
func New(rdb redis.UniversalClient, cfg throttle.Config, opts ...Option) (*Throttler, error) {
	if rdb == nil {
		return nil, errors.New("redisthrottle.New: the Redis client is nil")
	}
	o := options{prefix: "throttle:", timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	if strings.ContainsAny(o.prefix, "{}") {
		return nil, fmt.Errorf("redisthrottle.New: the prefix %q contains '{' or '}', which would change the keys' hash tag", o.prefix)
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("redisthrottle.New: WithTimeout(%v): the timeout must be positive", o.timeout)
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
	t := &Throttler{rdb: rdb, opts: o, timeout: o.timeout, client: client, groupOf: map[string]*group{}}
	var read time.Duration
	t.holds, read = clientTimeouts(rdb)
	if read > 0 {
		t.timeout = min(t.timeout, read)
	}
	for i, gc := range cfg.Groups {
		l, err := compile(fmt.Sprintf("Groups[%d].Limit", i), gc.Limit)
		if err != nil {
			return nil, err
		}
		g := &group{key: o.prefix + "{g" + escape(gc.Name) + "}", limit: l}
		for _, name := range gc.Clients {
			t.groupOf[name] = g
		}
	}
	return t, nil
}

// clientTimeouts says whether a go-redis client ends a call at its
// context's deadline (ContextTimeoutEnabled), and returns its read
// timeout, 0 if it has none. For a client it does not know, the throttler
// makes the deadline hold itself.
func clientTimeouts(rdb redis.UniversalClient) (holds bool, read time.Duration) {
	switch c := rdb.(type) {
	case *redis.Client: // NewFailoverClient's too
		o := c.Options()
		holds, read = o.ContextTimeoutEnabled, o.ReadTimeout
	case *redis.ClusterClient:
		o := c.Options()
		holds, read = o.ContextTimeoutEnabled, o.ReadTimeout
	case *redis.Ring:
		o := c.Options()
		holds, read = o.ContextTimeoutEnabled, o.ReadTimeout
	}
	return holds, max(read, 0)
}

// compile checks what only the Redis form needs of a limit that
// throttle.New has accepted, and turns it into the script's four
// arguments, boxed once: algorithm, Requests, then Per and 0 for a window,
// or the units in a token and the units gained a nanosecond for a bucket.
func compile(field string, l throttle.Limit) ([]any, error) {
	switch {
	case l.Per < minPer || l.Per > maxPer:
		return nil, fmt.Errorf("redisthrottle.New: %s.Per is %v; the Redis throttler needs %v to %v, for exact arithmetic in Lua", field, l.Per, minPer, maxPer)
	case l.Requests >= exact:
		return nil, fmt.Errorf("redisthrottle.New: %s.Requests %d is too large for exact arithmetic in Lua", field, l.Requests)
	}
	req, per := int64(l.Requests), int64(l.Per)
	args := []any{int(l.Algorithm), req, per, 0}
	switch l.Algorithm {
	case throttle.SlidingWindow:
		if l.Buckets > 2 {
			return nil, fmt.Errorf("redisthrottle.New: %s.Buckets is %d; the Redis throttler keeps only the two-bucket sliding window (previous and current): use 0 or 2", field, l.Buckets)
		}
		if req > exact/per {
			return nil, fmt.Errorf("redisthrottle.New: %s.Requests (%d) × %s.Per (%v) must stay below 2^53 for exact arithmetic in Lua", field, l.Requests, field, l.Per)
		}
	case throttle.TokenBucket:
		// As in throttle: a token is per/g units, and the bucket gains
		// requests/g units a nanosecond, g = gcd(requests, per).
		g := gcd(req, per)
		unit, refill := per/g, req/g
		if req > exact/unit {
			return nil, fmt.Errorf("redisthrottle.New: %s.Requests (%d) and %s.Per (%v) are too large together for exact token arithmetic in Lua", field, l.Requests, field, l.Per)
		}
		args[2], args[3] = unit, refill
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
// unreachable, the deadline passes, the script fails), AllowN returns an
// error, and with FailOpen or FailClosed also the Decision that option
// chose.
//
// The call's deadline is its context's, or the Throttler's timeout (see
// WithTimeout) after it starts if that is sooner, and it holds whatever
// the client's settings: AllowN returns by it even from a server that
// accepts the script and never answers.
//
// A call that times out may have been charged all the same. Once the
// script is written to the connection, Redis runs it when it reads it,
// and nothing tells it that the caller has stopped waiting: a server that
// was paused or slow charges the decision when it gets to it, and with
// FailOpen the request was allowed as well. With a client that does not
// end calls at their context's deadline (ContextTimeoutEnabled unset),
// go-redis keeps going after AllowN has returned, and may even send the
// script then. Decisions carry no ID that would let Redis refuse a
// repeat, so a timed-out call retried by the caller can be charged twice.
func (t *Throttler) AllowN(ctx context.Context, client string, n int) (throttle.Decision, error) {
	if n < 1 {
		panic(fmt.Sprintf("redisthrottle: AllowN(%q, %d): n must be at least 1", client, n))
	}
	g := t.groupOf[client]
	// The command is built in one slice, EVALSHA sha numkeys keys... n
	// limits... [time], with the limits' arguments boxed once in New:
	// go-redis takes interfaces, so the key and the slice still allocate,
	// and so does the time of a harness clock.
	var args []any
	if g == nil {
		args = make([]any, 0, 4+1+4+2)
		args = append(args, "evalsha", decideSHA, 1, t.opts.prefix+"{c"+escape(client)+"}", n)
		args = append(args, t.client...)
	} else {
		args = make([]any, 0, 5+1+8+2)
		args = append(args, "evalsha", decideSHA, 2, g.key+"c"+escape(client), g.key, n)
		args = append(args, t.client...)
		args = append(args, g.limit...)
	}
	if t.opts.clk != nil {
		ns := t.opts.clk.Now().UnixNano()
		s, f := ns/1e9, ns%1e9
		if f < 0 {
			s, f = s-1, f+1e9
		}
		args = append(args, s, f)
	}
	ctx, cancel := t.bound(ctx)
	defer cancel()
	var (
		res any
		err error
	)
	if t.holds {
		res, err = t.eval(ctx, args)
	} else {
		res, err = t.evalBy(ctx, args)
	}
	d, err := decision(res, err)
	if err != nil {
		err = fmt.Errorf("redisthrottle: AllowN(%q, %d): %w", client, n, err)
		if t.opts.onError != nil {
			return *t.opts.onError, fmt.Errorf("%w (failing %s)", err, t.opts.failMode)
		}
		return throttle.Decision{}, err
	}
	return d, nil
}

// noCancel is the cancel func of a context bound does not replace.
func noCancel() {}

// bound gives ctx the call's deadline: its own, or t.timeout from now if
// that is sooner.
//
// A deadline is a timer, which costs more than all of a call's
// arithmetic. So the calls whose context is context.Background() or
// context.TODO(), which have no values or cancellation of their own to
// keep, share one: a call takes the shared deadline if it is at most 1%
// of the timeout (and 10ms) sooner than its own would be, and the first
// call for which it is not makes a new one.
func (t *Throttler) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= t.timeout {
		return ctx, noCancel
	}
	if ctx != context.Background() && ctx != context.TODO() {
		return context.WithTimeout(ctx, t.timeout)
	}
	due := time.Now().Add(t.timeout)
	if sh := t.shared.Load(); sh != nil && !sh.deadline.Before(due.Add(-min(t.timeout/100, 10*time.Millisecond))) {
		return sh.ctx, noCancel
	}
	sh := &deadlineCtx{deadline: due}
	sh.ctx, sh.cancel = context.WithDeadline(context.Background(), due)
	t.shared.Store(sh)
	return sh.ctx, noCancel
}

// eval runs the command in args, EVALSHA first; after a NOSCRIPT reply (a
// SCRIPT FLUSH, a restart, a failover) it sends EVAL with the source,
// which loads the script again. It returns the script's reply.
func (t *Throttler) eval(ctx context.Context, args []any) (any, error) {
	cmd := redis.NewCmd(ctx, args...)
	_ = t.rdb.Process(ctx, cmd)
	if err := cmd.Err(); err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		args[0], args[1] = "eval", decideSource
		cmd = redis.NewCmd(ctx, args...)
		_ = t.rdb.Process(ctx, cmd)
	}
	return cmd.Result()
}

// evalBy is eval for a client that would not end the call at ctx's
// deadline: the call runs in a goroutine, and evalBy stops waiting for it
// at the deadline. That goroutine then ends at the client's own timeouts;
// since ctx is done by then, go-redis does not retry.
func (t *Throttler) evalBy(ctx context.Context, args []any) (any, error) {
	type reply struct {
		res any
		err error
	}
	done := make(chan reply, 1)
	go func() {
		res, err := t.eval(ctx, args)
		done <- reply{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// decision reads the script's reply: Remaining when allowed, {Remaining,
// RetryAfter} when denied.
func decision(res any, err error) (throttle.Decision, error) {
	if err != nil {
		return throttle.Decision{}, err
	}
	switch r := res.(type) {
	case int64:
		return throttle.Decision{Allowed: true, Remaining: int(min(r, math.MaxInt))}, nil
	case []any:
		if len(r) == 2 {
			left, ok1 := r[0].(int64)
			retry, ok2 := r[1].(int64)
			if ok1 && ok2 {
				return throttle.Decision{Remaining: int(min(left, math.MaxInt)), RetryAfter: time.Duration(retry)}, nil
			}
		}
	}
	return throttle.Decision{}, fmt.Errorf("the script returned %v (%T), want a number or two", res, res)
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
