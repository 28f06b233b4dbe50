package main

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/sandbox/sandboxtest"
)

var testJail = sync.OnceValues(sandbox.FindJail)

// needJail returns this machine's sandbox, or skips the test (see
// sandboxtest.Need).
func needJail(t *testing.T) *sandbox.Jail {
	t.Helper()
	j, err := testJail()
	sandboxtest.Need(t, err)
	return j
}

func TestClassReportRefusesWithoutASandbox(t *testing.T) {
	// A PATH with the go command and no bwrap, as on a machine without it.
	t.Setenv("PATH", filepath.Join(sandbox.ToolchainRoot(), "bin"))
	out, code := runLadder(t, t.TempDir(), "class-report", "alice")
	require.Equal(t, 1, code, out)
	containsAll(t, out, "class-report: refused, nothing run: ", "--no-sandbox runs the students' code anyway.", "can read and\nwrite every file you can")
	if runtime.GOOS == "linux" {
		require.Contains(t, out, "bwrap (bubblewrap) is not installed: apt-get install bubblewrap")
	}
}
