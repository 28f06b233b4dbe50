package peers

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	throttle "github.com/rateladder/rateladder/solutions/08-group-throttle"
	"github.com/rateladder/rateladder/solutions/08-group-throttle/fast"
	"github.com/sethvargo/go-limiter/memorystore"
	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
)

// keyed is one per-key limiter under test: allow decides one request of
// key, and stop releases what the limiter holds (background sweepers).
type keyed struct {
	allow func(key string) bool
	stop  func()
}

// perKeyLib makes a per-key limiter that allows requests per per for
// every key.
type perKeyLib struct {
	name string
	new  func(tb testing.TB, requests int, per time.Duration) keyed
}

// level8 returns a perKeyLib for one of level 8's throttlers, the
// reference or the fast variant, with one algorithm.
func level8[T interface {
	Allow(string) throttle.Decision
}](name string, newT func(clock.Clock, throttle.Config) (T, error), alg throttle.Algorithm, buckets int) perKeyLib {
	return perKeyLib{name, func(tb testing.TB, requests int, per time.Duration) keyed {
		t, err := newT(clock.System{}, throttle.Config{
			PerClient: throttle.Limit{Algorithm: alg, Requests: requests, Per: per, Buckets: buckets},
		})
		if err != nil {
			tb.Fatal(err)
		}
		return keyed{func(key string) bool { return t.Allow(key).Allowed }, func() {}}
	}}
}

// perKeyLibs are level 8's algorithms and the per-key peers. Every one
// reads the real clock.
var perKeyLibs = []perKeyLib{
	level8("l8-fixed", throttle.New, throttle.FixedWindow, 0),
	level8("l8-sliding2", throttle.New, throttle.SlidingWindow, 2),
	level8("l8-sliding61", throttle.New, throttle.SlidingWindow, 61),
	level8("l8-bucket", throttle.New, throttle.TokenBucket, 0),
	// The same three algorithms in level 8's fast variant.
	level8("l8fast-fixed", fast.New, throttle.FixedWindow, 0),
	level8("l8fast-sliding2", fast.New, throttle.SlidingWindow, 2),
	level8("l8fast-bucket", fast.New, throttle.TokenBucket, 0),
	// sethvargo/go-limiter's memorystore: a bucket per key, refilled in
	// whole intervals.
	{"sethvargo", func(tb testing.TB, requests int, per time.Duration) keyed {
		s, err := memorystore.New(&memorystore.Config{Tokens: uint64(requests), Interval: per})
		if err != nil {
			tb.Fatal(err)
		}
		ctx := context.Background()
		return keyed{
			func(key string) bool { _, _, _, ok, _ := s.Take(ctx, key); return ok },
			func() { _ = s.Close(ctx) },
		}
	}},
	// ulule/limiter's memory store: a fixed window per key.
	{"ulule", func(tb testing.TB, requests int, per time.Duration) keyed {
		l := limiter.New(memory.NewStore(), limiter.Rate{Period: per, Limit: int64(requests)})
		ctx := context.Background()
		return keyed{
			func(key string) bool { c, err := l.Get(ctx, key); return err == nil && !c.Reached },
			func() {},
		}
	}},
	// throttled's GCRA over its memstore, without a key limit (0): an LRU
	// bound would evict busy keys, which level 8 must never do.
	{"throttled", func(tb testing.TB, requests int, per time.Duration) keyed {
		st, err := memstore.NewCtx(0)
		if err != nil {
			tb.Fatal(err)
		}
		rl, err := throttled.NewGCRARateLimiterCtx(st, throttled.RateQuota{
			MaxRate: throttled.PerDuration(requests, per), MaxBurst: requests - 1,
		})
		if err != nil {
			tb.Fatal(err)
		}
		ctx := context.Background()
		return keyed{
			func(key string) bool { limited, _, err := rl.RateLimitCtx(ctx, key, 1); return err == nil && !limited },
			func() {},
		}
	}},
}

// floor is a lower bound for BenchmarkPerKey, not a limiter: it finds the
// key the way a table of clients must at the least, with one hash, one
// slot read in an open-addressing table of 32-byte slots holding every key
// (the fast variant's slot size, at about its load) and a byte compare,
// and decides nothing. Its time is the benchmark's own loop plus that
// search, with no clock read and no lock.
var floor = perKeyLib{"floor", func(tb testing.TB, _ int, _ time.Duration) keyed {
	type slot struct {
		name string
		hash uint64
		_    uint64 // a state's room, never read
	}
	seed := maphash.MakeSeed()
	// 160,000 slots for 100,000 keys, 62% full: about the size of the fast
	// variant's 64 shards, each between 13/24 and 13/16 full.
	slots := make([]slot, 160_000)
	return keyed{func(key string) bool {
		h := maphash.String(seed, key)
		i, _ := bits.Mul64(h, uint64(len(slots)))
		for ; ; i++ {
			if i == uint64(len(slots)) {
				i = 0
			}
			s := &slots[i]
			if s.hash == h && s.name == key {
				return true
			}
			if s.name == "" { // a new key, seen before timing starts
				*s = slot{name: key, hash: h}
				return true
			}
		}
	}, func() {}}
}}

const (
	numKeys = 100_000
	seqLen  = 1 << 20 // precomputed key choices; a power of two to wrap with a mask
)

// keyNames returns n distinct key strings, built before any timing so that
// formatting them is never measured.
func keyNames(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("client-%07d", i)
	}
	return keys
}

// keySequence returns seqLen key indices below numKeys, uniform or Zipf
// (s = 1.1: a few keys take most of the traffic), the same on every run.
func keySequence(dist string) []int32 {
	r := rand.New(rand.NewPCG(13, 8))
	zipf := rand.NewZipf(r, 1.1, 1, numKeys-1)
	seq := make([]int32, seqLen)
	for i := range seq {
		if dist == "zipf" {
			seq[i] = int32(zipf.Uint64())
		} else {
			seq[i] = int32(r.IntN(numKeys))
		}
	}
	return seq
}

// BenchmarkPerKey is section 3: level 8 against the per-key peers, over
// 100,000 keys chosen uniformly or by a Zipf law, serial and in parallel.
// Every key is seen once before timing starts, so this is the cost for
// known keys, and the garbage is collected then too. The limit, 10^9 an hour, allows every request, so every
// library runs its allow path.
func BenchmarkPerKey(b *testing.B) {
	keys := keyNames(numKeys)
	for _, dist := range []string{"uniform", "zipf"} {
		seq := keySequence(dist)
		for _, mode := range []string{"serial", "parallel"} {
			for _, lib := range append([]perKeyLib{floor}, perKeyLibs...) {
				b.Run("keys="+dist+"/mode="+mode+"/lib="+lib.name, func(b *testing.B) {
					l := lib.new(b, 1_000_000_000, time.Hour)
					defer l.stop()
					for _, k := range keys {
						if !l.allow(k) {
							b.Fatalf("%s: the first request of %s was denied", lib.name, k)
						}
					}
					// Collect now, untimed, the garbage of the setup and of the
					// libraries that ran before this one: otherwise a library
					// that happens to run after another may pay, in its timed
					// loop, for a collection of the other's heap.
					runtime.GC()
					b.ReportAllocs()
					if mode == "serial" {
						i := 0
						for b.Loop() {
							if !l.allow(keys[seq[i&(seqLen-1)]]) {
								b.Fatal("denied")
							}
							i++
						}
						return
					}
					var worker atomic.Int64
					b.ResetTimer()
					b.RunParallel(func(pb *testing.PB) {
						// Each goroutine walks the sequence from its own place.
						i := int(worker.Add(1)) * 7919 * 31
						for pb.Next() {
							if !l.allow(keys[seq[i&(seqLen-1)]]) {
								b.Error("denied")
								return
							}
							i++
						}
					})
				})
			}
		}
	}
}

// BenchmarkMemoryPerKey is section 4: the heap each limiter keeps per
// tracked key. Every iteration is the first request of a new key, so run it
// with -benchtime 1000000x for the million keys the README quotes; ns/op
// is then the cost of a new key. B/key is the live heap after the loop
// (after a GC) less the live heap before it, over the keys. The key
// strings are made before, so they count only where a library copies them.
//
// The limit is 100 a day, so that no window ends during the run (but for
// one run in thousands that straddles midnight UTC): level 8 drops a
// client's state once it equals a fresh one, and a minute's window that
// ended halfway through the million keys would halve its B/key.
func BenchmarkMemoryPerKey(b *testing.B) {
	keys := keyNames(max(1_000_000, b.N))
	for _, lib := range perKeyLibs {
		b.Run("lib="+lib.name, func(b *testing.B) {
			if b.N > len(keys) {
				keys = keyNames(b.N)
			}
			before := liveHeap()
			l := lib.new(b, 100, 24*time.Hour)
			defer l.stop()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				l.allow(keys[i])
				i++
			}
			after := liveHeap()
			runtime.KeepAlive(l)
			b.ReportMetric(float64(after-before)/float64(i), "B/key")
		})
	}
}

// liveHeap returns the bytes of live heap objects, after a full GC.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC() // a second cycle frees what the first one's finalizers released
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
