package timeline

import (
	"fmt"
	"strings"
	"sync"
	"time"
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

// PanicsNaming returns nil if f panics with a message naming value, else an
// error saying what call did instead.
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

// EachPanicsNaming runs PanicsNaming for each value, returning the first failure.
func EachPanicsNaming[V any](method string, values []V, f func(V)) error {
	for _, v := range values {
		s := fmt.Sprint(v)
		if err := PanicsNaming(fmt.Sprintf("%s(%s)", method, s), s, func() { f(v) }); err != nil {
			return err
		}
	}
	return nil
}

// NonPositivePanics is the probe that New(0) and New(-1s) panic, naming the value.
func NonPositivePanics[T any](_ T, e Env[T, time.Duration]) error {
	return EachPanicsNaming("New", []time.Duration{0, -time.Second}, func(d time.Duration) { e.New(d) })
}
