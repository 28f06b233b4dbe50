package spec

import (
	"time"

	"github.com/rateladder/rateladder/harness/remote"
)

// Check runs every case the class report's checker can judge against
// cafés that live in another process, the student's child, through a
// connection to it. CheckFuzz plays the fuzz target's timelines against
// the child's cafés: its seeds, and the inputs f holds already.
var Check, CheckFuzz = remote.Checkers(cases, Fuzz[Cafe], remoteNew)

// remoteCafe is a Cafe whose methods run in the child.
type remoteCafe struct{ o *remote.Object }

func (r remoteCafe) Order(now time.Time, drink string) { r.o.Call("Order", nil, now, drink) }

func (r remoteCafe) Count(now time.Time, drink string) int {
	return remote.Result[int](r.o, "Count", now, drink)
}

func (r remoteCafe) Total(now time.Time) int    { return remote.Result[int](r.o, "Total", now) }
func (r remoteCafe) Distinct(now time.Time) int { return remote.Result[int](r.o, "Distinct", now) }

func (r remoteCafe) Counts(now time.Time) map[string]int {
	return remote.Result[map[string]int](r.o, "Counts", now)
}

// remoteNew builds proxies, each of a value that New builds in the child.
func remoteNew(conn *remote.Conn) func(time.Duration) Cafe {
	return func(window time.Duration) Cafe { return remoteCafe{conn.New("New", nil, window)} }
}
