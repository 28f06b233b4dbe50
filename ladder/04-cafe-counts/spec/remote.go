package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/remote"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Check runs every case the class report's checker can judge against
// cafés that live in another process, the student's child, through conn.
func Check(t *testing.T, conn *remote.Conn) {
	timeline.Run(t, timeline.Checked(cases(remoteNew(conn))))
}

// CheckFuzz plays the fuzz target's timelines against the child's cafés:
// its seeds, and the inputs f holds already.
func CheckFuzz(f *testing.F, conn *remote.Conn) { Fuzz(f, remoteNew(conn)) }

// remoteCafe is a Cafe whose methods run in the child.
type remoteCafe struct{ o *remote.Object }

func remoteNew(conn *remote.Conn) func(time.Duration) Cafe {
	return func(window time.Duration) Cafe { return remoteCafe{conn.New("New", nil, window)} }
}

func (r remoteCafe) Order(now time.Time, drink string) { r.o.Call("Order", nil, now, drink) }

func (r remoteCafe) Count(now time.Time, drink string) (n int) {
	r.o.Call("Count", []any{&n}, now, drink)
	return n
}

func (r remoteCafe) Total(now time.Time) (n int) { r.o.Call("Total", []any{&n}, now); return n }

func (r remoteCafe) Distinct(now time.Time) (n int) { r.o.Call("Distinct", []any{&n}, now); return n }

func (r remoteCafe) Counts(now time.Time) (m map[string]int) {
	r.o.Call("Counts", []any{&m}, now)
	return m
}
