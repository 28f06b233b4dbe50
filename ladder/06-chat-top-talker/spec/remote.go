package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/remote"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Check runs every case the class report's checker can judge against
// aggregators that live in another process, the student's child, through
// conn.
func Check(t *testing.T, conn *remote.Conn) {
	timeline.Run(t, timeline.Checked(cases(remoteNew(conn))))
}

// CheckFuzz plays the fuzz target's timelines against the child's
// aggregators: its seeds, and the inputs f holds already.
func CheckFuzz(f *testing.F, conn *remote.Conn) { Fuzz(f, remoteNew(conn)) }

// remoteAggregator is an Aggregator whose methods run in the child.
type remoteAggregator struct{ o *remote.Object }

func remoteNew(conn *remote.Conn) func(time.Duration) Aggregator {
	return func(window time.Duration) Aggregator { return remoteAggregator{conn.New("New", nil, window)} }
}

func (r remoteAggregator) Record(m Message) { r.o.Call("Record", nil, m) }

func (r remoteAggregator) Total(now time.Time) (n int) {
	r.o.Call("Total", []any{&n}, now)
	return n
}

func (r remoteAggregator) ByUser(now time.Time, user string) (n int) {
	r.o.Call("ByUser", []any{&n}, now, user)
	return n
}

func (r remoteAggregator) ByChannel(now time.Time, channel string) (n int) {
	r.o.Call("ByChannel", []any{&n}, now, channel)
	return n
}

func (r remoteAggregator) TopTalker(now time.Time) (t Talker, ok bool) {
	r.o.Call("TopTalker", []any{&t, &ok}, now)
	return t, ok
}

func (r remoteAggregator) TopTalkers(now time.Time, k int) (ts []Talker) {
	r.o.Call("TopTalkers", []any{&ts}, now, k)
	return ts
}
