package logger

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/02-logger-limiter/spec"
)

func TestLogger(t *testing.T)      { spec.Test(t, New) }
func BenchmarkLogger(b *testing.B) { spec.Benchmark(b, New) }
func FuzzLogger(f *testing.F)      { spec.Fuzz(f, New) }
