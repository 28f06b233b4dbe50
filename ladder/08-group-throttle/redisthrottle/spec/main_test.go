package spec

import (
	"os"
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// TestMain gives the spec's own tests the patient case limit once, so
// that they can run side by side: they mostly wait on deadlines.
func TestMain(m *testing.M) {
	if os.Getenv(timeline.TimeoutEnv) == "" {
		os.Setenv(timeline.TimeoutEnv, redisCaseTimeout)
	}
	quietRedis()
	os.Exit(m.Run())
}
