package spec

import (
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
const ns, ms, sec, minute, hour = time.Nanosecond, time.Millisecond, time.Second, time.Minute, time.Hour

type (
	step = timeline.Step[Throttler]
	call = timeline.Call[Throttler]
)

var at = timeline.At[Throttler]

// Level 8's own words, shared rather than written again.
var (
	allow   = throttlespec.Allow
	allowN  = throttlespec.AllowN
	ok      = throttlespec.Ok
	no      = throttlespec.No
	steps   = throttlespec.Steps
	fixed   = throttlespec.Fixed
	sliding = throttlespec.Sliding
	token   = throttlespec.Token
	only    = throttlespec.Only
)

// group is a group limit, written short.
func group(name string, l limits.Limit, clients ...string) limits.Group {
	return limits.Group{Name: name, Limit: l, Clients: clients}
}
