package fast

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// TestTableUnderChurn checks the paths a known client takes without the
// shard's mutex against everything that moves slots under it: 8
// goroutines send requests to 3,000 clients (1,000 under the race
// detector), a third of them new in each
// window, so that shards insert, sweep out the last window's states
// (moving slots back) and grow while the others' calls hold slots, and
// Len sweeps beside them. In each window every client is allowed exactly
// Requests times, with each Remaining once.
func TestTableUnderChurn(t *testing.T) {
	const goroutines, limit, rounds = 8, 20, 4
	// The race detector slows each call tenfold; a thousand clients still
	// make every shard grow and sweep.
	clients := 3000
	if timeline.RaceEnabled {
		clients = 1000
	}
	for _, alg := range []Algorithm{FixedWindow, SlidingWindow, TokenBucket} {
		t.Run(fmt.Sprint(alg), func(t *testing.T) {
			clk := clock.NewFake()
			th, err := New(clk, Config{PerClient: Limit{Algorithm: alg, Requests: limit, Per: time.Minute}})
			if err != nil {
				t.Fatal(err)
			}
			for round := range rounds {
				names := make([]string, clients)
				for i := range names {
					names[i] = fmt.Sprintf("c-%d", i+round*clients/3)
				}
				seen := make([][limit]int32, clients)
				var mu sync.Mutex
				var wg sync.WaitGroup
				for g := range goroutines {
					wg.Add(1)
					go func() {
						defer wg.Done()
						local := make([][limit]int32, clients)
						for pass := range 2 * limit * 2 / goroutines {
							for i := range names {
								j := (i*7 + g*131 + pass*17) % clients
								if d := th.Allow(names[j]); d.Allowed {
									local[j][d.Remaining]++
								}
							}
							if g == 0 && pass%5 == 0 {
								th.Len()
							}
						}
						mu.Lock()
						for j := range local {
							for r, n := range local[j] {
								seen[j][r] += n
							}
						}
						mu.Unlock()
					}()
				}
				wg.Wait()
				for j := range seen {
					for r, n := range seen[j] {
						if n != 1 {
							t.Fatalf("round %d: client %s was allowed %d times with %d left, want once", round, names[j], n, r)
						}
					}
				}
				clk.Advance(3 * time.Minute) // every state may be dropped
			}
		})
	}
}
