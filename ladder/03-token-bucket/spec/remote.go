package spec

import (
	"time"

	"github.com/rateladder/rateladder/harness/remote"
)

// Check runs every case the class report's checker can judge against
// buckets that live in another process, the student's child, through a
// connection to it. CheckFuzz plays the fuzz target's timelines against
// the child's buckets: its seeds, and the inputs f holds already.
var Check, CheckFuzz = remote.Checkers(cases, Fuzz[Bucket], remoteNew)

// remoteBucket is a Bucket whose methods run in the child.
type remoteBucket struct{ o *remote.Object }

func (r remoteBucket) Allow(now time.Time) bool { return remote.Result[bool](r.o, "Allow", now) }

func (r remoteBucket) AllowN(now time.Time, n int) bool {
	return remote.Result[bool](r.o, "AllowN", now, n)
}

func (r remoteBucket) Tokens(now time.Time) float64 {
	return remote.Result[float64](r.o, "Tokens", now)
}

func (r remoteBucket) Delay(now time.Time, n int) (time.Duration, bool) {
	return remote.Result2[time.Duration, bool](r.o, "Delay", now, n)
}

// remoteNew builds proxies, each of a value that New builds in the child.
func remoteNew(conn *remote.Conn) func(int, float64) Bucket {
	return func(capacity int, rate float64) Bucket {
		return remoteBucket{conn.New("New", nil, capacity, rate)}
	}
}
