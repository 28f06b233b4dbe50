package pageviews

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/05-page-views/spec"
)

// errs tells the spec which of this package's errors is which.
var errs = spec.Errors{
	TimeWentBackwards: ErrTimeWentBackwards,
	NegativeViews:     ErrNegativeViews,
	TimeOutOfRange:    ErrTimeOutOfRange,
}

func TestPageViews(t *testing.T)      { spec.Test(t, New, errs) }
func BenchmarkPageViews(b *testing.B) { spec.Benchmark(b, New) }
func FuzzPageViews(f *testing.F)      { spec.Fuzz(f, New, errs) }
