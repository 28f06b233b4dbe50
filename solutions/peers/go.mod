module github.com/rateladder/rateladder/solutions/peers

go 1.24.0

replace (
	github.com/rateladder/rateladder => ../..
	github.com/rateladder/rateladder/ladder/08-group-throttle/redisthrottle => ../../ladder/08-group-throttle/redisthrottle
	github.com/rateladder/rateladder/solutions/08-group-throttle/redisthrottle => ../08-group-throttle/redisthrottle
)

require (
	github.com/go-redis/redis_rate/v10 v10.0.1
	github.com/rateladder/rateladder v0.0.0
	github.com/rateladder/rateladder/solutions/08-group-throttle/redisthrottle v0.0.0
	github.com/redis/go-redis/v9 v9.22.0
	github.com/sethvargo/go-limiter v0.7.1
	github.com/throttled/throttled/v2 v2.15.0
	github.com/ulule/limiter/v3 v3.11.2
	go.uber.org/ratelimit v0.3.1
	golang.org/x/time v0.14.0
)

require (
	github.com/benbjohnson/clock v1.3.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/hashicorp/golang-lru v0.5.4 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	go.uber.org/atomic v1.11.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
