// Package spec is the conformance suite of level 8's Redis form, parts 6
// to 8 of the level: the cases are written here once and run against the
// learner's stub in ladder/08-group-throttle/redisthrottle and the
// reference in solutions/08-group-throttle/redisthrottle.
//
// It is a module of its own with the stub, so that go-redis and miniredis
// never enter the main go.mod: a learner who stops at part 5 never
// downloads them.
package spec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
	throttlespec "github.com/rateladder/rateladder/ladder/08-group-throttle/spec"
)

// The Redis form of level 8 keeps the same Config and Decision, but each
// decision is a round trip to Redis, so its methods take a context and
// return an error. Its spec runs every case of level 8's parts 1 to 4 that
// it can (no Len, no clock going back, no sliding window of more than two
// buckets, no 100,000-client floods) as part 6, beside the cases of parts
// 6 to 8 that only Redis has.
//
// By default the Redis is miniredis, in process, so nothing needs to be
// installed. With REDIS_ADDR set (host:port, or a redis:// URL), every case
// also runs against that server, under keys with a prefix of their own;
// with redis-server on the PATH, the fault cases also start and kill a
// real server of their own; and with both, they also pause one.

// RedisThrottler is the API of the Redis form.
type RedisThrottler interface {
	Allow(ctx context.Context, client string) (limits.Decision, error)
	AllowN(ctx context.Context, client string, n int) (limits.Decision, error)
}

// RedisOptions are the Redis form's option constructors, so that the spec
// can build throttlers with a prefix of its choosing and a fake clock, and
// check the deadlines and the fault modes. O is the package's Option type.
type RedisOptions[O any] struct {
	Prefix     func(prefix string) O
	Clock      func(c clock.Clock) O
	Timeout    func(d time.Duration) O
	FailOpen   func() O
	FailClosed func(retryAfter time.Duration) O
}

// DefaultTimeout is the longest a call may take when neither its context
// nor WithTimeout says otherwise.
const DefaultTimeout = 3 * time.Second

// RedisEnv names the environment variable with a real Redis server's
// address, for the cases to run against it too.
const RedisEnv = "REDIS_ADDR"

// The skipped features: what the Redis form does not have or do.
// WholeRange cases are the in-process form's (time standing still past
// 2262, windows as long as a Duration); the Redis form has its own cases at
// both ends of int64 time, in this package.
const redisSkips = throttlespec.UsesLen | throttlespec.ClockBack | throttlespec.ManyBuckets | throttlespec.InProcess | throttlespec.WholeRange

// redisOpts is how a case wants its throttler built.
type redisOpts struct {
	prefix     string
	clk        clock.Clock   // nil: the server's TIME
	timeout    time.Duration // 0: the default
	failOpen   bool
	failClosed time.Duration
}

// redisCtor builds a Redis throttler with the concrete types erased.
type redisCtor func(rdb redis.UniversalClient, cfg limits.Config, o redisOpts) (RedisThrottler, error)

func eraseRedis[T RedisThrottler, O any](newThrottler func(redis.UniversalClient, limits.Config, ...O) (T, error), ro RedisOptions[O]) redisCtor {
	return func(rdb redis.UniversalClient, cfg limits.Config, o redisOpts) (RedisThrottler, error) {
		var opts []O
		if o.prefix != "" {
			opts = append(opts, ro.Prefix(o.prefix))
		}
		if o.clk != nil {
			opts = append(opts, ro.Clock(o.clk))
		}
		if o.timeout > 0 {
			opts = append(opts, ro.Timeout(o.timeout))
		}
		if o.failOpen {
			opts = append(opts, ro.FailOpen())
		}
		if o.failClosed > 0 {
			opts = append(opts, ro.FailClosed(o.failClosed))
		}
		th, err := newThrottler(rdb, cfg, opts...)
		if err != nil {
			return nil, err
		}
		return th, nil
	}
}

// backend is one Redis the cases run against.
type backend struct {
	name string
	addr string
	rdb  *redis.Client
	mini *miniredis.Miniredis // nil for a real server
	base string               // the prefix of every key this run writes
	seq  atomic.Int64
}

// prefix returns a key prefix no other case or run uses.
func (b *backend) prefix() string { return fmt.Sprintf("%s%d:", b.base, b.seq.Add(1)) }

// newClient is a go-redis client for the backend that honours contexts,
// and waits long for a reply otherwise: only the context may cut a call
// short.
func newClient(addr string) *redis.Client {
	opts := &redis.Options{Addr: addr}
	if strings.Contains(addr, "://") {
		var err error
		if opts, err = redis.ParseURL(addr); err != nil {
			panic(fmt.Sprintf("spec: %s=%q: %v", RedisEnv, addr, err))
		}
	}
	opts.ContextTimeoutEnabled = true
	opts.ReadTimeout, opts.WriteTimeout = 30*time.Second, 30*time.Second
	opts.MaxRetries = -1 // one command, one round trip
	return redis.NewClient(opts)
}

// defaultClient is a go-redis client with every option at its default, as
// most programs make one: it ignores a context's deadline
// (ContextTimeoutEnabled is false), waits 3s for a reply, and retries a
// failed command 3 times.
func defaultClient(addr string) *redis.Client { return redis.NewClient(&redis.Options{Addr: addr}) }

func newBackend(name, addr string, mini *miniredis.Miniredis) *backend {
	var r [6]byte
	_, _ = rand.Read(r[:])
	return &backend{
		name: name, addr: addr, rdb: newClient(addr), mini: mini,
		base: "rateladder-spec:" + hex.EncodeToString(r[:]) + ":",
	}
}

// startMiniredis starts a miniredis in this process, on a free port.
func startMiniredis() (*miniredis.Miniredis, error) {
	mr := miniredis.NewMiniRedis()
	if err := mr.Start(); err != nil {
		return nil, fmt.Errorf("starting miniredis: %v", err)
	}
	return mr, nil
}

// miniBackend starts a miniredis for the test, stopped when it ends.
func miniBackend(tb testing.TB) *backend {
	mr, err := startMiniredis()
	if err != nil {
		tb.Fatal(err)
	}
	b := newBackend("miniredis", mr.Addr(), mr)
	tb.Cleanup(func() { _ = b.rdb.Close(); mr.Close() })
	return b
}

// realBackend connects to REDIS_ADDR, or returns nil if it is not set.
func realBackend(tb testing.TB) *backend {
	addr := os.Getenv(RedisEnv)
	if addr == "" {
		return nil
	}
	b := newBackend("REDIS_ADDR", addr, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.rdb.Ping(ctx).Err(); err != nil {
		tb.Fatalf("%s=%s is set, but the server does not answer PING: %v", RedisEnv, addr, err)
	}
	tb.Cleanup(func() { _ = b.rdb.Close() })
	return b
}

// TestRedis runs the Redis form's cases: on miniredis, and when REDIS_ADDR
// is set on that server too; the fault cases on a redis-server of their
// own when one is on the PATH; and the cases that pause a server with
// SIGSTOP when REDIS_ADDR is set as well, as make test-redis does.
func TestRedis[T RedisThrottler, O any](t *testing.T, newThrottler func(redis.UniversalClient, limits.Config, ...O) (T, error), opts RedisOptions[O]) {
	t.Helper()
	newT := eraseRedis(newThrottler, opts)
	quietRedis()
	patientCases(t)
	// The cases on miniredis are this test's own parts, as the progress
	// report counts them; the other servers run the same cases again.
	timeline.Run(t, redisCases(newT, miniBackend(t)))
	if b := realBackend(t); b != nil {
		t.Run("on "+b.addr, func(t *testing.T) { timeline.Run(t, redisCases(newT, b)) })
	}
	t.Run("own redis-server", func(t *testing.T) {
		if testing.Short() {
			skipServerCases(t, len(killedServerOpts), "-short")
		}
		timeline.Run(t, ownServerCases(t, newT))
	})
	t.Run("paused redis-server", func(t *testing.T) {
		if os.Getenv(RedisEnv) == "" {
			skipServerCases(t, 1, "it pauses a redis-server of its own for seconds, so only with "+RedisEnv+" set")
		}
		timeline.Run(t, pausedServerCases(t, newT))
	})
}

// redisCaseTimeout is how long a case may run before the runner calls it
// stuck, unless LADDER_CASE_TIMEOUT says otherwise: a round trip a call
// makes the concurrent cases take seconds on a busy machine, and more with
// the race detector.
const redisCaseTimeout = "60s"

func patientCases(t *testing.T) {
	if os.Getenv(timeline.TimeoutEnv) == "" {
		t.Setenv(timeline.TimeoutEnv, redisCaseTimeout)
	}
}

// FuzzRedis is level 8's Fuzz for the Redis form, on miniredis: the
// model's answers on random timelines without the clock going back or
// more than two buckets.
func FuzzRedis[T RedisThrottler, O any](f *testing.F, newThrottler func(redis.UniversalClient, limits.Config, ...O) (T, error), opts RedisOptions[O]) {
	b := miniBackend(f)
	throttlespec.FuzzWithout(f, b.syncCtor(eraseRedis(newThrottler, opts)), redisSkips, 6)
}

// callTimeout bounds each call a timeline makes.
const callTimeout = 5 * time.Second

// syncThrottler is a Redis throttler seen as a Throttler, so that the
// timelines of parts 1 to 4 run on it unchanged. An error from Redis
// becomes a panic, which the runner reports with the step.
type syncThrottler struct {
	th  RedisThrottler
	rdb *redis.Client
	pfx string
}

func (s syncThrottler) Allow(client string) limits.Decision {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	d, err := s.th.Allow(ctx, client)
	if err != nil {
		panic(fmt.Sprintf("Allow(ctx, %q) returned the error %q", client, err))
	}
	return d
}

func (s syncThrottler) AllowN(client string, n int) limits.Decision {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	d, err := s.th.AllowN(ctx, client, n)
	if err != nil {
		panic(fmt.Sprintf("AllowN(ctx, %q, %d) returned the error %q", client, n, err))
	}
	return d
}

// syncCtor builds throttlers on b with the harness clock, each under a
// prefix of its own.
func (b *backend) syncCtor(newT redisCtor) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		p := b.prefix()
		th, err := newT(b.rdb, cfg, redisOpts{prefix: p, clk: c})
		if err != nil {
			return nil, err
		}
		return syncThrottler{th: th, rdb: b.rdb, pfx: p}, nil
	}
}

// fleet is several Throttlers, each with a client of its own, standing
// in for several app servers that share one Redis and one prefix. Calls go
// to them in turn.
type fleet struct {
	members []syncThrottler
	next    atomic.Uint64
}

func (f *fleet) pick() syncThrottler {
	return f.members[(f.next.Add(1)-1)%uint64(len(f.members))]
}
func (f *fleet) Allow(client string) limits.Decision { return f.pick().Allow(client) }
func (f *fleet) AllowN(client string, n int) limits.Decision {
	return f.pick().AllowN(client, n)
}

// newFleet builds size throttlers on b sharing one prefix, each with its
// own connection pool; they are closed when the test binary's backend is.
func (b *backend) newFleet(newT redisCtor, c clock.Clock, cfg limits.Config, size int) (*fleet, error) {
	p := b.prefix()
	f := &fleet{}
	for range size {
		rdb := newClient(b.addr)
		th, err := newT(rdb, cfg, redisOpts{prefix: p, clk: c})
		if err != nil {
			return nil, err
		}
		f.members = append(f.members, syncThrottler{th: th, rdb: rdb, pfx: p})
	}
	return f, nil
}

// close closes the fleet's own clients.
func (f *fleet) close() {
	for _, m := range f.members {
		_ = m.rdb.Close()
	}
}

// keysUnder returns every key that starts with prefix.
func keysUnder(rdb *redis.Client, prefix string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var keys []string
	iter := rdb.Scan(ctx, 0, globEscape(prefix)+"*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	return keys, iter.Err()
}

// globEscape escapes the pattern characters of SCAN's MATCH.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hashSlot is the Redis Cluster slot of a key: CRC16 (XMODEM) of its hash
// tag, the part between the first '{' and the first '}' after it if that
// is not empty, or of the whole key, modulo 16384.
func hashSlot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := range len(key) {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

// commandCounter is a go-redis hook that counts round trips: each command
// sent alone is one, and so is each pipeline.
type commandCounter struct {
	mu    sync.Mutex
	trips int
	names map[string]int
}

func (h *commandCounter) add(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trips++
	if h.names == nil {
		h.names = map[string]int{}
	}
	h.names[name]++
}

func (h *commandCounter) reset() (int, map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, names := h.trips, h.names
	h.trips, h.names = 0, nil
	return n, names
}

func (h *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.add(strings.ToUpper(cmd.Name()))
		return next(ctx, cmd)
	}
}
func (h *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.add(fmt.Sprintf("pipeline of %d", len(cmds)))
		return next(ctx, cmds)
	}
}

// quietRedis stops go-redis from logging the failed dials that the fault
// cases cause on purpose.
var quietRedis = sync.OnceFunc(func() { redis.SetLogger(quietLogger{}) })

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
