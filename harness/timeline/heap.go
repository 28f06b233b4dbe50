package timeline

import "runtime"

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
