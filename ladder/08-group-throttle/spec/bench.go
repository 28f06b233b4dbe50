package spec

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// benchClock is a clock a benchmark moves by hand, from clock.BenchStart.
// Reading it costs one atomic load and allocates nothing, so it does not
// blur the numbers the way a Fake's mutex would under b.RunParallel.
type benchClock struct{ ns atomic.Int64 } // since clock.BenchStart

func (c *benchClock) Now() time.Time { return clock.BenchStart.Add(time.Duration(c.ns.Load())) }

// benchLimits are the algorithms the benchmarks compare, all at 1,000 a
// minute. SlidingWindow runs twice, with 2 and with 61 buckets: the cost
// per call must not grow with the number of buckets.
var benchLimits = []struct {
	name  string
	limit limits.Limit
}{
	{"FixedWindow", fixed(1000, minute)},
	{"SlidingWindow_B2", sliding(1000, minute, 2)},
	{"SlidingWindow_B61", sliding(1000, minute, 61)},
	{"TokenBucket", token(1000, minute)},
}

// benchClients are the 100,000 clients of the wide benchmarks.
const benchClients = 100_000

var millionClients = sync.OnceValue(func() []string {
	names := make([]string, 1_000_000)
	for i := range names {
		names[i] = fmt.Sprintf("client-%07d", i)
	}
	return names
})

// Benchmark measures Allow for each algorithm: one hot client and 100,000
// clients, serial and with b.RunParallel, with allocations reported; then
// the heap bytes per tracked client after a million clients.
//
// The serial benchmarks move the clock 1µs a call, so the hot client is
// mostly denied (1,000 a minute against a million calls a second) and each
// of the 100,000 clients asks ten times a second, always allowed. The
// parallel ones keep the clock still.
func Benchmark[T Throttler](b *testing.B, newThrottler func(c clock.Clock, cfg limits.Config) (T, error)) {
	newT := erase(newThrottler)
	names := manyClients()
	build := func(b *testing.B, l limits.Limit) (Throttler, *benchClock) {
		clk := &benchClock{}
		th, err := newT(clk, only(l))
		if err != nil {
			b.Fatalf("New: %v", err)
		}
		return th, clk
	}
	for _, bl := range benchLimits {
		b.Run(bl.name+"/hot", func(b *testing.B) {
			th, clk := build(b, bl.limit)
			th.Allow("hot")
			b.ReportAllocs()
			for b.Loop() {
				clk.ns.Add(int64(time.Microsecond))
				th.Allow("hot")
			}
		})
		b.Run(bl.name+"/hot_parallel", func(b *testing.B) {
			th, _ := build(b, bl.limit)
			th.Allow("hot")
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					th.Allow("hot")
				}
			})
		})
		b.Run(bl.name+"/100k_clients", func(b *testing.B) {
			th, clk := build(b, bl.limit)
			for _, name := range names {
				th.Allow(name)
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				clk.ns.Add(int64(time.Microsecond))
				th.Allow(names[i])
				if i++; i == benchClients {
					i = 0
				}
			}
		})
		b.Run(bl.name+"/100k_clients_parallel", func(b *testing.B) {
			th, _ := build(b, bl.limit)
			for _, name := range names {
				th.Allow(name)
			}
			var start atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := int(start.Add(7919) % benchClients)
				for pb.Next() {
					th.Allow(names[i])
					if i++; i == benchClients {
						i = 0
					}
				}
			})
		})
	}
	for _, bl := range benchLimits {
		if bl.name == "SlidingWindow_B61" {
			continue // 61 counters a client: half a gigabyte for a million
		}
		b.Run(bl.name+"/memory_per_client", func(b *testing.B) {
			// One measurement, whatever b.N is: filling a million clients
			// takes about a second, and doing it b.N times would tell
			// nothing more. The time per op is meaningless, so it is
			// reported as 0.
			clients := millionClients()
			th, _ := build(b, bl.limit)
			before := heapInUse()
			for _, name := range clients {
				th.Allow(name)
			}
			after := heapInUse()
			runtime.KeepAlive(th)
			b.ReportMetric(float64(after-before)/float64(len(clients)), "B/client")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// heapInUse returns the bytes of live heap objects after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
