package timeline

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// LiveHeap returns the bytes of live heap objects, after a collection, for
// a probe that checks what an implementation holds: measure before and
// after, keep the implementation alive past the second measure with
// runtime.KeepAlive, and compare the difference with a bound far from
// both a right answer and a wrong one, since the heap also holds what the
// runtime and the tests allocate meanwhile.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// SteadyStateAllocs is what a probe measures to check that an
// implementation reuses its memory in steady state: the allocations per
// run of n calls of call, after warm calls that fill its window a few
// times over. The calls come gap apart, from clock.Epoch. It is the least
// of three measures: the count is the whole process's, and something
// else in it may allocate now and then; an implementation that
// allocates as it goes does so in every measure.
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
