package spec

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// redisBenchClients is how many clients the wide benchmarks spread over.
const redisBenchClients = 10_000

// BenchmarkRedis measures decisions of the Redis form on the server's own
// time, 1,000 a minute by fixed window, for one hot client and for 10,000
// clients, serial and with b.RunParallel. It runs on miniredis, and on
// REDIS_ADDR when that is set. Besides ns/op it reports round trips per
// decision, counted by a go-redis hook, and decisions per second.
func BenchmarkRedis[T RedisThrottler, O any](b *testing.B, newThrottler func(redis.UniversalClient, limits.Config, ...O) (T, error), opts RedisOptions[O]) {
	newT := eraseRedis(newThrottler, opts)
	backends := []*backend{miniBackend(b)}
	if rb := realBackend(b); rb != nil {
		backends = append(backends, rb)
	}
	names := make([]string, redisBenchClients)
	for i := range names {
		names[i] = fmt.Sprintf("client-%05d", i)
	}
	for _, bk := range backends {
		name := "miniredis"
		if bk.mini == nil {
			name = "redis-server"
		}
		for _, l := range []limits.Limit{fixed(1000, minute), sliding(1000, minute, 2), token(1000, minute)} {
			for _, wide := range []bool{false, true} {
				for _, parallel := range []bool{false, true} {
					sub := fmt.Sprintf("%s/%v/", name, l.Algorithm)
					if wide {
						sub += "10k_clients"
					} else {
						sub += "hot"
					}
					if parallel {
						sub += "_parallel"
					}
					b.Run(sub, func(b *testing.B) { benchRedis(b, newT, bk, l, names, wide, parallel) })
				}
			}
		}
	}
}

func benchRedis(b *testing.B, newT redisCtor, bk *backend, l limits.Limit, names []string, wide, parallel bool) {
	counter := &commandCounter{}
	rdb := newClient(bk.addr)
	defer rdb.Close()
	rdb.AddHook(counter)
	th, err := newT(rdb, only(l), redisOpts{prefix: bk.prefix()})
	if err != nil {
		b.Fatalf("New: %v", err)
	}
	ctx := context.Background()
	if _, err := th.Allow(ctx, "warm-up"); err != nil {
		b.Fatalf("Allow: %v", err)
	}
	// next is the client of the next call: "hot", or with wide the
	// clients in turn, from the ith.
	next := func(i *int) string {
		if !wide {
			return "hot"
		}
		client := names[*i]
		*i = (*i + 1) % redisBenchClients
		return client
	}
	counter.reset()
	var start atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	if parallel {
		b.RunParallel(func(pb *testing.PB) {
			i := int(start.Add(7919) % redisBenchClients)
			for pb.Next() {
				if _, err := th.Allow(ctx, next(&i)); err != nil {
					b.Errorf("Allow: %v", err)
					return
				}
			}
		})
	} else {
		i := 0
		for b.Loop() {
			if _, err := th.Allow(ctx, next(&i)); err != nil {
				b.Fatalf("Allow: %v", err)
			}
		}
	}
	b.StopTimer()
	trips, _ := counter.reset()
	b.ReportMetric(float64(trips)/float64(b.N), "trips/op")
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "decisions/s")
	}
}
