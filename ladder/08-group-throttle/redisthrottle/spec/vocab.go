package spec

import (
	"fmt"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
	throttlespec "github.com/rateladder/rateladder/ladder/08-group-throttle/spec"
)

// The words the cases are written in: the same as level 8's spec uses, for
// the same types.

// Throttler is level 8's API without a context, as its timelines call it.
type Throttler = throttlespec.Throttler

// ctor builds a Throttler on the harness clock.
type ctor = func(clock.Clock, limits.Config) (Throttler, error)

// Offsets and durations in the tables are written with these.
const (
	ns     = time.Nanosecond
	ms     = time.Millisecond
	sec    = time.Second
	minute = time.Minute
	hour   = time.Hour
)

type (
	step = timeline.Step[Throttler]
	call = timeline.Call[Throttler]
)

var at = timeline.At[Throttler]

func allow(client string, want limits.Decision) call {
	return call{
		Method: "Allow",
		Args:   []any{client},
		Do:     func(th Throttler, _ time.Time) any { return th.Allow(client) },
		Want:   want,
	}
}

func allowN(client string, n int, want limits.Decision) call {
	return call{
		Method: "AllowN",
		Args:   []any{client, n},
		Do:     func(th Throttler, _ time.Time) any { return th.AllowN(client, n) },
		Want:   want,
	}
}

// The decisions, written short.
func ok(remaining int) limits.Decision { return limits.Decision{Allowed: true, Remaining: remaining} }
func no(remaining int, retry time.Duration) limits.Decision {
	return limits.Decision{Remaining: remaining, RetryAfter: retry}
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
