package spec

import (
	"time"

	"github.com/rateladder/rateladder/harness/remote"
)

// Check runs every case the class report's checker can judge against
// aggregators that live in another process, the student's child, through
// a connection to it. CheckFuzz plays the fuzz target's timelines against
// the child's aggregators: its seeds, and the inputs f holds already.
var Check, CheckFuzz = remote.Checkers(cases, Fuzz[Aggregator], remoteNew)

// remoteAggregator is an Aggregator whose methods run in the child.
type remoteAggregator struct{ o *remote.Object }

func (r remoteAggregator) Record(m Message) { r.o.Call("Record", nil, m) }

func (r remoteAggregator) Total(now time.Time) int { return remote.Result[int](r.o, "Total", now) }

func (r remoteAggregator) ByUser(now time.Time, user string) int {
	return remote.Result[int](r.o, "ByUser", now, user)
}

func (r remoteAggregator) ByChannel(now time.Time, channel string) int {
	return remote.Result[int](r.o, "ByChannel", now, channel)
}

func (r remoteAggregator) TopTalker(now time.Time) (Talker, bool) {
	return remote.Result2[Talker, bool](r.o, "TopTalker", now)
}

func (r remoteAggregator) TopTalkers(now time.Time, k int) []Talker {
	return remote.Result[[]Talker](r.o, "TopTalkers", now, k)
}

// remoteNew builds proxies, each of a value that New builds in the child.
func remoteNew(conn *remote.Conn) func(time.Duration) Aggregator {
	return func(window time.Duration) Aggregator { return remoteAggregator{conn.New("New", nil, window)} }
}
