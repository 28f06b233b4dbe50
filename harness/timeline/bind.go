package timeline

import (
	"fmt"
	"reflect"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Every level's spec is laid out alike, so that a new level is written by
// copying one: level 2's (ladder/02-logger-limiter/spec) is the shortest,
// level 5's has a constructor of two arguments, level 7's a clock. In
// spec.go:
//
//	// Logger is the API level 2 asks for.
//	type Logger interface{ ... }
//
//	// Test runs every case against the loggers newLogger builds.
//	func Test[L Logger](t *testing.T, newLogger func(interval time.Duration) L) {
//		timeline.Run(t, cases(timeline.Erase[Logger](newLogger)))
//	}
//
//	// cases binds the table to a constructor.
//	func cases(newLogger func(interval time.Duration) Logger) []timeline.Case[Logger] {
//		return timeline.Bind(table, timeline.Unclocked(newLogger))
//	}
//
//	// Offsets in the tables are written with these.
//	const ns, sec, minute = time.Nanosecond, time.Second, time.Minute // only those the level uses
//
//	func shouldPrint(message string, want bool) timeline.Call[Logger] { ... } // a helper per method
//
//	type (
//		row  = timeline.Row[Logger, time.Duration] // Arg is what New takes
//		step = timeline.Step[Logger]
//	)
//
//	var at = timeline.At[Logger]
//
//	var table = []row{
//		{Name: "a refused call does not restart the timer", Part: 1, Arg: 3 * sec,
//			Steps: []step{at(1*sec, shouldPrint("retrying", true)), ...}},
//		{Name: "a steady stream of fresh messages", Part: 2, Arg: sec, Probe: steadyStream},
//	}
//
// Beside it, probes.go declares type env = timeline.Env[Logger,
// time.Duration] and the probes, func(l Logger, e env) error, which build
// other loggers with e.New; fuzz.go decodes the fuzzer's bytes into a
// case, fuzzCase(newLogger, data), which its Fuzz hands to timeline.Fuzz;
// bench.go takes the package's New as Test does; mutants_test.go checks
// the spec itself with package harness/mutation. The class report's
// checker is written from Test's signature alone.
//
// A constructor of several arguments takes them as one Arg, a small struct
// whose String method writes them as the report shows them: "New(5s, 1s)".
// A constructor that takes a clock writes its Binding out, with Clocked
// set. Types that both the level's package and its spec need (sentinel
// errors, a message struct, an enum) cannot come from the level's package,
// whose in-package test imports the spec: they go in a small package of
// their own in the level's folder, named for what it holds (viewerr,
// chatmsg, qpsop, limits), which the stub and the reference re-export with
// aliases and the spec imports.

// Row is one case of a level's table, written once in the spec: a Case
// without its constructor, with the argument the constructor takes
// instead. Bind makes the cases of a table for one implementation.
type Row[T, A any] struct {
	// Name and Part are the case's: see Case.
	Name string
	Part int
	// Arg is what the level's constructor takes, besides the clock of the
	// levels that keep one: a window, a pair of sizes, a config.
	Arg A
	// Start is the instant of offset 0. The zero Time means clock.Epoch.
	Start time.Time
	// Steps are the calls, in order: see Case.
	Steps []Step[T]
	// Probe, if set, runs after the steps, on the implementation they ran
	// on, for what a timeline cannot say: see Case.
	Probe func(impl T, env Env[T, A]) error
	// InProcess says why the probe can only be measured in the
	// implementation's own process: see Case.
	InProcess string
}

// Env is what a row's probe has besides the implementation.
type Env[T, A any] struct {
	// Clock is the case's clock, at the instant of the last step.
	Clock *clock.Fake
	// New builds another implementation from arg, on Clock, the way the
	// case built its own: for a probe that needs a fresh one, or that
	// checks that a bad argument panics.
	New func(arg A) T
}

// Binding says how a level's rows become cases.
type Binding[T, A any] struct {
	// New builds an implementation from a row's Arg. Levels that take the
	// time in every method ignore clk.
	New func(clk clock.Clock, arg A) T
	// Setup writes the constructor call the way a failure report shows
	// it: "New(10s)".
	Setup func(arg A) string
	// Clocked says the implementation reads the clock: see Case.
	Clocked bool
}

// Bind makes a case of each row, built by b. A spec's cases function is
// one call to it, with the table and the constructor under test.
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
// clock, as every level does that passes the time to each method. Reports
// write the constructor as New(arg): a time.Duration the way Offset writes
// it, "New(5m)"; anything else with fmt, so an argument made of several
// values can say how they read with a String method, "New(5s, 1s)".
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

// Erase turns a constructor of a package's concrete type C into one of the
// spec's interface I, so that a spec's Test takes the package's New as it
// is:
//
//	func Test[L Logger](t *testing.T, newLogger func(time.Duration) L) {
//		timeline.Run(t, cases(timeline.Erase[Logger](newLogger)))
//	}
//
// Go cannot say "C implements I" of two type parameters, so Erase converts
// when the constructor runs; the constraint of the spec's Test has already
// checked at compile time that the conversion holds. A C that does not
// implement I makes the constructor panic, naming both types.
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
