package timeline

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Parallel runs f(0) to f(n-1) in n goroutines and waits for them; a panic
// in any is raised again in the caller.
func Parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	var once sync.Once
	var first any
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					once.Do(func() { first = v })
				}
			}()
			f(i)
		}()
	}
	wg.Wait()
	if first != nil {
		panic(first)
	}
}

// Choices reads fuzz input as a stream of small decisions, 0 once it runs out.
type Choices struct {
	data []byte
}

// NewChoices reads decisions from data.
func NewChoices(data []byte) *Choices { return &Choices{data: data} }

// More reports whether any input is left.
func (c *Choices) More() bool { return len(c.data) > 0 }

// Intn returns a number in [0, n) taken from the next one or two bytes.
// n must be between 1 and 65536.
func (c *Choices) Intn(n int) int {
	if n <= 0 || n > 1<<16 {
		panic("timeline: Choices.Intn: n must be between 1 and 65536")
	}
	v := int(c.next())
	if n > 256 {
		v = v<<8 | int(c.next())
	}
	return v % n
}

// Pick returns one of the options, chosen by the next byte.
func Pick[E any](c *Choices, options ...E) E {
	return options[c.Intn(len(options))]
}

func (c *Choices) next() byte {
	if len(c.data) == 0 {
		return 0
	}
	b := c.data[0]
	c.data = c.data[1:]
	return b
}

// PanicMessage runs f and returns the message it panicked with, if it did;
// a stub's "not implemented" panic is raised again.
func PanicMessage(f func()) (msg string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			if _, stub := notImplemented(v); stub {
				panic(v)
			}
			msg, panicked = fmt.Sprint(v), true
		}
	}()
	f()
	return "", false
}

// NonPositivePanics is the probe that New(0) and New(-1s) panic, naming the value.
func NonPositivePanics[T any](_ T, e Env[T, time.Duration]) error {
	for _, d := range []time.Duration{0, -time.Second} {
		s := fmt.Sprint(d)
		switch msg, panicked := PanicMessage(func() { e.New(d) }); {
		case !panicked:
			return fmt.Errorf("New(%s) returned, want a panic whose message names %s", s, s)
		case !strings.Contains(msg, s):
			return fmt.Errorf("New(%s) panicked with %q, want a message that names %s", s, msg, s)
		}
	}
	return nil
}

// WithinLimit calls do(i) for i in [0, n) and fails if the calls take more
// than limit of CPU time, giving up early once their pace would take ten
// times the limit. what and bound (the README's bound) are for the message.
func WithinLimit(n int, limit time.Duration, what, bound string, do func(i int)) error {
	elapsed := cpuStopwatch()
	for i := range n {
		do(i)
		if i >= 256 && i%16 != 15 {
			continue // reading the time costs more than a fast call
		}
		elapsed := elapsed()
		pace := elapsed * time.Duration(n) / time.Duration(i+1)
		if elapsed > limit || elapsed > limit/20 && pace > 10*limit {
			return fmt.Errorf("%s did not finish within %v: %d of them took %v, and all would take about %v at that pace; %s",
				what, limit, i+1, elapsed.Round(time.Millisecond), pace.Round(time.Second), bound)
		}
	}
	if elapsed := elapsed(); elapsed > limit {
		return fmt.Errorf("%s took %v, more than %v; %s", what, elapsed.Round(time.Millisecond), limit, bound)
	}
	return nil
}

// IfRace is plain, or race under the race detector: a complexity case's
// calls and limit, since -race slows a fast call far more than a slow one.
func IfRace[V any](plain, race V) V {
	if RaceEnabled {
		return race
	}
	return plain
}

// Thousands writes n with commas, as a README does: 100,000.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

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
