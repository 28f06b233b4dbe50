package peers

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	throttle "github.com/rateladder/rateladder/solutions/08-group-throttle"
)

// The accuracy trace: a million requests from 10,000 clients, each limited
// to 60 requests a minute.
const (
	traceRequests = 1_000_000
	traceClients  = 10_000
	traceSeed     = 2024
	traceLimit    = 60
	tracePer      = time.Minute
)

// BenchmarkSlidingAccuracy is section 5: one bursty trace (BurstyTrace)
// replayed through level 8's SlidingWindow with B = 2 and B = 61 buckets,
// and through the exact SlidingLog. ns/op is the time to replay the whole
// trace through level 8. The metrics:
//
//   - %differ: the share of requests on which level 8 and the exact log
//     decide differently, each replaying the trace on its own;
//   - %wrong-allow and %wrong-deny: the same, split by which way;
//   - %differ-same-history: the share of requests on which level 8's
//     decision differs from the exact one on level 8's own history (fewer
//     than 60 allowed in (now-Per, now]); one early difference does not
//     change the histories that later decisions see, as it does above;
//   - %denied: the share of requests the exact log denies, for scale;
//   - est-err and abs-est-err: the mean of (estimate - real) and of its
//     absolute value, in requests, over every request: the estimate is the
//     sliding window's weighted count just before the request, and the
//     real rate is the exact count of the requests level 8 itself allowed
//     in (now-Per, now]. The limit is 60.
//
// The estimate is recomputed here from level 8's decisions by a ring of
// counters; its decision must match level 8's on every request, or the
// benchmark fails.
//
// With -short the trace is cut to 100,000 requests.
func BenchmarkSlidingAccuracy(b *testing.B) {
	n := traceRequests
	if testing.Short() {
		n = 100_000
	}
	trace := BurstyTrace(n, traceClients, traceSeed)
	names := keyNames(traceClients)
	exact := make([]bool, n)
	log := NewSlidingLog(traceClients, traceLimit, tracePer)
	for i, r := range trace {
		exact[i] = log.Allow(r.Client, r.At)
	}

	for _, buckets := range []int{2, 61} {
		b.Run(fmt.Sprintf("buckets=%d", buckets), func(b *testing.B) {
			got := make([]bool, n)
			for b.Loop() {
				replaySliding(b, trace, names, buckets, got)
			}
			var wrongAllow, wrongDeny int
			for i := range got {
				switch {
				case got[i] && !exact[i]:
					wrongAllow++
				case !got[i] && exact[i]:
					wrongDeny++
				}
			}
			signed, abs, sameHistory := estimateError(b, trace, buckets, got)
			denied := 0
			for _, ok := range exact {
				if !ok {
					denied++
				}
			}
			pct := func(k int) float64 { return 100 * float64(k) / float64(n) }
			b.ReportMetric(pct(wrongAllow+wrongDeny), "%differ")
			b.ReportMetric(pct(wrongAllow), "%wrong-allow")
			b.ReportMetric(pct(wrongDeny), "%wrong-deny")
			b.ReportMetric(pct(sameHistory), "%differ-same-history")
			b.ReportMetric(pct(denied), "%denied")
			b.ReportMetric(signed, "est-err")
			b.ReportMetric(abs, "abs-est-err")
		})
	}
}

// replaySliding runs the trace through a fresh level 8 SlidingWindow and
// writes each decision into got.
func replaySliding(b *testing.B, trace []Request, names []string, buckets int, got []bool) {
	clk := clock.NewFake()
	t, err := throttle.New(clk, throttle.Config{PerClient: throttle.Limit{
		Algorithm: throttle.SlidingWindow, Requests: traceLimit, Per: tracePer, Buckets: buckets,
	}})
	if err != nil {
		b.Fatal(err)
	}
	for i, r := range trace {
		clk.Set(clock.Epoch.Add(r.At))
		got[i] = t.Allow(names[r.Client]).Allowed
	}
}

// estimateError follows level 8's decisions with a ring of buckets per
// client, and returns the mean signed and absolute difference between the
// sliding window's estimate and the exact count of allowed requests in the
// window, just before each request, and the number of requests on which
// level 8 decided otherwise than that exact count would. It fails b if the ring's decision ever
// differs from level 8's.
func estimateError(b *testing.B, trace []Request, buckets int, allowed []bool) (signed, abs float64, differ int) {
	width := int64(tracePer) / int64(buckets-1)
	type ring struct {
		newest int64 // index of the newest bucket: time / width
		total  int64
		counts []int64
	}
	rings := make([]ring, traceClients)
	for i := range rings {
		rings[i] = ring{newest: -1, counts: make([]int64, buckets)}
	}
	truth := NewSlidingLog(traceClients, traceLimit, tracePer)
	B := int64(buckets)
	for i, r := range trace {
		now := int64(r.At)
		g := &rings[r.Client]
		// Move the ring to the bucket of now, emptying the buckets it passes.
		k := now / width
		for j := g.newest + 1; j <= k && j <= g.newest+B; j++ {
			g.total -= g.counts[j%B]
			g.counts[j%B] = 0
		}
		g.newest = max(g.newest, k)
		oldest := g.counts[(k+1)%B]
		rest := g.total - oldest
		elapsed := now - k*width
		// Allowed if rest + oldest*(width-elapsed)/width + 1 <= limit,
		// compared in whole numbers.
		ok := rest*width+oldest*(width-elapsed)+width <= traceLimit*width
		if ok != allowed[i] {
			b.Fatalf("request %d (client %d at %v): level 8 allowed = %v, the ring model says %v (rest %d, oldest %d, elapsed %v)",
				i, r.Client, r.At, allowed[i], ok, rest, oldest, time.Duration(elapsed))
		}
		estimate := float64(rest) + float64(oldest)*float64(width-elapsed)/float64(width)
		real := truth.Count(r.Client, r.At)
		if (real < traceLimit) != allowed[i] {
			differ++
		}
		diff := estimate - float64(real)
		signed += diff
		abs += max(diff, -diff)
		if allowed[i] {
			g.counts[k%B]++
			g.total++
			truth.Record(r.Client, r.At)
		}
	}
	n := float64(len(trace))
	return signed / n, abs / n, differ
}
