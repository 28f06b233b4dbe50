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
// a connection to it. The child's clock reads what the case's clock reads
// when each call starts; only the cases judged in process move a clock
// during a call. CheckFuzz plays the fuzz target's timelines against the
// child's throttlers: its seeds, and the inputs f holds already.
var Check, CheckFuzz = remote.Checkers(
	func(newThrottler ctor) []timeline.Case[Throttler] { return cases(newThrottler, 0) },
	func(f *testing.F, newThrottler ctor) { Fuzz(f, newThrottler) },
	remoteNew)

// remoteThrottler is a Throttler, with Len, whose methods run in the
// child.
type remoteThrottler struct{ o *remote.Object }

func (r remoteThrottler) Allow(client string) limits.Decision {
	return remote.Result[limits.Decision](r.o, "Allow", client)
}

func (r remoteThrottler) AllowN(client string, n int) limits.Decision {
	return remote.Result[limits.Decision](r.o, "AllowN", client, n)
}

func (r remoteThrottler) Len() int { return remote.Result[int](r.o, "Len") }

// remoteNew builds proxies, each of a value that New builds in the child.
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
