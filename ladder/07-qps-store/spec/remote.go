package spec

import (
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/remote"
	"github.com/rateladder/rateladder/ladder/07-qps-store/qpsop"
)

// Check runs every case the class report's checker can judge against
// stores that live in another process, the student's child, through a
// connection to it. The child's clock reads what the case's clock reads
// when each call starts; no case moves its clock during a call but those
// about goroutines, which are judged in process. CheckFuzz plays the fuzz
// target's timelines against the child's stores: its seeds, and the
// inputs f holds already.
var Check, CheckFuzz = remote.Checkers(cases, Fuzz[Store], remoteNew)

// remoteStore is a Store whose methods run in the child.
type remoteStore struct{ o *remote.Object }

func (r remoteStore) Get(key string) (value string, ok bool) {
	return remote.Result2[string, bool](r.o, "Get", key)
}

func (r remoteStore) Put(key, value string) { r.o.Call("Put", nil, key, value) }

func (r remoteStore) QPS(op qpsop.Op, window time.Duration) float64 {
	return remote.Result[float64](r.o, "QPS", op, window)
}

// remoteNew builds proxies, each of a value that New builds in the child.
func remoteNew(conn *remote.Conn) func(clock.Clock) Store {
	return func(clk clock.Clock) Store { return remoteStore{conn.New("New", nil, clk)} }
}
