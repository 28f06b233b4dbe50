// Package sandboxtest holds what the tests of the sandbox and of the
// class report share: whether this machine has a sandbox, and which
// processes are still alive. Only tests import it.
package sandboxtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// E2EEnv is set by make test-e2e, which installs bwrap: there a test that
// needs the sandbox and finds none fails, rather than skip.
const E2EEnv = "LADDER_E2E"

// Need skips the test when err says this machine has no sandbox, or, under
// make test-e2e, fails it with what to install.
func Need(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		if os.Getenv(E2EEnv) != "" {
			t.Fatalf("no sandbox for the class report: %v", err)
		}
		t.Skipf("no sandbox here (make test-e2e fails instead): %v", err)
	}
}

// Alive reports whether pid is a process that has not ended; a zombie
// waiting for its parent to reap it has ended.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.Signal(0)) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && runtime.GOOS != "linux"
	}
	// pid (comm) S ...: the state follows the last parenthesis.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// ProcessesWith lists the processes of this machine whose command line
// holds marker.
func ProcessesWith(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(cmdline, []byte(marker)) && Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitNoProcessWith waits up to 5s for every process with marker in its
// command line to end.
func WaitNoProcessWith(t *testing.T, marker string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(ProcessesWith(marker)) == 0 {
			return
		}
	}
	for _, pid := range ProcessesWith(marker) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		t.Errorf("process %d outlived its sandbox: %q", pid, cmdline)
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}
