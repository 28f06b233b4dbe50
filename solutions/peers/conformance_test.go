package peers

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	tokenbucket "github.com/rateladder/rateladder/solutions/03-token-bucket"
	throttle "github.com/rateladder/rateladder/solutions/08-group-throttle"
	"golang.org/x/time/rate"
)

// intervalsMs are the refill intervals of the conformance tests, in whole
// milliseconds: the rates are 1000/k tokens a second. Some, like 3 and 7
// ms, make rates that no float64 holds exactly (333.33... a second).
var intervalsMs = []int64{1, 2, 3, 4, 5, 7, 8, 10, 16, 25, 40, 100, 125, 250, 333, 1000, 3000, 10000}

// step is one request of a timeline: n tokens at an offset from the start.
type step struct {
	at time.Duration
	n  int
}

// timeline returns a random run of requests for a bucket of the given
// capacity refilled every intervalMs milliseconds. Times are whole
// milliseconds and never go backwards; they often stand still, and often
// move by about what a request costs, where decisions are closest.
func timeline(r *rand.Rand, capacity int, intervalMs int64, minN int) []step {
	steps := make([]step, 20+r.IntN(200))
	var at time.Duration
	for i := range steps {
		var ms int64
		switch r.IntN(4) {
		case 0: // the same instant
		case 1: // about one token's worth
			ms = intervalMs - 1 + r.Int64N(3)
		case 2: // a few tokens' worth
			ms = r.Int64N(int64(capacity)*intervalMs + 1)
		default: // anything up to a refill and a half
			ms = r.Int64N(int64(capacity)*intervalMs*3/2 + 2)
		}
		at += time.Duration(max(ms, 0)) * time.Millisecond
		n := 1
		if r.IntN(3) == 0 {
			n = minN + r.IntN(capacity+2-minN) // up to capacity+1, never allowed
		}
		steps[i] = step{at, n}
	}
	return steps
}

// describe writes the timeline up to and including step last, for a
// failure message.
func describe(steps []step, last int, decisions []bool) string {
	var sb strings.Builder
	for i := max(0, last-12); i <= last; i++ {
		fmt.Fprintf(&sb, "\n  t=%v AllowN(%d)", steps[i].at, steps[i].n)
		if i < last {
			fmt.Fprintf(&sb, " = %v", decisions[i])
		}
	}
	return sb.String()
}

func trials(t *testing.T) int {
	if testing.Short() {
		return 2_000
	}
	return 20_000
}

// TestConformanceLevel3 replays random timelines through level 3's
// reference and x/time/rate's Limiter.AllowN: they must decide the same on
// every request. Whole-millisecond times and intervals keep both exact
// enough; x/time/rate's float rounding on other rates, golang/go#34861, is
// outside this test.
func TestConformanceLevel3(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 34861))
	base := time.Unix(1_700_000_000, 0)
	for trial := range trials(t) {
		capacity := 1 + r.IntN(12)
		k := intervalsMs[r.IntN(len(intervalsMs))]
		perSecond := 1000 / float64(k)
		if trial%50 == 0 {
			perSecond = 0 // a bucket that never refills
		}
		ref := tokenbucket.New(capacity, perSecond)
		peer := rate.NewLimiter(rate.Limit(perSecond), capacity)
		steps := timeline(r, capacity, k, 0)
		decisions := make([]bool, len(steps))
		for i, s := range steps {
			now := base.Add(s.at)
			got, want := ref.AllowN(now, s.n), peer.AllowN(now, s.n)
			if got != want {
				t.Fatalf("trial %d: capacity %d, %v tokens a second: level 3 AllowN = %v, x/time/rate AllowN = %v at the last step of:%s",
					trial, capacity, perSecond, got, want, describe(steps, i, decisions))
			}
			decisions[i] = got
		}
	}
}

// TestConformanceLevel8 does the same for level 8's TokenBucket, through a
// harness clock.Fake, with three clients interleaved, each beside its own
// x/time/rate Limiter. Level 8's Limit{TokenBucket, Requests: c, Per: p} is
// a bucket of c tokens refilled at c per p, so Per is c intervals.
func TestConformanceLevel8(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 34861))
	clients := []string{"a", "b", "c"}
	for trial := range trials(t) {
		capacity := 1 + r.IntN(12)
		k := intervalsMs[r.IntN(len(intervalsMs))]
		clk := clock.NewFake()
		ref, err := throttle.New(clk, throttle.Config{PerClient: throttle.Limit{
			Algorithm: throttle.TokenBucket, Requests: capacity, Per: time.Duration(int64(capacity)*k) * time.Millisecond,
		}})
		if err != nil {
			t.Fatal(err)
		}
		peers := make([]*rate.Limiter, len(clients))
		for i := range peers {
			peers[i] = rate.NewLimiter(rate.Limit(1000/float64(k)), capacity)
		}
		steps := timeline(r, capacity, k, 1) // level 8 takes n >= 1
		decisions := make([]bool, len(steps))
		base := clock.Epoch.Add(time.Duration(r.Int64N(1e6)) * time.Millisecond)
		for i, s := range steps {
			c := r.IntN(len(clients))
			now := base.Add(s.at)
			clk.Set(now)
			got, want := ref.AllowN(clients[c], s.n).Allowed, peers[c].AllowN(now, s.n)
			if got != want {
				t.Fatalf("trial %d: capacity %d, a token every %dms, client %s: level 8 AllowN = %v, x/time/rate AllowN = %v at the last step of (all clients):%s",
					trial, capacity, k, clients[c], got, want, describe(steps, i, decisions))
			}
			decisions[i] = got
		}
	}
}
