package peers

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	throttle "github.com/rateladder/rateladder/solutions/08-group-throttle"
	"github.com/rateladder/rateladder/solutions/08-group-throttle/redisthrottle"
)

// tripCounter counts the commands and pipelines a client sends: each is
// one round trip to the server.
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// redisLib decides one request of a key against a real server.
type redisLib struct {
	name string
	new  func(tb testing.TB, rdb *redis.Client, prefix string) func(ctx context.Context, key string) bool
}

// A million requests a second: every request is allowed, so both run
// their allow path, and the arithmetic stays exact in Lua's doubles.
const redisRate = 1_000_000

var redisLibs = []redisLib{
	{"l8-redis", func(tb testing.TB, rdb *redis.Client, prefix string) func(context.Context, string) bool {
		t, err := redisthrottle.New(rdb, throttle.Config{
			PerClient: throttle.Limit{Algorithm: throttle.TokenBucket, Requests: redisRate, Per: time.Second},
		}, redisthrottle.WithPrefix(prefix))
		if err != nil {
			tb.Fatal(err)
		}
		return func(ctx context.Context, key string) bool {
			d, err := t.Allow(ctx, key)
			if err != nil {
				tb.Fatal(err)
			}
			return d.Allowed
		}
	}},
	// go-redis/redis_rate: GCRA in a Lua script, the limiter most Go
	// services on Redis use.
	{"redis_rate", func(tb testing.TB, rdb *redis.Client, prefix string) func(context.Context, string) bool {
		l := redis_rate.NewLimiter(rdb)
		limit := redis_rate.Limit{Rate: redisRate, Burst: redisRate, Period: time.Second}
		return func(ctx context.Context, key string) bool {
			res, err := l.Allow(ctx, prefix+key, limit)
			if err != nil {
				tb.Fatal(err)
			}
			return res.Allowed > 0
		}
	}},
}

// BenchmarkRedis puts the Redis form of level 8 beside go-redis/redis_rate
// on the same real server, for one client and for 10,000, serial and in
// parallel. It reports decisions a second and round trips a decision, and
// where the server runs on this Linux machine the CPU time a decision
// costs the server and this process: on a shared machine, the neighbours
// move decisions/s far more than they move CPU time. It needs REDIS_ADDR:
// make peers-redis starts a server and sets it.
func BenchmarkRedis(b *testing.B) {
	addr := os.Getenv("REDIS_ADDR")
	if addr == "" {
		b.Skip("REDIS_ADDR is not set; make peers-redis starts a redis-server for this")
	}
	for _, clients := range []int{1, 10_000} {
		keys := make([]string, clients)
		for i := range keys {
			keys[i] = fmt.Sprintf("client-%d", i)
		}
		for _, mode := range []string{"serial", "parallel"} {
			for _, lib := range redisLibs {
				b.Run(fmt.Sprintf("clients=%d/mode=%s/lib=%s", clients, mode, lib.name), func(b *testing.B) {
					b.ReportAllocs()
					rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
					defer rdb.Close()
					trips := &tripCounter{}
					rdb.AddHook(trips)
					ctx := context.Background()
					allow := lib.new(b, rdb, fmt.Sprintf("peers:%d:", time.Now().UnixNano()))
					for _, k := range keys { // every key known before timing
						allow(ctx, k)
					}
					trips.n.Store(0)
					srvPID := serverPID(ctx, rdb)
					srv0, srvOK := cpuTime(srvPID)
					cli0, cliOK := cpuTime(os.Getpid())
					start := time.Now()
					var done atomic.Int64
					if mode == "serial" {
						i := 0
						for b.Loop() {
							allow(ctx, keys[i%clients])
							i++
						}
						done.Store(int64(i))
					} else {
						// b.Loop cannot drive RunParallel: pb.Next does.
						b.ResetTimer() // not the warm-up above
						b.RunParallel(func(pb *testing.PB) {
							i := 0
							for pb.Next() {
								allow(ctx, keys[i%clients])
								i++
							}
							done.Add(int64(i))
						})
					}
					elapsed := time.Since(start)
					b.ReportMetric(float64(done.Load())/elapsed.Seconds(), "decisions/s")
					b.ReportMetric(float64(trips.n.Load())/float64(done.Load()), "trips/op")
					srv1, _ := cpuTime(srvPID)
					cli1, _ := cpuTime(os.Getpid())
					if srvOK && cliOK {
						b.ReportMetric(float64((srv1-srv0).Microseconds())/float64(done.Load()), "server-µs/op")
						b.ReportMetric(float64((cli1-cli0).Microseconds())/float64(done.Load()), "client-µs/op")
					}
				})
			}
		}
	}
}

// serverPID is the process ID of the Redis server if it runs on this
// machine, or 0.
func serverPID(ctx context.Context, rdb *redis.Client) int {
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, _ := strconv.Atoi(v)
			// A server elsewhere has a process ID too: make sure this
			// one is a redis-server here.
			if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && strings.HasPrefix(string(comm), "redis-server") {
				return pid
			}
		}
	}
	return 0
}

// cpuTime is the CPU time every thread of process pid has used, from
// Linux's /proc/<pid>/task/*/schedstat, and whether it could be read.
func cpuTime(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, false
	}
	var sum time.Duration
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, task.Name()))
		if err != nil {
			continue // the thread has ended
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum, true
}
