package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/remote"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Check runs every case the class report's checker can judge against
// buckets that live in another process, the student's child, through
// conn.
func Check(t *testing.T, conn *remote.Conn) {
	timeline.Run(t, timeline.Checked(cases(remoteNew(conn))))
}

// CheckFuzz plays the fuzz target's timelines against the child's
// buckets: its seeds, and the inputs f holds already.
func CheckFuzz(f *testing.F, conn *remote.Conn) { Fuzz(f, remoteNew(conn)) }

// remoteBucket is a Bucket whose methods run in the child.
type remoteBucket struct{ o *remote.Object }

func remoteNew(conn *remote.Conn) func(int, float64) Bucket {
	return func(capacity int, rate float64) Bucket {
		return remoteBucket{conn.New("New", nil, capacity, rate)}
	}
}

func (r remoteBucket) Allow(now time.Time) (ok bool) {
	r.o.Call("Allow", []any{&ok}, now)
	return ok
}

func (r remoteBucket) AllowN(now time.Time, n int) (ok bool) {
	r.o.Call("AllowN", []any{&ok}, now, n)
	return ok
}

func (r remoteBucket) Tokens(now time.Time) (tokens float64) {
	r.o.Call("Tokens", []any{&tokens}, now)
	return tokens
}

func (r remoteBucket) Delay(now time.Time, n int) (wait time.Duration, ok bool) {
	r.o.Call("Delay", []any{&wait, &ok}, now, n)
	return wait, ok
}
