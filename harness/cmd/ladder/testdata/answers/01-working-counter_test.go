// A test file that makes the cases of level 1 pass without touching the
// stub, with a queue of its own: the stub check must see that a case
// passed.
package hitcounter

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/ladder/01-hit-counter/spec"
)

type queue struct {
	window time.Duration
	hits   []time.Time
}

func (q *queue) Hit(now time.Time) { q.hits = append(q.hits, now) }

func (q *queue) Count(now time.Time) int {
	for len(q.hits) > 0 && !q.hits[0].After(now.Add(-q.window)) {
		q.hits = q.hits[1:]
	}
	return len(q.hits)
}

func TestHitCounter(t *testing.T) {
	spec.Test(t, func(w time.Duration) *queue {
		if w <= 0 {
			panic("bad window " + w.String())
		}
		return &queue{window: w}
	})
}
