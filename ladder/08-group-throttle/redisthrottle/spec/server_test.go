package spec

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// TestServerCasesListsTheSkippedCases checks that ServerCases names
// exactly the cases that a run without redis-server skips, so that the
// count in the skip message and the grader's list are right.
func TestServerCasesListsTheSkippedCases(t *testing.T) {
	if got, want := serverSkipMessage(len(killedServerOpts)), "3 cases need a real redis-server: make test-level-8 REDIS=1"; got != want {
		t.Errorf("serverSkipMessage(%d) = %q, want %q", len(killedServerOpts), got, want)
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("builds the server cases, which needs redis-server on the PATH to list them")
	}
	if !canPause {
		t.Skip("the paused case is not built where processes cannot be paused")
	}
	var built []ServerCase
	var cs []timeline.Case[Throttler]
	t.Run("list", func(t *testing.T) {
		cs = append(ownServerCases(t, nil), pausedServerCases(t, nil)...)
	})
	for _, c := range cs {
		built = append(built, ServerCase{c.Name, c.Part})
	}
	if !slices.Equal(ServerCases(), built) {
		t.Errorf("ServerCases() = %v, want the cases built: %v", ServerCases(), built)
	}
}
