package probe_test

import (
	"testing"

	"github.com/rateladder/rateladder/harness/internal/grade/testdata/probe"
)

func TestProbe(t *testing.T) { probe.Test(t) }
