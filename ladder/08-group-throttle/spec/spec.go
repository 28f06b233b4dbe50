// Package spec is level 8's conformance suite: every case of the throttler
// is written here once, and run against the learner's stub in
// ladder/08-group-throttle, the reference in solutions/08-group-throttle,
// and any other implementation of the same behaviour, such as the Redis
// form of the level.
//
// The configuration and decision types come from package limits, which the
// throttle packages re-export with type aliases. The spec cannot import a
// throttle package for them: the stub's in-package test imports this
// package, so that would be an import cycle.
//
// # Cost claims
//
// Each cost README.md states, and the case a wrong-cost implementation
// fails:
//
//   - Memory follows the clients of the last 2·Per, without a background
//     goroutine (part 5): "100,000 idle clients are forgotten" for each
//     algorithm, and "a busy client is never reset by a flood of new
//     clients".
//   - Amortized O(1): eviction that scans every client on every call costs
//     five billion steps in the idle-clients cases, which then run past
//     the case's timeout; the failure says the case did not finish, not
//     which bound it broke.
//   - A call for a client that already has state allocates nothing: no
//     case; the benchmark rows hot and 100k_clients report allocs/op.
//   - The cost per call does not grow with the buckets of a sliding
//     window: no case; the benchmark rows SlidingWindow_B2 and
//     SlidingWindow_B61 show it.
package spec

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// Throttler is the API every implementation of level 8 shares. The
// in-memory throttler also has Len, which the cases that need it reach
// through a type assertion, so that an implementation without it (the
// Redis form) can run the other cases.
type Throttler interface {
	Allow(client string) limits.Decision
	AllowN(client string, n int) limits.Decision
}

// Feature is something a case needs beyond Allow and AllowN. An
// implementation that lacks some of them runs the spec with TestWithout.
type Feature uint

// The features a case can need.
const (
	// UsesLen: the case calls Len.
	UsesLen Feature = 1 << iota
	// ClockBack: the clock goes backwards during the case.
	ClockBack
	// ManyBuckets: a SlidingWindow with Buckets other than 0 or 2.
	ManyBuckets
	// InProcess: the case sends 100,000 requests or more, or hammers the
	// throttler from many goroutines; it assumes an in-process throttler.
	InProcess
	// WholeRange: the case reads the clock near or beyond the ends of the
	// range of time.Time.UnixNano (1678 and 2262), or its Per is longer
	// than a day. The in-memory throttler is exact over that whole range;
	// the Redis form's arithmetic (Lua's doubles) is not meant to be.
	WholeRange
)

// Test runs every case against the throttlers newThrottler builds.
func Test[T Throttler](t *testing.T, newThrottler func(c clock.Clock, cfg limits.Config) (T, error)) {
	t.Helper()
	TestWithout(t, newThrottler, 0)
}

// TestWithout runs the cases that need none of the features in skip. The
// Redis form of the level runs it with UsesLen|ClockBack|ManyBuckets|
// InProcess|WholeRange, and the in-memory and Redis throttlers then agree
// on every timeline they share.
func TestWithout[T Throttler](t *testing.T, newThrottler func(c clock.Clock, cfg limits.Config) (T, error), skip Feature) {
	timeline.Run(t, cases(erase(newThrottler), skip))
}

// cases binds the tables to a constructor, leaving out the rows that need
// a feature in skip.
func cases(newThrottler ctor, skip Feature) []timeline.Case[Throttler] {
	return slices.Concat(
		timeline.Bind(clocked(newThrottler), without(table, skip)...),
		timeline.Bind(refusing(newThrottler), without(refusals, skip)...),
	)
}

// ctor is a constructor with the concrete type erased.
type ctor func(clock.Clock, limits.Config) (Throttler, error)

// erase turns a constructor of a concrete type into one of the interface,
// so that Test type-checks with throttle.New as it is. It is
// timeline.Erase for a constructor that takes a clock and returns an
// error.
func erase[T Throttler](newThrottler func(clock.Clock, limits.Config) (T, error)) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		th, err := newThrottler(c, cfg)
		if err != nil {
			return nil, err
		}
		return th, nil
	}
}

// clocked is the binding of newThrottler for the rows of valid configs:
// an error from New is a panic, which the report shows at New.
func clocked(newThrottler ctor) timeline.Binding[Throttler, limits.Config] {
	return timeline.Binding[Throttler, limits.Config]{
		New: func(clk clock.Clock, cfg limits.Config) Throttler {
			th, err := newThrottler(clk, cfg)
			if err != nil {
				panic(fmt.Sprintf("New returned an error for a valid config: %v", err))
			}
			return th
		},
		Setup:   describe,
		Clocked: true,
	}
}

// refusing is the binding of newThrottler for the rows of refusals, whose
// New must fail: the case's throttler is what New returned, for the
// row's probe to judge.
func refusing(newThrottler ctor) timeline.Binding[Throttler, limits.Config] {
	b := clocked(newThrottler)
	b.New = func(clk clock.Clock, cfg limits.Config) Throttler {
		th, err := newThrottler(clk, cfg)
		return built{th, err, cfg}
	}
	return b
}

// Offsets and durations in the tables are written with these.
const ns, ms, sec, minute, hour = time.Nanosecond, time.Millisecond, time.Second, time.Minute, time.Hour

// row is a case of the tables before it is bound to a constructor; its
// Arg is the config New takes. A step is one of its calls, at an offset
// from the start: at(10*sec, allow("alice", ok(4))).
type (
	row  = timeline.Row[Throttler, limits.Config]
	step = timeline.Step[Throttler]
	call = timeline.Call[Throttler]
)

var at = timeline.At[Throttler]

// needed is what each row marked with needs needs, by name, filled in as
// the tables are built. A row not in it needs only Allow and AllowN.
var needed = map[string]Feature{}

// needs marks r as a row that needs f, which TestWithout leaves out when
// it skips any feature in f.
func needs(f Feature, r row) row {
	needed[r.Name] = f
	if f&InProcess != 0 {
		// The class report's checker leaves such a probe to the student's
		// own test binary: its calls are too many to make across
		// processes, or come from many goroutines at once.
		r.InProcess = "goroutines, or 100,000 requests"
	}
	return r
}

// without is rows less those that need a feature in skip.
func without(rows []row, skip Feature) []row {
	return slices.DeleteFunc(slices.Clone(rows), func(r row) bool { return needed[r.Name]&skip != 0 })
}

func allow(client string, want limits.Decision) call {
	return decision("Allow", want, func(th Throttler) limits.Decision { return th.Allow(client) }, client)
}

func allowN(client string, n int, want limits.Decision) call {
	return decision("AllowN", want, func(th Throttler) limits.Decision { return th.AllowN(client, n) }, client, n)
}

// decision is a call of method, with args, that must decide want.
func decision(method string, want limits.Decision, decide func(Throttler) limits.Decision, args ...any) call {
	return call{Method: method, Args: args, Want: want, Do: func(th Throttler, _ time.Time) any { return decide(th) }}
}

// between is a range of acceptable Len results.
type between struct{ lo, hi int }

func (b between) String() string {
	if b.lo == b.hi {
		return fmt.Sprint(b.lo)
	}
	return fmt.Sprintf("%d to %d", b.lo, b.hi)
}

// length calls Len, which must lie in [lo, hi]: at least the clients and
// groups whose state differs from a fresh one, at most those that made a
// request in (now-2·Per, now].
func length(lo, hi int) call {
	want := between{lo, hi}
	return call{
		Method: "Len",
		Do:     func(th Throttler, _ time.Time) any { return lenOf(th) },
		Want:   want,
		Accept: func(got any) bool { n, ok := got.(int); return ok && n >= lo && n <= hi },
	}
}

// lenOf calls Len, or returns a message if the implementation has none.
func lenOf(th Throttler) any {
	l, ok := th.(interface{ Len() int })
	if !ok {
		return fmt.Sprintf("%T has no Len method", th)
	}
	return l.Len()
}

// The decisions, written short.
func ok(remaining int) limits.Decision { return limits.Decision{Allowed: true, Remaining: remaining} }
func no(remaining int, retry time.Duration) limits.Decision {
	return limits.Decision{Remaining: remaining, RetryAfter: retry}
}
func never(remaining int) limits.Decision { return limits.Decision{Remaining: remaining} }

// burst is count Allow calls from client at one instant, the first leaving
// firstLeft.
func burst(offset time.Duration, client string, count, firstLeft int) []step {
	out := make([]step, count)
	for i := range out {
		out[i] = at(offset, allow(client, ok(firstLeft-i)))
	}
	return out
}

// steps flattens steps and slices of steps into one timeline.
func steps(items ...any) []step {
	var out []step
	for _, it := range items {
		switch v := it.(type) {
		case step:
			out = append(out, v)
		case []step:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("spec: steps: %T is not a step", it))
		}
	}
	return out
}

// The limits used in the tables, written short.
func fixed(requests int, per time.Duration) limits.Limit {
	return limits.Limit{Algorithm: limits.FixedWindow, Requests: requests, Per: per}
}
func sliding(requests int, per time.Duration, buckets int) limits.Limit {
	return limits.Limit{Algorithm: limits.SlidingWindow, Requests: requests, Per: per, Buckets: buckets}
}
func token(requests int, per time.Duration) limits.Limit {
	return limits.Limit{Algorithm: limits.TokenBucket, Requests: requests, Per: per}
}
func only(l limits.Limit) limits.Config { return limits.Config{PerClient: l} }
func group(name string, l limits.Limit, clients ...string) limits.Group {
	return limits.Group{Name: name, Limit: l, Clients: clients}
}

// describe writes a config for a case's Setup line.
func describe(cfg limits.Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "New(clk, PerClient: %v", cfg.PerClient)
	for _, g := range cfg.Groups {
		fmt.Fprintf(&b, "; group %q: %v for %q", g.Name, g.Limit, g.Clients)
	}
	b.WriteString(")")
	return b.String()
}

// built is what New returned for a config it must refuse, with that
// config: the throttler of a refusal's case, which no step calls.
type built struct {
	Throttler // nil when New returned an error
	err       error
	cfg       limits.Config
}

// refuses is the probe of a row of refusals, whose throttler is built: New
// must have returned an error that names one of fields.
func refuses(fields ...string) func(Throttler, env) error {
	return func(th Throttler, _ env) error { return th.(built).refused(fields) }
}

// checkBadConfig checks that New refuses cfg with an error naming the field.
func checkBadConfig(newThrottler ctor, clk clock.Clock, cfg limits.Config, fields []string) error {
	th, err := newThrottler(clk, cfg)
	return built{th, err, cfg}.refused(fields)
}

// refused is nil if New refused b.cfg with an error naming one of fields,
// and otherwise says what New did instead.
func (b built) refused(fields []string) error {
	if b.err == nil {
		return fmt.Errorf("%s returned a throttler (%T) and no error, want an error naming %s", describe(b.cfg), b.Throttler, strings.Join(fields, " or "))
	}
	for _, f := range fields {
		if strings.Contains(b.err.Error(), f) {
			return nil
		}
	}
	return fmt.Errorf("%s returned the error %q, want one that names %s", describe(b.cfg), b.err, strings.Join(fields, " or "))
}
