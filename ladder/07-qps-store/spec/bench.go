package spec

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// benchKeys are the keys the benchmarks use, all stored before timing
// starts, so that Put replaces a value and the map never grows.
var benchKeys = func() []string {
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = "key-" + strconv.Itoa(i)
	}
	return keys
}()

const keyMask = 1023 // len(benchKeys) - 1

// Benchmark measures Get and Put, serial and in parallel, and QPS over 5
// minutes, an hour and a week, with allocations reported. Put_parallel
// also reports x_mutex_map: the store's parallel Put throughput over that
// of a plain map behind one sync.Mutex that counts nothing, measured in
// the same run with the same keys. The issue asks for at least 0.5.
//
// The store reads a benchClock, which the calls move forward a millisecond
// every 1,024 calls: about a million calls a second, so the counters move
// to a new second every thousand or so calls, as they would in service.
// The real clock is left out because its cost is the platform's, not the
// store's: time.Now takes some 20ns on most Linux machines, but hundreds
// in some virtual machines.
func Benchmark[S Store](b *testing.B, newStore func(clock.Clock) S) {
	clk := &benchClock{}
	filled := func() S {
		s := newStore(clk)
		for _, k := range benchKeys {
			s.Put(k, "v")
		}
		return s
	}

	// serial measures call, the ith of a run, made on a filled store.
	serial := func(name string, call func(s S, i int)) {
		b.Run(name, func(b *testing.B) {
			s := filled()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				clk.tick(i)
				call(s, i)
				i++
			}
		})
	}

	serial("Get", func(s S, i int) { s.Get(benchKeys[i&keyMask]) })
	serial("Put", func(s S, i int) { s.Put(benchKeys[i&keyMask], "w") })
	b.Run("Get_parallel", func(b *testing.B) {
		s := filled()
		b.ReportAllocs()
		parallel(b, clk, func(key string) { s.Get(key) })
	})
	b.Run("Put_parallel", func(b *testing.B) {
		s := filled()
		m := &lockedMap{data: make(map[string]string)}
		for _, k := range benchKeys {
			m.put(k, "v")
		}
		b.ReportAllocs()
		// The plain map first, with the timer stopped, then the store.
		b.StopTimer()
		start := time.Now()
		parallel(b, clk, func(key string) { m.put(key, "w") })
		plain := time.Since(start)
		b.StartTimer()
		start = time.Now()
		parallel(b, clk, func(key string) { s.Put(key, "w") })
		counted := time.Since(start)
		b.ReportMetric(plain.Seconds()/counted.Seconds(), "x_mutex_map")
	})
	for _, w := range []struct {
		name   string
		window time.Duration
	}{{"QPS_5m", 5 * minute}, {"QPS_1h", hour}, {"QPS_7d", week}} {
		serial(w.name, func(s S, _ int) { s.QPS(put, w.window) })
	}
}

// parallel runs f b.N times in all, on GOMAXPROCS goroutines, each going
// through the keys from its own starting point and ticking the clock.
func parallel(b *testing.B, clk *benchClock, f func(key string)) {
	var id atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		i := int(id.Add(1)) * 97
		for pb.Next() {
			clk.tick(i)
			f(benchKeys[i&keyMask])
			i++
		}
	})
}

// benchClock is a clock that costs next to nothing to read. It starts at
// clock.BenchStart and moves only when tick says so.
type benchClock struct {
	ns atomic.Int64 // since clock.BenchStart
}

// Now returns the clock's time.
func (c *benchClock) Now() time.Time { return clock.BenchStart.Add(time.Duration(c.ns.Load())) }

// tick moves the clock a millisecond forward on every 1,024th call i.
func (c *benchClock) tick(i int) {
	if i&1023 == 0 {
		c.ns.Add(int64(time.Millisecond))
	}
}

// lockedMap is the yardstick: the simplest thread-safe map, counting
// nothing.
type lockedMap struct {
	mu   sync.Mutex
	data map[string]string
}

func (m *lockedMap) put(key, value string) {
	m.mu.Lock()
	m.data[key] = value
	m.mu.Unlock()
}
