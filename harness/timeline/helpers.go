package timeline

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Parallel runs f(0) to f(n-1) in n goroutines and waits for all of them.
// A panic in any of them is raised again in the caller, so a probe that uses
// goroutines still reports a stub's "not implemented" panic as such instead
// of crashing the test binary.
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

// Choices reads fuzz input as a stream of small decisions. When the input
// runs out, every further choice is 0, so any input decodes to a valid
// timeline and the fuzzer can shrink it freely.
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

// PanicMessage runs f and returns the message it panicked with, and
// whether it panicked. A stub's "not implemented" panic is raised again, so
// that the runner still reports it as such.
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

// PanicsNaming checks a rule of every level: a bad value written in code
// panics with a message that names the value. It returns nil if f panics
// so, and otherwise an error that says what the call did instead:
// "New(0s) returned, want a panic whose message names 0s".
func PanicsNaming(call, value string, f func()) error {
	msg, panicked := PanicMessage(f)
	switch {
	case !panicked:
		return fmt.Errorf("%s returned, want a panic whose message names %s", call, value)
	case !strings.Contains(msg, value):
		return fmt.Errorf("%s panicked with %q, want a message that names %s", call, msg, value)
	}
	return nil
}

// EachPanicsNaming runs PanicsNaming for each bad value of one argument, as
// in "New(0s) and New(-1s) both panic, naming the value". It returns the
// first failure.
func EachPanicsNaming[V any](method string, values []V, f func(V)) error {
	for _, v := range values {
		s := fmt.Sprint(v)
		if err := PanicsNaming(fmt.Sprintf("%s(%s)", method, s), s, func() { f(v) }); err != nil {
			return err
		}
	}
	return nil
}

// NonPositivePanics is the probe of every level whose New takes one span,
// a window or an interval: New(0) and New(-1s) both panic, naming the
// value, since such a span is a bug in the caller's code.
func NonPositivePanics[T any](_ T, e Env[T, time.Duration]) error {
	return EachPanicsNaming("New", []time.Duration{0, -time.Second}, func(d time.Duration) { e.New(d) })
}
