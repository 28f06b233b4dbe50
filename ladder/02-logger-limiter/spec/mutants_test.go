package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// Wrong implementations that the spec must catch, and right ones it must
// pass. Each wrong one is a complete logger with one mistake a learner
// makes; if an edit to the spec lets one of them pass, this test fails.

// lastPrint remembers the last print of every message, forever: part 1
// without part 2. The part 1 mutants differ from the right answer in blocks,
// or in one flag.
type lastPrint struct {
	interval time.Duration
	last     map[string]time.Time
	// blocks says whether a print at p still blocks the message at now.
	blocks func(p, now time.Time, interval time.Duration) bool
	// resetOnRefuse records a refused call as if it had printed.
	resetOnRefuse bool
	// shared keeps one timer for every message.
	shared bool
}

func (l *lastPrint) ShouldPrint(now time.Time, message string) bool {
	if l.shared {
		message = ""
	}
	p, ok := l.last[message]
	if ok && l.blocks(p, now, l.interval) {
		if l.resetOnRefuse {
			l.last[message] = now
		}
		return false
	}
	l.last[message] = now
	return true
}

func (l *lastPrint) Len() int { return len(l.last) }

// rightBlocks is the correct rule: a print at p blocks while now < p + interval.
func rightBlocks(p, now time.Time, d time.Duration) bool { return now.Before(p.Add(d)) }

// checkInterval panics on an interval that is not positive, as every
// logger must, so that the mutants differ from a right logger only in their
// one mistake.
func checkInterval(d time.Duration) {
	if d <= 0 {
		panic(fmt.Sprintf("New: interval must be positive, got %v", d))
	}
}

func remembering(blocks func(p, now time.Time, interval time.Duration) bool, edit func(*lastPrint)) func(time.Duration) Logger {
	return func(d time.Duration) Logger {
		checkInterval(d)
		l := &lastPrint{interval: d, last: map[string]time.Time{}, blocks: blocks}
		if edit != nil {
			edit(l)
		}
		return l
	}
}

// unixNano keeps the last print as nanoseconds since the epoch and reads 0
// as "never printed": the zero-value trap, wrong for a print at t=0.
type unixNano struct {
	interval time.Duration
	last     map[string]int64
}

func (l *unixNano) ShouldPrint(now time.Time, message string) bool {
	p := l.last[message]
	if p != 0 && now.UnixNano()-p < int64(l.interval) {
		return false
	}
	l.last[message] = now.UnixNano()
	return true
}

func (l *unixNano) Len() int { return len(l.last) }

// generations is the two-generation logger: cur holds the prints of the
// generation that began at start, prev those of the one before. Generations
// are one interval long, back to back, so after a call at now nothing older
// than start - interval > now - 2 x interval is kept. With every flag false
// it is right; each flag is one mistake.
type generations struct {
	interval  time.Duration
	cur, prev map[string]time.Time
	start     time.Time
	begun     bool
	// offGrid starts the new generation at the call's time instead of one
	// interval after the last one began, so prev can hold older prints.
	offGrid bool
	// rotateOnPrint moves to the next generation only when a message prints.
	rotateOnPrint bool
	// countTwice leaves a message in prev when it prints again into cur.
	countTwice bool
	// forgetPrev drops the previous generation instead of keeping it: a
	// fixed window, which forgets messages that are still blocked.
	forgetPrev bool
}

func newGenerations(edit func(*generations)) func(time.Duration) Logger {
	return func(d time.Duration) Logger {
		checkInterval(d)
		g := &generations{interval: d, cur: map[string]time.Time{}, prev: map[string]time.Time{}}
		if edit != nil {
			edit(g)
		}
		return g
	}
}

func (g *generations) rotate(now time.Time) {
	switch age := now.Sub(g.start); {
	case !g.begun || age >= 2*g.interval:
		clear(g.cur)
		clear(g.prev)
		g.start, g.begun = now, true
	case age >= g.interval:
		g.prev, g.cur = g.cur, g.prev
		clear(g.cur)
		if g.forgetPrev {
			clear(g.prev)
		}
		if g.offGrid {
			g.start = now
		} else {
			g.start = g.start.Add(g.interval)
		}
	}
}

func (g *generations) ShouldPrint(now time.Time, message string) bool {
	if !g.rotateOnPrint {
		g.rotate(now)
	}
	for _, gen := range []map[string]time.Time{g.cur, g.prev} {
		if p, ok := gen[message]; ok && now.Before(p.Add(g.interval)) {
			return false
		}
	}
	if g.rotateOnPrint {
		g.rotate(now)
	}
	if !g.countTwice {
		delete(g.prev, message)
	}
	g.cur[message] = now
	return true
}

func (g *generations) Len() int { return len(g.cur) + len(g.prev) }

// suite is the spec as its own tests check it: its cases, and its fuzz
// target's seeds.
var suite = mutation.SpecOf(cases, fuzzSeeds, fuzzCase)

// mutants are the spec's wrong implementations, each with the part meant
// to catch it. TestSpecCatchesMutants checks that it does, and keeps
// testdata/mistakes.json, what each fails: after a change to the spec or
// the mutants, LADDER_UPDATE_MISTAKES=1 go test -run TestSpecCatchesMutants .
// in this folder writes it again.
var mutants = []mutation.Impl[func(time.Duration) Logger]{
	{Name: "resets the timer on a refused call", Part: 1, New: remembering(rightBlocks, func(l *lastPrint) { l.resetOnRefuse = true })},
	{Name: "zero value trap: UnixNano 0 read as never printed", Part: 1, New: func(d time.Duration) Logger {
		checkInterval(d)
		return &unixNano{interval: d, last: map[string]int64{}}
	}},
	{Name: "inclusive boundary: still refuses at exactly one interval", Part: 1, New: remembering(func(p, now time.Time, d time.Duration) bool {
		return !now.After(p.Add(d))
	}, nil)},
	{Name: "interval one nanosecond short", Part: 1, New: remembering(func(p, now time.Time, d time.Duration) bool {
		return now.Before(p.Add(d - time.Nanosecond))
	}, nil)},
	{Name: "whole seconds: compares Unix seconds", Part: 1, New: remembering(func(p, now time.Time, d time.Duration) bool {
		return now.Unix()-p.Unix() < int64(d/time.Second)
	}, nil)},
	{Name: "one timer shared by every message", Part: 1, New: remembering(rightBlocks, func(l *lastPrint) { l.shared = true })},
	{Name: "no eviction: remembers every message ever printed", Part: 2, New: remembering(rightBlocks, nil)},
	{Name: "one generation: forgets everything every interval", Part: 2, New: newGenerations(func(g *generations) { g.forgetPrev = true })},
	{Name: "two generations started at the call's time, off the grid", Part: 2, New: newGenerations(func(g *generations) { g.offGrid = true })},
	{Name: "two generations that move on only when a message prints", Part: 2, New: newGenerations(func(g *generations) { g.rotateOnPrint = true })},
	{Name: "two generations that count a message twice", Part: 2, New: newGenerations(func(g *generations) { g.countTwice = true })},
}

func TestSpecCatchesMutants(t *testing.T) { suite.CatchesMutants(t, mutants) }

// TestRightImplementationPasses plays every case against the generation
// mutants' base, a right two-generation logger: the spec must not demand
// the reference's exact queue, since the README allows both designs.
func TestRightImplementationPasses(t *testing.T) {
	mutation.Passes(t, "a right two-generation logger", 0, cases(newGenerations(nil)))
}
