package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHitNamesTheLimit(t *testing.T) {
	write := func(dir, name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	v1mem, v1pids, v2 := t.TempDir(), t.TempDir(), t.TempDir()
	v1 := Group{v1mem, v1pids}
	write(v1mem, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
	write(v1pids, "pids.events", "max 0\n")
	require.Equal(t, []string{"used more than 2 GiB of memory"}, v1.Hit())
	write(v1pids, "pids.events", "max 12\n")
	require.Equal(t, []string{"used more than 2 GiB of memory", "started more than 256 processes"}, v1.Hit())

	write(v2, "memory.events", "low 0\nhigh 0\nmax 40\noom 1\noom_kill 0\n")
	write(v2, "pids.events", "max 3\n")
	require.Equal(t, []string{"started more than 256 processes"}, Group{v2}.Hit())

	require.Nil(t, Group(nil).Hit())
}

// TestLimitedCommandRunsInItsGroup runs a command of a limited sandbox
// and reads, from inside, its cgroups and rlimits.
func TestLimitedCommandRunsInItsGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the limits are Linux's")
	}
	j := needJail(t)
	sb, err := New(t.TempDir(), "s", "", j, true)
	require.NoError(t, err)
	defer func() { require.NoError(t, sb.Remove()) }()
	cmd := sb.Command(sb.Src, "sh", "-c", "ulimit -n; ulimit -t; ulimit -f; cat /proc/self/cgroup")
	stopped, err := RunLimited(context.Background(), time.Minute, cmd)
	require.NoError(t, err)
	require.False(t, stopped)
	out := cmd.Stdout.(interface{ String() string }).String()
	lines := strings.Split(out, "\n")
	require.Equal(t, strconv.Itoa(OpenFilesLimit), lines[0])
	require.Equal(t, strconv.Itoa(int(CPUTimeLimit/time.Second)), lines[1])
	require.Equal(t, strconv.Itoa(FileSizeLimit/512), lines[2]) // 512-byte blocks
	if err := NoCgroups(); err != nil {
		t.Logf("no cgroups here: %v", err)
		return
	}
	require.NotNil(t, sb.Group)
	// The sandbox's own cgroup namespace shows its group as its root.
	if len(sb.Group) == 2 {
		for _, dir := range sb.Group {
			_, err := os.Stat(dir)
			require.NoError(t, err)
		}
	}
	require.Nil(t, sb.Group.Hit())
}

// TestGroupNamesWhatWasHit runs a fork loop and a memory hog in a
// limited sandbox: each limit holds, and the group names it.
func TestGroupNamesWhatWasHit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the limits are Linux's")
	}
	if testing.Short() {
		t.Skip("fills 2 GiB of memory, a minute")
	}
	j := needJail(t)
	if err := NoCgroups(); err != nil {
		t.Skip("no cgroups here:", err)
	}
	sb, err := New(t.TempDir(), "s", "", j, true)
	require.NoError(t, err)
	defer func() { require.NoError(t, sb.Remove()) }()
	// A shell that holds 3 GiB in a variable, then 400 sleeping children.
	cmd := sb.Command(sb.Src, "sh", "-c", `(x=$(head -c 3G /dev/zero | tr '\0' a)); i=0; while [ $i -lt 400 ]; do sleep 3600 & i=$((i+1)); done`)
	_, _ = RunLimited(context.Background(), 5*time.Minute, cmd)
	require.Equal(t, []string{"used more than 2 GiB of memory", "started more than 256 processes"}, sb.Group.Hit())
}

// TestInstructorsMdHasTheLimits keeps INSTRUCTORS.md's numbers those of
// the constants.
func TestInstructorsMdHasTheLimits(t *testing.T) {
	doc, err := os.ReadFile("../../../INSTRUCTORS.md")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(doc)), " ")
	for _, want := range []string{
		fmt.Sprintf("`used more than %d GiB of memory`", MemoryLimit>>30),
		fmt.Sprintf("`started more than %d processes`", ProcessLimit),
		fmt.Sprintf("%d GiB of memory and %d processes", MemoryLimit>>30, ProcessLimit),
		fmt.Sprintf("files of up to %d GiB", FileSizeLimit>>30),
		fmt.Sprintf("%d,%03d files open", OpenFilesLimit/1000, OpenFilesLimit%1000),
		fmt.Sprintf("use %d minutes of CPU time", int(CPUTimeLimit.Minutes())),
	} {
		require.Contains(t, text, want)
	}
}

// TestNewGroupV2WritesTheLimits makes a v2 group in a plain folder, which
// stands for a delegated cgroup v2 tree: the files it writes are read back.
func TestNewGroupV2WritesTheLimits(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "student")
	g, err := newGroup(Group{dir})
	require.NoError(t, err)
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(parent, name))
		require.NoError(t, err)
		return string(data)
	}
	require.Equal(t, "+memory +pids", read("cgroup.subtree_control"))
	require.Equal(t, "2147483648", read("student/memory.max"))
	require.Equal(t, "256", read("student/pids.max"))
	require.Equal(t, Group{dir}, g)
}
