package spec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// Wrong implementations that the spec must catch. Each is a complete café
// with one mistake a learner makes; if an edit to the spec lets one of them
// pass, this test fails.

// mistakes switches on one wrong step in queue; all off, queue gives the
// right answers with a queue that re-slices and so reallocates. reuses
// is no mistake: it makes the queue a right café for parts_test.go.
type mistakes struct {
	inclusive    bool // keeps an order at exactly now-window
	keepZeros    bool // never deletes a drink whose count falls to zero
	liveCount    bool // with keepZeros, counts the drinks above zero, so Distinct is right
	ownBoard     bool // Counts returns its own map
	cachedBoard  bool // Counts hands out one copy until the next order
	staleBoard   bool // Counts does not drop old orders first
	foldCase     bool // "Latte" and "latte" are one drink
	oneAtATime   bool // drops at most one old order per call
	onlyOnOrder  bool // drops old orders in Order only
	anyWindow    bool // New does not check the window
	scanDistinct bool // Distinct counts the drinks of the map on every call
	reuses       bool // drops orders by moving head and compacts in place: no allocation in steady state
}

type queued struct {
	at    time.Time
	drink string
}

type queue struct {
	window time.Duration
	wrong  mistakes
	orders []queued // oldest first from head; q = q[1:] to drop, unless reuses
	head   int
	counts map[string]int
	live   int            // drinks whose count is above zero
	board  map[string]int // the copy cachedBoard hands out, nil when stale
}

func mutant(wrong mistakes) func(time.Duration) Cafe {
	return func(w time.Duration) Cafe {
		if w <= 0 && !wrong.anyWindow {
			panic(fmt.Sprintf("window must be positive, got %v", w))
		}
		return &queue{window: w, wrong: wrong, counts: map[string]int{}}
	}
}

func (q *queue) name(drink string) string {
	if q.wrong.foldCase {
		return strings.ToLower(drink)
	}
	return drink
}

func (q *queue) expire(now time.Time) {
	cutoff := now.Add(-q.window)
	for len(q.orders) > q.head {
		h := q.orders[q.head].at
		if h.After(cutoff) || q.wrong.inclusive && h.Equal(cutoff) {
			return
		}
		d := q.orders[q.head].drink
		q.drop()
		q.board = nil
		q.counts[d]--
		if q.counts[d] == 0 {
			q.live--
			if !q.wrong.keepZeros {
				delete(q.counts, d)
			}
		}
		if q.wrong.oneAtATime {
			return
		}
	}
}

// drop takes the oldest order off the queue.
func (q *queue) drop() {
	if !q.wrong.reuses {
		q.orders = q.orders[1:]
		return
	}
	q.orders[q.head] = queued{} // let the drink's name go
	q.head++
}

// add puts an order at the end. A queue that reuses its memory first
// moves its orders to the front of a full array that is at least half
// dropped, and so grows only while the window holds more orders than
// ever before.
func (q *queue) add(o queued) {
	if q.wrong.reuses && len(q.orders) == cap(q.orders) && q.head >= len(q.orders)/2 {
		n := copy(q.orders, q.orders[q.head:])
		clear(q.orders[n:])
		q.orders, q.head = q.orders[:n], 0
	}
	q.orders = append(q.orders, o)
}

// read drops old orders before a call that only reads.
func (q *queue) read(now time.Time) {
	if !q.wrong.onlyOnOrder {
		q.expire(now)
	}
}

func (q *queue) Order(now time.Time, drink string) {
	q.expire(now)
	drink = q.name(drink)
	q.add(queued{now, drink})
	q.board = nil
	if q.counts[drink]++; q.counts[drink] == 1 {
		q.live++
	}
}

func (q *queue) Count(now time.Time, drink string) int {
	q.read(now)
	return q.counts[q.name(drink)]
}

func (q *queue) Total(now time.Time) int {
	q.read(now)
	return len(q.orders) - q.head
}

func (q *queue) Distinct(now time.Time) int {
	q.read(now)
	if q.wrong.scanDistinct {
		n := 0
		for _, c := range q.counts {
			if c > 0 {
				n++
			}
		}
		return n
	}
	if q.wrong.liveCount {
		return q.live
	}
	return len(q.counts)
}

func (q *queue) Counts(now time.Time) map[string]int {
	if !q.wrong.staleBoard {
		q.read(now)
	}
	switch {
	case q.wrong.ownBoard:
		return q.counts
	case q.wrong.cachedBoard && q.board != nil:
		return q.board
	}
	b := map[string]int{}
	for d, n := range q.counts {
		if n > 0 || !q.wrong.liveCount { // liveCount hides the zeros it keeps
			b[d] = n
		}
	}
	if q.wrong.cachedBoard {
		q.board = b
	}
	return b
}

// latest keeps, per drink, only its count and the time of its latest
// order: a drink's orders all leave together, when the latest one does.
type latest struct {
	window time.Duration
	drinks map[string]*tab
}

type tab struct {
	n    int
	last time.Time
}

// live reports whether t still has orders in the window at now.
func (l *latest) live(t *tab, now time.Time) bool {
	return t != nil && t.last.After(now.Add(-l.window))
}

func (l *latest) Order(now time.Time, drink string) {
	t := l.drinks[drink]
	if !l.live(t, now) {
		t = &tab{}
		l.drinks[drink] = t
	}
	t.n++
	t.last = now
}

func (l *latest) Count(now time.Time, drink string) int {
	if t := l.drinks[drink]; l.live(t, now) {
		return t.n
	}
	return 0
}

func (l *latest) Counts(now time.Time) map[string]int {
	b := map[string]int{}
	for d, t := range l.drinks {
		if l.live(t, now) {
			b[d] = t.n
		} else {
			delete(l.drinks, d)
		}
	}
	return b
}

func (l *latest) Distinct(now time.Time) int {
	n := 0
	for _, t := range l.drinks {
		if l.live(t, now) {
			n++
		}
	}
	return n
}

func (l *latest) Total(now time.Time) int {
	n := 0
	for _, t := range l.drinks {
		if l.live(t, now) {
			n += t.n
		}
	}
	return n
}

// suite is the spec as its own tests check it: its cases, and its fuzz
// target's seeds.
var suite = mutation.SpecOf(cases, fuzzSeeds, fuzzCase)

// mutants are the spec's wrong implementations, each with the part meant
// to catch it. TestSpecCatchesMutants checks that it does, and keeps
// testdata/mistakes.json, what each fails: after a change to the spec or
// the mutants, LADDER_UPDATE_MISTAKES=1 go test -run TestSpecCatchesMutants .
// in this folder writes it again.
var mutants = []mutation.Impl[func(time.Duration) Cafe]{
	{Name: "inclusive boundary: still counts an order at exactly now-window", Part: 1, New: mutant(mistakes{inclusive: true})},
	{Name: "drops at most one old order per call", Part: 1, New: mutant(mistakes{oneAtATime: true})},
	{Name: "drops old orders only when a new one comes", Part: 1, New: mutant(mistakes{onlyOnOrder: true})},
	{Name: "folds case: Latte and latte are one drink", Part: 1, New: mutant(mistakes{foldCase: true})},
	{Name: "keeps only each drink's latest order time: its orders leave together", Part: 1, New: func(w time.Duration) Cafe {
		if w <= 0 {
			panic(fmt.Sprintf("window must be positive, got %v", w))
		}
		return &latest{window: w, drinks: map[string]*tab{}}
	}},
	{Name: "New accepts a window that is not positive", Part: 1, New: mutant(mistakes{anyWindow: true})},
	{Name: "right answers, but a re-slicing queue that reallocates", Part: 1, New: mutant(mistakes{})},
	{Name: "never deletes zero-count drinks, so Distinct counts them", Part: 2, New: mutant(mistakes{keepZeros: true})},
	{Name: "right answers, but Distinct counts every drink on each call: O(drinks)", Part: 2, New: mutant(mistakes{scanDistinct: true})},
	{Name: "right answers, but never forgets a drink: memory grows with every drink ever ordered", Part: 2, New: mutant(mistakes{keepZeros: true, liveCount: true})},
	{Name: "Counts returns its internal map", Part: 3, New: mutant(mistakes{ownBoard: true})},
	{Name: "Counts hands out one cached copy until the next order", Part: 3, New: mutant(mistakes{cachedBoard: true})},
	{Name: "Counts does not drop old orders first", Part: 3, New: mutant(mistakes{staleBoard: true})},
}

func TestSpecCatchesMutants(t *testing.T) { suite.CatchesMutants(t, mutants) }
