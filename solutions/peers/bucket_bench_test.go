package peers

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	tokenbucket "github.com/rateladder/rateladder/solutions/03-token-bucket"
	throttle "github.com/rateladder/rateladder/solutions/08-group-throttle"
	"go.uber.org/ratelimit"
	"golang.org/x/time/rate"
)

// start is where the explicit-time benchmarks begin: any fixed instant.
var start = time.Unix(1_700_000_000, 0)

// BenchmarkTokenBucket is section 1: level 3's bucket against
// x/time/rate's Limiter, serial, with the time passed in by the caller.
// The level 3 bucket has no mutex and x/time/rate's has one, which is part
// of what this measures; BenchmarkHotClient compares two that both lock.
//
// Both hold 100 tokens and gain one every microsecond:
//   - op=Allow: the clock moves 1µs a call, so every call is allowed;
//   - op=AllowN5: AllowN(now, 5), the clock moves 5µs a call, all allowed;
//   - op=Denied: the clock stands still on an empty bucket, all denied.
func BenchmarkTokenBucket(b *testing.B) {
	type bucket struct {
		lib   string
		allow func(now time.Time, n int) bool
	}
	fresh := func() []bucket {
		l3 := tokenbucket.New(100, 1e6)
		xr := rate.NewLimiter(1e6, 100)
		return []bucket{
			{"level3", l3.AllowN},
			{"xrate", xr.AllowN},
		}
	}
	ops := []struct {
		name string
		n    int
		step time.Duration
		want bool
	}{
		{"Allow", 1, time.Microsecond, true},
		{"AllowN5", 5, 5 * time.Microsecond, true},
		{"Denied", 1, 0, false},
	}
	for _, op := range ops {
		for i, lib := range fresh() {
			b.Run("op="+op.name+"/lib="+lib.lib, func(b *testing.B) {
				// A new bucket for every run: -count calls this again, and
				// the clock starts over.
				bk := fresh()[i]
				now := start
				if !op.want {
					for bk.allow(now, 1) { // empty the bucket
					}
				}
				if got := bk.allow(now.Add(op.step), op.n); got != op.want {
					b.Fatalf("%s: AllowN(%d) = %v before the loop, want %v", bk.lib, op.n, got, op.want)
				}
				now = now.Add(op.step)
				b.ReportAllocs()
				allowed := 0
				for b.Loop() {
					now = now.Add(op.step)
					if bk.allow(now, op.n) {
						allowed++
					}
				}
				if want := map[bool]int{true: b.N, false: 0}[op.want]; allowed != want {
					b.Fatalf("%s: %d of %d calls allowed, want %d", bk.lib, allowed, b.N, want)
				}
			})
		}
	}
}

// BenchmarkHotClient is section 2: one client hammered by every goroutine,
// where both sides are safe for concurrent use and read the real clock:
// level 8's TokenBucket (through clock.System) against x/time/rate's
// Allow. Both allow 10^9 a second with a burst of 10^9, so every call is
// allowed and nothing waits.
//
// lib=uber is go.uber.org/ratelimit's Take, for its cost per call only: it
// blocks instead of deciding, so it is set to 10^9 a second (one permit a
// nanosecond), far faster than Take can be called, and never sleeps.
func BenchmarkHotClient(b *testing.B) {
	const perSecond = 1_000_000_000
	libs := []struct {
		name string
		new  func(b *testing.B) func() bool
	}{
		{"level8", func(b *testing.B) func() bool {
			t, err := throttle.New(clock.System{}, throttle.Config{
				PerClient: throttle.Limit{Algorithm: throttle.TokenBucket, Requests: perSecond, Per: time.Second},
			})
			if err != nil {
				b.Fatal(err)
			}
			return func() bool { return t.Allow("hot").Allowed }
		}},
		{"xrate", func(*testing.B) func() bool {
			return rate.NewLimiter(perSecond, perSecond).Allow
		}},
		{"uber", func(*testing.B) func() bool {
			rl := ratelimit.New(perSecond)
			return func() bool { rl.Take(); return true }
		}},
	}
	for _, mode := range []string{"serial", "parallel"} {
		for _, lib := range libs {
			b.Run("mode="+mode+"/lib="+lib.name, func(b *testing.B) {
				allow := lib.new(b)
				b.ReportAllocs()
				if mode == "serial" {
					for b.Loop() {
						if !allow() {
							b.Fatal("denied")
						}
					}
					return
				}
				// b.Loop does not combine with RunParallel; pb.Next is its
				// parallel counterpart.
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if !allow() {
							b.Error("denied")
							return
						}
					}
				})
			})
		}
	}
}
