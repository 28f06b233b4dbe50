// Package spec is level 4's conformance suite: every case of the café's
// drink counts is written here once, and run against both the learner's stub
// in ladder/04-cafe-counts and the reference in solutions/04-cafe-counts.
//
// # Cost claims
//
// Each cost README.md states, and the case a wrong-cost implementation
// fails:
//
//   - Order, Count and Total allocate nothing once warmed up (part 1): "no
//     allocation per order once warmed up", against a re-slicing queue.
//   - Distinct is O(1), not a count of the drinks (part 2): "Distinct over
//     100,000 drinks is O(1), not a count of them all", with its numbers
//     in distinctIsO1.
//   - A forgotten drink takes no memory (part 2): "a forgotten drink takes
//     no memory".
//   - Order, Count and Total are amortized O(1): no case beyond the
//     allocations; the benchmark row order shows the cost.
//   - Counts is O(distinct drinks): what any board costs; no case.
package spec

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Cafe is the API level 4 asks for.
type Cafe interface {
	Order(now time.Time, drink string)
	Count(now time.Time, drink string) int
	Total(now time.Time) int
	Distinct(now time.Time) int
	Counts(now time.Time) map[string]int
}

// Test runs every case against the cafés newCafe builds.
func Test[C Cafe](t *testing.T, newCafe func(window time.Duration) C) {
	t.Helper()
	timeline.Run(t, cases(timeline.Erase[Cafe](newCafe)))
}

// cases binds the table to a constructor.
func cases(newCafe func(window time.Duration) Cafe) []timeline.Case[Cafe] {
	return timeline.Bind(timeline.Unclocked(newCafe), table()...)
}

// Offsets in the tables are written with these.
const ns, ms, sec, minute, day, week = time.Nanosecond, time.Millisecond, time.Second, time.Minute, 24 * time.Hour, 7 * 24 * time.Hour

func order(drink string) timeline.Call[Cafe] {
	return timeline.Call[Cafe]{Method: "Order", Args: []any{drink},
		Do: func(c Cafe, now time.Time) any { c.Order(now, drink); return nil }}
}

func count(drink string, want int) timeline.Call[Cafe] {
	return timeline.Call[Cafe]{Method: "Count", Args: []any{drink}, Want: want,
		Do: func(c Cafe, now time.Time) any { return c.Count(now, drink) }}
}

func total(want int) timeline.Call[Cafe] {
	return timeline.Call[Cafe]{Method: "Total", Want: want,
		Do: func(c Cafe, now time.Time) any { return c.Total(now) }}
}

func distinct(want int) timeline.Call[Cafe] {
	return timeline.Call[Cafe]{Method: "Distinct", Want: want,
		Do: func(c Cafe, now time.Time) any { return c.Distinct(now) }}
}

// counts compares the whole board; the runner prints a cmp.Diff when it
// differs. Use board{} for an empty board: a nil map is a different answer.
func counts(want board) timeline.Call[Cafe] {
	return timeline.Call[Cafe]{
		Method: "Counts",
		// The runner compares results after the last step, so keep a copy
		// of the map as it was now, not as later steps may leave it.
		Do:   func(c Cafe, now time.Time) any { return maps.Clone(c.Counts(now)) },
		Want: map[string]int(want),
	}
}

// board is the map Counts returns, written short in the tables.
type board = map[string]int

// ident is a Go identifier in a step's call, shown without quotes: clear(m).
type ident string

func (i ident) String() string { return string(i) }

// held is the map that an "m := Counts()" step returned, kept for the
// later steps of the same case that change it or look at it again. Each
// case gets its own, because table builds the cases anew for every run.
type held struct{ m map[string]int }

// keep calls Counts and keeps the map it returned, as m.
func (h *held) keep(want board) timeline.Call[Cafe] {
	return timeline.Call[Cafe]{
		Method: "m := Counts",
		Do: func(c Cafe, now time.Time) any {
			h.m = c.Counts(now)
			return maps.Clone(h.m)
		},
		Want: map[string]int(want),
	}
}

// clear empties m, as a caller who owns the map may.
func (h *held) clear() timeline.Call[Cafe] {
	return timeline.Call[Cafe]{Method: "clear", Args: []any{ident("m")},
		Do: func(Cafe, time.Time) any { clear(h.m); return nil }}
}

// look reads m again, without calling the café.
func (h *held) look(want board) timeline.Call[Cafe] {
	return timeline.Call[Cafe]{Method: "maps.Clone", Args: []any{ident("m")}, Want: map[string]int(want),
		Do: func(Cafe, time.Time) any { return maps.Clone(h.m) }}
}

// row is a case of the table before it is bound to a constructor; its
// Arg is what New takes: the window. A step is one of its calls, at an
// offset from the start: at(1*minute, order("latte")).
type (
	row  = timeline.Row[Cafe, time.Duration]
	step = timeline.Step[Cafe]
)

var at = timeline.At[Cafe]

// table holds every case of level 4. Part 1 counts per drink and in all;
// part 2 counts the different drinks; part 3 hands out the whole board.
// It is a function, not a variable, so that the steps of a case that keep
// a map (held) start afresh in every run.
func table() []row {
	return []row{
		// Part 1: counts per drink and the total.
		{
			// The README's first example, with the same numbers.
			Name: "the morning rush in a five-minute window", Part: 1, Arg: 5 * minute,
			Steps: []step{
				at(1*minute, order("latte")),
				at(2*minute, order("tea")),
				at(2*minute, order("latte")),
				at(3*minute, count("latte", 2)),
				at(3*minute, count("tea", 1)),
				at(3*minute, total(3)),
				at(6*minute, count("latte", 1)), // the latte at 1m left at 1m + 5m
				at(6*minute, total(2)),
				at(7*minute, count("latte", 0)),
				at(7*minute, count("tea", 0)),
				at(7*minute, total(0)),
			},
		},
		{
			// The README's boundary example: (now - window, now] is half-open.
			Name: "an order counts until one window later and not at it", Part: 1, Arg: 5 * minute,
			Steps: []step{
				at(1*minute, order("latte")),
				at(1*minute, count("latte", 1)),
				at(6*minute-ns, count("latte", 1)),
				at(6*minute-ns, total(1)),
				at(6*minute, count("latte", 0)),
				at(6*minute, total(0)),
			},
		},
		{
			Name: "a drink nobody ordered counts zero", Part: 1, Arg: 10 * sec,
			Steps: []step{
				at(0, count("latte", 0)),
				at(0, total(0)),
				at(1*sec, order("tea")),
				at(1*sec, count("latte", 0)),
				at(1*sec, count("tea", 1)),
				at(1*sec, total(1)),
			},
		},
		{
			Name: "several orders of one drink at one instant", Part: 1, Arg: 10 * sec,
			Steps: []step{
				at(2*sec, order("latte")),
				at(2*sec, order("latte")),
				at(2*sec, order("latte")),
				at(2*sec, count("latte", 3)),
				at(2*sec, total(3)),
				at(3*sec, order("tea")),
				at(12*sec-ns, count("latte", 3)),
				at(12*sec-ns, total(4)),
				at(12*sec, count("latte", 0)), // all three leave together
				at(12*sec, total(1)),
				at(13*sec, total(0)),
			},
		},
		{
			Name: "Latte and latte are two drinks", Part: 1, Arg: minute,
			Steps: []step{
				at(1*sec, order("Latte")),
				at(2*sec, order("latte")),
				at(2*sec, order("latte")),
				at(2*sec, count("Latte", 1)),
				at(2*sec, count("latte", 2)),
				at(2*sec, count("LATTE", 0)),
				at(2*sec, total(3)),
				at(61*sec, count("Latte", 0)),
				at(61*sec, count("latte", 2)),
				at(62*sec, count("latte", 0)),
			},
		},
		{
			// The same numbers as part 2's README example, counted per drink.
			Name: "orders leave in the order they came, whatever the drink", Part: 1, Arg: 10 * minute,
			Steps: []step{
				at(0, order("latte")),
				at(1*minute, order("tea")),
				at(2*minute, order("latte")),
				at(10*minute-ns, count("latte", 2)),
				at(10*minute-ns, total(3)),
				at(10*minute, count("latte", 1)), // the first latte left; the second is in
				at(10*minute, count("tea", 1)),
				at(10*minute, total(2)),
				at(11*minute, count("latte", 1)),
				at(11*minute, count("tea", 0)),
				at(11*minute, total(1)),
				at(12*minute, count("latte", 0)),
				at(12*minute, total(0)),
			},
		},
		{
			Name: "a drink that left and comes back counts from one", Part: 1, Arg: 10 * sec,
			Steps: []step{
				at(0, order("latte")),
				at(1*sec, order("latte")),
				at(1*sec, count("latte", 2)),
				at(11*sec, count("latte", 0)),
				at(11*sec, order("latte")),
				at(11*sec, count("latte", 1)),
				at(11*sec, total(1)),
				at(21*sec-ns, count("latte", 1)),
				at(21*sec, count("latte", 0)),
			},
		},
		{
			Name: "an idle gap far longer than the window", Part: 1, Arg: 10 * sec,
			Steps: []step{
				at(1*sec, order("latte")),
				at(2*sec, order("tea")),
				at(2*sec, total(2)),
				at(30*day, count("latte", 0)),
				at(30*day, total(0)),
				at(30*day, order("tea")),
				at(30*day, count("tea", 1)),
				at(30*day, total(1)),
			},
		},
		{
			Name: "a one-nanosecond window", Part: 1, Arg: ns,
			Steps: []step{
				at(0, order("latte")),
				at(0, count("latte", 1)),
				at(1*ns, count("latte", 0)),
				at(1*ns, total(0)),
				at(5*ns, order("latte")),
				at(5*ns, order("tea")),
				at(5*ns, total(2)),
				at(6*ns, total(0)),
			},
		},
		{
			Name: "a week-long window", Part: 1, Arg: week,
			Steps: []step{
				at(0, order("latte")),
				at(3*day, order("tea")),
				at(3*day, order("latte")),
				at(week-ns, count("latte", 2)),
				at(week-ns, total(3)),
				at(week, count("latte", 1)),
				at(week, total(2)),
				at(week+3*day-ns, total(2)),
				at(week+3*day, total(0)),
			},
		},
		{
			Name: "New panics on a window that is not positive", Part: 1, Arg: sec,
			Steps: []step{at(0, order("latte")), at(0, total(1))},
			Probe: timeline.NonPositivePanics[Cafe],
		},
		{
			Name: "no allocation per order once warmed up", Part: 1, Arg: sec,
			Steps: []step{at(0, order("latte")), at(0, count("latte", 1))},
			Probe: steadyStateAllocs, InProcess: "allocations",
		},

		// Part 2: distinct drinks.
		{
			// The README's example for part 2, with the same numbers.
			Name: "different drinks in a ten-minute window", Part: 2, Arg: 10 * minute,
			Steps: []step{
				at(0, order("latte")),
				at(1*minute, order("tea")),
				at(2*minute, order("latte")),
				at(2*minute, distinct(2)),
				at(10*minute, distinct(2)), // the first latte left, the second is in
				at(10*minute, count("latte", 1)),
				at(11*minute, distinct(1)),
				at(12*minute, distinct(0)),
				at(13*minute, order("latte")),
				at(13*minute, distinct(1)),
				at(13*minute, count("latte", 1)), // forgotten, so it counts from 1
			},
		},
		{
			Name: "Distinct before any order, and for orders at one instant", Part: 2, Arg: minute,
			Steps: []step{
				at(0, distinct(0)),
				at(5*sec, order("tea")),
				at(5*sec, order("tea")),
				at(5*sec, order("tea")),
				at(5*sec, distinct(1)),
				at(5*sec, order("mocha")),
				at(5*sec, distinct(2)),
				at(65*sec-ns, distinct(2)),
				at(65*sec, distinct(0)),
			},
		},
		{
			Name: "Distinct falls to zero after a long idle gap", Part: 2, Arg: minute,
			Steps: []step{
				at(1*sec, order("latte")),
				at(2*sec, order("tea")),
				at(3*sec, order("mocha")),
				at(3*sec, distinct(3)),
				at(30*day, distinct(0)),
				at(30*day, order("mocha")),
				at(30*day, distinct(1)),
				at(30*day, count("mocha", 1)),
			},
		},
		{
			Name: "Latte and latte are two different drinks", Part: 2, Arg: minute,
			Steps: []step{
				at(0, order("Latte")),
				at(0, order("latte")),
				at(0, distinct(2)),
				at(minute-ns, distinct(2)),
				at(minute, distinct(0)),
			},
		},
		{
			Name: "a drink leaves only with its last order", Part: 2, Arg: 10 * sec,
			Steps: []step{
				at(0, order("latte")),
				at(5*sec, order("latte")),
				at(6*sec, order("tea")),
				at(10*sec, distinct(2)),
				at(15*sec-ns, distinct(2)),
				at(15*sec, distinct(1)),
				at(16*sec, distinct(0)),
			},
		},
		{
			Name: "a hundred drinks, one a second, in a ten-second window", Part: 2, Arg: 10 * sec,
			Steps: hundredDrinks(),
		},
		{
			Name: "Distinct over 100,000 drinks is O(1), not a count of them all", Part: 2, Arg: sec,
			Probe: distinctIsO1, InProcess: "timing",
		},
		{
			Name: "a forgotten drink takes no memory", Part: 2, Arg: sec,
			Steps: []step{at(0, order("latte")), at(0, distinct(1))},
			Probe: forgottenDrinksFreed, InProcess: "memory",
		},

		// Part 3: the board.
		{
			// The README's example for part 3, with the same numbers.
			Name: "the board over five minutes", Part: 3, Arg: 5 * minute,
			Steps: []step{
				at(1*minute, order("latte")),
				at(2*minute, order("tea")),
				at(3*minute, order("latte")),
				at(3*minute, counts(board{"latte": 2, "tea": 1})),
				at(6*minute, counts(board{"latte": 1, "tea": 1})),
				at(7*minute, counts(board{"latte": 1})),
				at(8*minute, counts(board{})),
			},
		},
		{
			Name: "an empty board is an empty map, not nil", Part: 3, Arg: minute,
			Steps: []step{
				at(0, counts(board{})),
				at(1*sec, order("latte")),
				at(1*sec, counts(board{"latte": 1})),
				at(61*sec, counts(board{})),
			},
		},
		{
			Name: "the board on the boundary, with Latte and latte", Part: 3, Arg: 10 * sec,
			Steps: []step{
				at(1*sec, order("Latte")),
				at(1*sec, order("latte")),
				at(2*sec, order("latte")),
				at(11*sec-ns, counts(board{"Latte": 1, "latte": 2})),
				at(11*sec, counts(board{"latte": 1})),
				at(12*sec-ns, counts(board{"latte": 1})),
				at(12*sec, counts(board{})),
			},
		},
		func() row {
			var m held
			return row{
				// The README's first aliasing example.
				Name: "changing the map Counts returned does not change the cafe", Part: 3, Arg: 5 * minute,
				// A map that crosses to another process is a copy already.
				InProcess: "a returned map's aliasing",
				Steps: []step{
					at(1*minute, order("latte")),
					at(1*minute, order("tea")),
					at(2*minute, m.keep(board{"latte": 1, "tea": 1})),
					at(2*minute, m.clear()),
					at(2*minute, count("latte", 1)),
					at(2*minute, total(2)),
					at(2*minute, distinct(2)),
					at(2*minute, counts(board{"latte": 1, "tea": 1})),
				},
			}
		}(),
		func() row {
			var m held
			return row{
				// The README's second aliasing example.
				Name: "later orders do not change a map already returned", Part: 3, Arg: 5 * minute,
				InProcess: "a returned map's aliasing",
				Steps: []step{
					at(1*minute, order("latte")),
					at(1*minute, m.keep(board{"latte": 1})),
					at(2*minute, order("latte")),
					at(2*minute, order("tea")),
					at(2*minute, m.look(board{"latte": 1})),
					at(6*minute, counts(board{"latte": 1, "tea": 1})),
					at(6*minute, m.look(board{"latte": 1})),
				},
			}
		}(),
	}
}

// hundredDrinks orders a hundred different drinks, one a second, and
// checks after each that the ten of the last ten seconds are counted.
func hundredDrinks() []step {
	var steps []step
	for i := range 100 {
		now := time.Duration(i) * sec
		steps = append(steps,
			at(now, order(fmt.Sprintf("drink %d", i))),
			at(now, distinct(min(i+1, 10))),
		)
	}
	return append(steps, at(109*sec-ns, distinct(1)), at(109*sec, distinct(0)))
}
