package redisthrottle

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/08-group-throttle/redisthrottle/spec"
)

// The spec builds throttlers with these options.
var specOptions = spec.RedisOptions[Option]{Prefix: WithPrefix, Clock: WithClock, Timeout: WithTimeout, FailOpen: FailOpen, FailClosed: FailClosed}

func TestRedisThrottle(t *testing.T)      { spec.TestRedis(t, New, specOptions) }
func BenchmarkRedisThrottle(b *testing.B) { spec.BenchmarkRedis(b, New, specOptions) }
func FuzzRedisThrottle(f *testing.F)      { spec.FuzzRedis(f, New, specOptions) }
