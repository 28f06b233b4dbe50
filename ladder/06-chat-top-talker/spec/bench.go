package spec

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Benchmark measures Record, TopTalker and TopTalkers separately, on a
// window of 1,000,000 messages from 100,000 users who talk at Zipf-like
// rates: user i talks about as often as 1/(i+1)^1.1, so a few talk a lot
// and most talk rarely, and about 65,000 of them are in the window at any
// time. The queries are measured alone, with nothing left to expire, so
// their cost is the ranking's; Record is measured in steady state, one
// message in and one out. The "users" metric is how many distinct
// users the window holds.
//
// It calls the package's own type A, not the spec's interface, so that
// the numbers are the implementation's alone.
func Benchmark[A Aggregator](b *testing.B, newAggregator func(window time.Duration) A) {
	const (
		users    = 100_000
		channels = 64
		window   = time.Minute
		gap      = 60 * time.Microsecond // 1,000,000 messages in each window
		inWindow = int(window / gap)
		seqLen   = 1 << 21 // the talkers, drawn once and replayed
	)
	userNames := make([]string, users)
	for i := range userNames {
		userNames[i] = fmt.Sprintf("user%06d", i)
	}
	channelNames := make([]string, channels)
	for i := range channelNames {
		channelNames[i] = fmt.Sprintf("#channel%02d", i)
	}
	r := rand.New(rand.NewPCG(6, 7))
	zipf := rand.NewZipf(r, 1.1, 1, users-1)
	seq := make([]int32, seqLen)
	for i := range seq {
		seq[i] = int32(zipf.Uint64())
	}
	msg := func(i int, now time.Time) Message {
		u := seq[i&(seqLen-1)]
		return Message{At: now, User: userNames[u], Channel: channelNames[(int(u)+i)%channels]}
	}
	seen := make([]bool, users)
	distinct := 0
	for _, u := range seq[:inWindow] {
		if !seen[u] {
			seen[u], distinct = true, distinct+1
		}
	}

	// One full window, shared: the queries change nothing, and Record,
	// measured last, carries on from where the fill stopped.
	a := newAggregator(window)
	now := clock.BenchStart
	for i := range inWindow {
		now = now.Add(gap)
		a.Record(msg(i, now))
	}
	next := inWindow

	b.Run("TopTalker", func(b *testing.B) {
		a.TopTalker(now)
		b.ReportAllocs()
		for b.Loop() {
			a.TopTalker(now)
		}
		b.ReportMetric(float64(distinct), "users")
	})
	b.Run("TopTalkers_k10", func(b *testing.B) {
		a.TopTalkers(now, 10)
		b.ReportAllocs()
		for b.Loop() {
			a.TopTalkers(now, 10)
		}
		b.ReportMetric(float64(distinct), "users")
	})
	b.Run("Record", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(gap)
			a.Record(msg(next, now))
			next++
		}
	})
}
