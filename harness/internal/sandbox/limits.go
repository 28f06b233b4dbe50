package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The limits on a student's sandbox, so that one student's runaway code
// costs no one else anything. Memory and processes count for the whole
// sandbox (a cgroup); the rest per process (rlimits). INSTRUCTORS.md has
// the same numbers. There is no RLIMIT_AS: the race detector reserves
// terabytes of address space that it never uses.
const (
	// MemoryLimit is the memory of a student's whole sandbox.
	MemoryLimit = 2 << 30
	// ProcessLimit is how many processes and threads a sandbox may run at once.
	ProcessLimit = 256
	// FileSizeLimit is the largest file a process may write (RLIMIT_FSIZE).
	FileSizeLimit = 1 << 30
	// OpenFilesLimit is how many files one process may hold open (RLIMIT_NOFILE).
	OpenFilesLimit = 4096
	// CPUTimeLimit is the CPU time one process may use (RLIMIT_CPU).
	CPUTimeLimit = 10 * time.Minute
)

// LimitsCommand is the word that makes this program the wrapper that puts
// a sandbox's command in its cgroup and under its rlimits, then executes
// it. Go cannot run code between fork and exec, and cgroup v1 cannot start
// a process inside a group, so the process enters the group itself.
const LimitsCommand = "sandbox-limits"

func init() {
	if len(os.Args) > 1 && os.Args[1] == LimitsCommand {
		fmt.Fprintf(os.Stderr, "%s: %v\n", LimitsCommand, enterLimits(os.Args[2:]))
		os.Exit(126)
	}
}

// enterLimits writes this process's id to each cgroup.procs file of args
// (up to "--"), sets the rlimits, and executes the command after "--",
// found in the sandbox's PATH.
func enterLimits(args []string) error {
	i := slices.Index(args, "--")
	if i < 0 || i+1 >= len(args) {
		return errors.New("usage: " + LimitsCommand + " [CGROUP.PROCS...] -- PROGRAM [ARG...]")
	}
	pid := []byte(strconv.Itoa(os.Getpid()))
	for _, procs := range args[:i] {
		if err := os.WriteFile(procs, pid, 0); err != nil {
			return err
		}
	}
	if err := setRlimits(); err != nil {
		return err
	}
	path, err := exec.LookPath(args[i+1])
	if err != nil {
		return err
	}
	return syscall.Exec(path, args[i+1:], os.Environ())
}

// A Group is the cgroup of one student's sandbox: one folder on cgroup
// v2; on cgroup v1 a memory folder, then a pids folder.
type Group struct {
	folders []string
}

const cgroupRoot = "/sys/fs/cgroup"

// NoCgroups says why the report cannot limit a sandbox's memory and
// processes here, or is nil when it can. It tries once per process.
var NoCgroups = sync.OnceValue(func() error {
	g, err := NewGroup(fmt.Sprintf("ladder-%d-check", os.Getpid()))
	if err == nil {
		err = g.Remove()
	}
	return err
})

// NewGroup makes the cgroup name, below this process's own group, with
// the memory and process limits: on cgroup v2 where the system has it,
// on cgroup v1 otherwise.
func NewGroup(name string) (*Group, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("no cgroups on %s", runtime.GOOS)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	own := ownGroups(string(self))
	if info, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil && info.Mode().IsRegular() {
		return newGroupV2(filepath.Join(cgroupRoot, own[""], name))
	}
	if own["memory"] == "" || own["pids"] == "" {
		return nil, errors.New("neither cgroup v2 nor the memory and pids controllers of cgroup v1")
	}
	return newGroup(filepath.Join(cgroupRoot, "memory", own["memory"], name), filepath.Join(cgroupRoot, "pids", own["pids"], name))
}

// newGroupV2 makes the cgroup v2 folder dir, whose parent must give it
// the memory and pids controllers.
func newGroupV2(dir string) (*Group, error) {
	parent := filepath.Join(filepath.Dir(dir), "cgroup.subtree_control")
	if sub, _ := os.ReadFile(parent); !strings.Contains(string(sub), "memory") || !strings.Contains(string(sub), "pids") {
		// A group with processes of its own cannot give its controllers
		// away: this then fails, and there are rlimits only.
		if err := os.WriteFile(parent, []byte("+memory +pids"), 0); err != nil {
			return nil, fmt.Errorf("cgroup v2 without the memory and pids controllers for this process's groups: %v", err)
		}
	}
	g, err := newGroup(dir)
	if err == nil {
		os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0) // absent without swap accounting
	}
	return g, err
}

// newGroup makes the group's folders and writes its limits, the memory's
// in the first, the processes' in the last; it removes what it made when
// one step fails.
func newGroup(folders ...string) (*Group, error) {
	g := &Group{}
	memFile := "memory.limit_in_bytes"
	if len(folders) == 1 {
		memFile = "memory.max"
	}
	var err error
	for _, dir := range folders {
		if err = os.Mkdir(dir, 0o755); err != nil {
			break
		}
		g.folders = append(g.folders, dir)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(folders[0], memFile), []byte(strconv.Itoa(MemoryLimit)), 0)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(folders[len(folders)-1], "pids.max"), []byte(strconv.Itoa(ProcessLimit)), 0)
	}
	if err != nil {
		g.Remove()
		return nil, err
	}
	return g, nil
}

// v2 reports whether g is a cgroup v2 group: one folder.
func (g *Group) v2() bool { return len(g.folders) == 1 }

// ownGroups reads /proc/self/cgroup: each v1 controller's group, and the
// v2 group under "".
func ownGroups(text string) map[string]string {
	own := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			own[c] = parts[2]
		}
	}
	return own
}

// Hit says which limits the sandbox's processes ran into, as a report's
// note says it: "used more than 2 GiB of memory".
func (g *Group) Hit() []string {
	if g == nil {
		return nil
	}
	var hit []string
	events := "memory.oom_control"
	if g.v2() {
		events = "memory.events"
	}
	if eventCount(filepath.Join(g.folders[0], events), "oom_kill") > 0 {
		hit = append(hit, fmt.Sprintf("used more than %d GiB of memory", MemoryLimit>>30))
	}
	if eventCount(filepath.Join(g.folders[len(g.folders)-1], "pids.events"), "max") > 0 {
		hit = append(hit, fmt.Sprintf("started more than %d processes", ProcessLimit))
	}
	return hit
}

// eventCount reads the number after key in a file of "key N" lines; 0
// when there is none.
func eventCount(file, key string) int64 {
	data, _ := os.ReadFile(file)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == key {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// Remove kills what is left in the group and deletes its folders. A
// process the kernel is still ending keeps its folder busy a moment, so
// it tries for a few seconds.
func (g *Group) Remove() error {
	if g == nil {
		return nil
	}
	var err error
	for _, dir := range slices.Backward(g.folders) {
		for try := 0; ; try++ {
			killAll(dir)
			if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) || try == 300 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return err
}

// killAll kills every process in the cgroup folder dir: by cgroup.kill
// where the kernel has it.
func killAll(dir string) {
	if os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	for _, f := range strings.Fields(string(procs)) {
		if pid, err := strconv.Atoi(f); err == nil {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
	}
}

// Limit puts the sandbox's commands under the limits above: in a cgroup
// of their own where the system allows it (see NoCgroups), under the
// rlimits everywhere on Linux. Remove deletes the group.
func (s *Sandbox) Limit() {
	if runtime.GOOS != "linux" {
		return
	}
	s.limited = true
	if NoCgroups() == nil {
		s.Group, _ = NewGroup(fmt.Sprintf("ladder-%d-%s", os.Getpid(), filepath.Base(s.Dir)))
	}
}
