package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/sandbox/sandboxtest"
	"github.com/rateladder/rateladder/harness/levels"
)

// hog is a student's file of level 1 whose init touches 6 GiB of memory,
// in a child of its own, then starts 3,000 processes. The memory comes
// first: a Go program that cannot start a thread dies (newosproc), and
// past the process limit it cannot.
const hog = `package hitcounter

import (
	"os"
	"os/exec"
)

func init() {
	if os.Getenv("HOG_MEMORY") != "" {
		mem := make([]byte, 6<<30)
		for i := 0; i < len(mem); i += 4096 {
			mem[i] = 1
		}
		os.Exit(0)
	}
	self, _ := os.Executable()
	touch := exec.Command(self)
	touch.Env = append(os.Environ(), "HOG_MEMORY=1")
	touch.Run()
	for range 3000 {
		exec.Command("sh", "-c", "sleep 600; : {{MARKER}}").Start()
	}
}
`

// machineUse is what the test watches of the machine: the memory
// available and how many processes run.
type machineUse struct {
	available, total int64 // bytes
	processes        int
}

func readMachineUse(t *testing.T) machineUse {
	var u machineUse
	meminfo, err := os.ReadFile("/proc/meminfo")
	require.NoError(t, err)
	for _, line := range strings.Split(string(meminfo), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "MemAvailable:":
			u.available = kb << 10
		case "MemTotal:":
			u.total = kb << 10
		}
	}
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			u.processes++
		}
	}
	return u
}

// ladderGroups lists the cgroups named as the class report names its
// groups (ladder-PID-…), at any depth the system nests the report's own
// group: the report is a process of its own, with a PID this test does
// not know.
func ladderGroups() []string {
	var out []string
	for depth := "*"; len(depth) <= 11; depth += "/*" {
		m, _ := filepath.Glob("/sys/fs/cgroup/" + depth + "/ladder-*")
		out = append(out, m...)
	}
	return out
}

func TestClassReportLimitsAStudent(t *testing.T) {
	skipSlow(t, "runs the class report on a student who takes 6 GiB and 3,000 processes")
	if runtime.GOOS != "linux" {
		t.Skip("the limits are Linux's")
	}
	needJail(t)
	if err := sandbox.NoCgroups(); err != nil {
		t.Skip("no cgroups here to limit a student's memory and processes:", err)
	}
	instructor := fullLadder(t)
	class := t.TempDir()
	hogDir, honest := filepath.Join(class, "hog"), filepath.Join(class, "honest")
	studentOf(t, instructor, hogDir)
	studentOf(t, instructor, honest)
	require.True(t, pasteReferences(t, honest, levels.All[0]), "no solutions/ here")
	marker := fmt.Sprintf("ladder-hog-%d", time.Now().UnixNano())
	require.NoError(t, os.WriteFile(filepath.Join(hogDir, "ladder/01-hit-counter/hog.go"), []byte(strings.ReplaceAll(hog, "{{MARKER}}", marker)), 0o644))

	groupsBefore := ladderGroups()
	start := readMachineUse(t)
	least, most := start, start
	stop, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			u := readMachineUse(t)
			least.available = min(least.available, u.available)
			most.processes = max(most.processes, u.processes)
		}
	}()
	out, code := runLadder(t, instructor, "class-report", "--cache", reportCache(), "--parallel", "2", hogDir, honest)
	close(stop)
	<-watched
	t.Logf("the report:\n%s", out)
	require.Equal(t, 0, code, out)

	rows := tableRows(out)
	require.NotNil(t, rows["hog"], out)
	note := rows["hog"][len(rows["hog"])-1]
	require.Contains(t, note, fmt.Sprintf("used more than %d GiB of memory", sandbox.MemoryLimit>>30), out)
	require.Contains(t, note, fmt.Sprintf("started more than %d processes", sandbox.ProcessLimit), out)
	l1 := len(levels.All[0].Parts)
	require.Equal(t, []string{"honest", fmt.Sprintf("%d/%d", l1, l1)}, rows["honest"][:2], out)
	require.Equal(t, "", rows["honest"][len(rows["honest"])-1], out)

	sandboxtest.WaitNoProcessWith(t, marker)
	// A group is named ladder-PID-…, after the report that made it. One
	// whose report is still running belongs to another test on this
	// machine; ours has ended.
	var left []string
	for _, g := range ladderGroups() {
		var pid int
		fmt.Sscanf(filepath.Base(g), "ladder-%d-", &pid)
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		if !slices.Contains(groupsBefore, g) && (pid == 0 || err != nil) {
			left = append(left, g)
		}
	}
	require.Empty(t, left, "cgroups left behind")
	require.Greater(t, least.available, start.total-5<<30, "the machine's available memory fell to %d MiB of %d MiB", least.available>>20, start.total>>20)
	require.Less(t, most.processes-start.processes, 1500, "processes while the report ran")
}
