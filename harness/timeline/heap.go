package timeline

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// LiveHeap returns the bytes of live heap objects after a collection.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// SteadyStateAllocs returns the allocations per run of n calls, gap apart
// from clock.Epoch after warm calls: the least of three measures, since
// something else in the process may allocate now and then.
func SteadyStateAllocs(gap time.Duration, warm, n int, call func(now time.Time)) float64 {
	now := clock.Epoch
	calls := func(k int) {
		for range k {
			now = now.Add(gap)
			call(now)
		}
	}
	calls(warm)
	least := math.Inf(1)
	for range 3 {
		least = min(least, testing.AllocsPerRun(5, func() { calls(n) }))
	}
	return least
}
