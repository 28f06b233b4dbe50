// Package sandboxtest holds what the tests of the sandbox and of the
// class report share: whether this machine has a sandbox, and which
// processes are still alive. Only tests import it.
package sandboxtest

import (
	"bytes"
	"os"
	"strconv"
	"testing"
	"time"
)

// E2EEnv is set by make test-e2e, which installs bwrap.
const E2EEnv = "LADDER_E2E"

// Need skips the test when err says there is no sandbox, or fails it (E2EEnv).
func Need(t testing.TB, err error) {
	t.Helper()
	if err != nil && os.Getenv(E2EEnv) != "" {
		t.Fatalf("no sandbox for the class report: %v", err)
	} else if err != nil {
		t.Skipf("no sandbox here (make test-e2e fails instead): %v", err)
	}
}

// Alive reports whether pid runs, as Linux's /proc tells: a zombie has ended.
func Alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(stat, ')') // pid (comm) S ...: the state follows the last parenthesis
	return err == nil && (i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z')
}

// ProcessesWith lists the processes whose command line holds marker.
func ProcessesWith(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if pid, err := strconv.Atoi(e.Name()); err == nil && bytes.Contains(cmdline, []byte(marker)) && Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitNoProcessWith waits 5s for the processes with marker to end, or kills them.
func WaitNoProcessWith(t *testing.T, marker string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && len(ProcessesWith(marker)) > 0; {
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range ProcessesWith(marker) {
		t.Errorf("process %d outlived its sandbox (%s)", pid, marker)
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}
