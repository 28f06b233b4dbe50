package fast

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/08-group-throttle/spec"
)

func TestThrottle(t *testing.T)      { spec.Test(t, New) }
func BenchmarkThrottle(b *testing.B) { spec.Benchmark(b, New) }
func FuzzThrottle(f *testing.F)      { spec.Fuzz(f, New) }
