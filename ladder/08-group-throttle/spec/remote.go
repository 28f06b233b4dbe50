package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/remote"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// Check runs every case the class report's checker can judge against
// throttlers that live in another process, the student's child, through
// conn. The child's clock reads what the case's clock reads when each
// call starts; only the cases judged in process move a clock during a
// call.
func Check(t *testing.T, conn *remote.Conn) {
	timeline.Run(t, timeline.Checked(cases(remoteNew(conn), 0)))
}

// CheckFuzz plays the fuzz target's timelines against the child's
// throttlers: its seeds, and the inputs f holds already.
func CheckFuzz(f *testing.F, conn *remote.Conn) { Fuzz(f, remoteNew(conn)) }

// remoteThrottler is a Throttler, with Len, whose methods run in the
// child.
type remoteThrottler struct{ o *remote.Object }

func remoteNew(conn *remote.Conn) ctor {
	return func(clk clock.Clock, cfg limits.Config) (Throttler, error) {
		var err error
		o := conn.New("New", []any{&err}, clk, cfg)
		if err != nil {
			return nil, err
		}
		return remoteThrottler{o}, nil
	}
}

func (r remoteThrottler) Allow(client string) (d limits.Decision) {
	r.o.Call("Allow", []any{&d}, client)
	return d
}

func (r remoteThrottler) AllowN(client string, n int) (d limits.Decision) {
	r.o.Call("AllowN", []any{&d}, client, n)
	return d
}

func (r remoteThrottler) Len() (n int) { r.o.Call("Len", []any{&n}); return n }
