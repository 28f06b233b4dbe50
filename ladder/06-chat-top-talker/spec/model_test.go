package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// modelAggregator is the fuzz model behind level 6's API, as a learner
// holding a student copy could wrap it, with the window check it lacks.
// The model ships in the copy (the fuzz target needs it), so it must not
// be an answer: it keeps every message, and part 1's memory case fails it.
type modelAggregator struct{ md *model }

func newModelAggregator(w time.Duration) Aggregator {
	if w <= 0 {
		panic(fmt.Sprintf("chat: window %v is not positive", w))
	}
	return modelAggregator{&model{window: w}}
}

func (a modelAggregator) Record(m Message)                   { a.md.msgs = append(a.md.msgs, m) }
func (a modelAggregator) Total(now time.Time) int            { return a.md.total(now) }
func (a modelAggregator) ByUser(now time.Time, u string) int { return a.md.byUser(now, u) }
func (a modelAggregator) ByChannel(now time.Time, c string) int {
	return a.md.byChannel(now, c)
}
func (a modelAggregator) TopTalker(now time.Time) (Talker, bool) {
	l := a.md.topTalker(now)
	return l.Talker, l.OK
}
func (a modelAggregator) TopTalkers(now time.Time, k int) []Talker { return a.md.topTalkers(now, k) }

// TestTheFuzzModelIsNoAnswer: the model, wrapped, is not done with part 1,
// so no part of the level.
func TestTheFuzzModelIsNoAnswer(t *testing.T) {
	mutation.Caught(t, "the fuzz model wrapped as an aggregator", 1, cases(newModelAggregator))
}
