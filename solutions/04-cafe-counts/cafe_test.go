package cafe

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/04-cafe-counts/spec"
)

func TestCafe(t *testing.T)      { spec.Test(t, New) }
func BenchmarkCafe(b *testing.B) { spec.Benchmark(b, New) }
func FuzzCafe(f *testing.F)      { spec.Fuzz(f, New) }
