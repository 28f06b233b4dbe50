package pageviews

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/05-page-views/spec"
)

func TestPageViews(t *testing.T)      { spec.Test(t, New) }
func BenchmarkPageViews(b *testing.B) { spec.Benchmark(b, New) }
func FuzzPageViews(f *testing.F)      { spec.Fuzz(f, New) }
