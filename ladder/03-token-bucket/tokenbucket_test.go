package tokenbucket

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/03-token-bucket/spec"
)

func TestTokenBucket(t *testing.T)      { spec.Test(t, New) }
func BenchmarkTokenBucket(b *testing.B) { spec.Benchmark(b, New) }
func FuzzTokenBucket(f *testing.F)      { spec.Fuzz(f, New) }
