package hitcounter

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/01-hit-counter/spec"
)

func TestHitCounter(t *testing.T)      { spec.Test(t, New) }
func BenchmarkHitCounter(b *testing.B) { spec.Benchmark(b, New) }
func FuzzHitCounter(f *testing.F)      { spec.Fuzz(f, New) }
