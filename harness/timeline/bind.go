package timeline

import (
	"fmt"
	"reflect"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Every level's spec is laid out alike (level 2's is the shortest): a table
// of Rows, bound to the constructor under test with Bind and Unclocked, and
// probes that take an Env.

// Row is one case of a level's table: a Case with the constructor's
// argument instead of the constructor.
type Row[T, A any] struct {
	Name string
	Part int
	// Arg is what the constructor takes besides a clock.
	Arg       A
	Start     time.Time
	Steps     []Step[T]
	Probe     func(impl T, env Env[T, A]) error
	InProcess string
}

// Env is what a row's probe has besides the implementation.
type Env[T, A any] struct {
	// Clock is the case's clock, at the instant of the last step.
	Clock *clock.Fake
	// New builds another implementation on Clock.
	New func(arg A) T
}

// Binding says how a level's rows become cases.
type Binding[T, A any] struct {
	New func(clk clock.Clock, arg A) T
	// Setup writes the constructor call as a report shows it: "New(10s)".
	Setup   func(arg A) string
	Clocked bool
}

// Bind makes a case of each row, built by b.
func Bind[T, A any](rows []Row[T, A], b Binding[T, A]) []Case[T] {
	out := make([]Case[T], len(rows))
	for i, r := range rows {
		out[i] = b.Case(r)
	}
	return out
}

// Case makes the case of one row, built by b: a fuzz target's timeline.
func (b Binding[T, A]) Case(r Row[T, A]) Case[T] {
	c := Case[T]{
		Name:      r.Name,
		Part:      r.Part,
		Setup:     b.Setup(r.Arg),
		New:       func(clk clock.Clock) T { return b.New(clk, r.Arg) },
		Start:     r.Start,
		Clocked:   b.Clocked,
		Steps:     r.Steps,
		InProcess: r.InProcess,
	}
	if r.Probe != nil {
		c.Probe = func(impl T, clk *clock.Fake) error {
			return r.Probe(impl, Env[T, A]{Clock: clk, New: func(arg A) T { return b.New(clk, arg) }})
		}
	}
	return c
}

// Unclocked is the binding of a constructor that takes one argument and no
// clock; reports write it New(5m), or New(5s, 1s) through a String method.
func Unclocked[T, A any](newT func(arg A) T) Binding[T, A] {
	return Binding[T, A]{
		New:   func(_ clock.Clock, arg A) T { return newT(arg) },
		Setup: func(arg A) string { return "New(" + argText(arg) + ")" },
	}
}

func argText(v any) string {
	if d, ok := v.(time.Duration); ok {
		return Offset(d)
	}
	return fmt.Sprint(v)
}

// Erase turns a constructor of a concrete type C into one of the spec's
// interface I; Go cannot say "C implements I" of two type parameters, so
// it converts at run time, and panics naming both types if it cannot.
func Erase[I, C, A any](newC func(arg A) C) func(arg A) I {
	return func(arg A) I {
		c := newC(arg)
		if i, ok := any(c).(I); ok {
			return i
		}
		if any(c) == nil { // a nil interface value: it converts to a nil I
			var zero I
			return zero
		}
		panic(fmt.Sprintf("timeline.Erase: %T does not implement %v", c, reflect.TypeFor[I]()))
	}
}
