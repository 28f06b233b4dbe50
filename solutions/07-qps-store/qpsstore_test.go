package qpsstore

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/07-qps-store/spec"
)

func TestQPSStore(t *testing.T)      { spec.Test(t, New) }
func BenchmarkQPSStore(b *testing.B) { spec.Benchmark(b, New) }
func FuzzQPSStore(f *testing.F)      { spec.Fuzz(f, New) }
