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

// limitsScript wraps a limited sandbox's command: it enters each
// cgroup.procs file before "--", lowers its rlimits (never raising a hard
// one; ulimit -f counts 512-byte blocks) and executes the command. A
// wrapper, since Go cannot run code between fork and exec, and cgroup v1
// cannot start a process inside a group.
var limitsScript = fmt.Sprintf(`while [ "$1" != -- ]; do echo $$ > "$1" || exit 126; shift; done; shift
lower() { h=$(ulimit -H -$1) || exit 126; if [ "$h" = unlimited ] || [ "$h" -gt $2 ]; then h=$2; fi; ulimit -$1 "$h" || exit 126; }
lower f %d; lower n %d; lower t %d
exec "$@"`, FileSizeLimit/512, OpenFilesLimit, int(CPUTimeLimit/time.Second))

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
		return newGroup(filepath.Join(cgroupRoot, own[""], name))
	}
	if own["memory"] == "" || own["pids"] == "" {
		return nil, errors.New("neither cgroup v2 nor the memory and pids controllers of cgroup v1")
	}
	return newGroup(filepath.Join(cgroupRoot, "memory", own["memory"], name), filepath.Join(cgroupRoot, "pids", own["pids"], name))
}

// ownGroups reads /proc/self/cgroup: each v1 controller's group, and the
// v2 group under "".
func ownGroups(text string) map[string]string {
	own := map[string]string{}
	for line := range strings.Lines(text) {
		if parts := strings.SplitN(strings.TrimSpace(line), ":", 3); len(parts) == 3 {
			for _, c := range strings.Split(parts[1], ",") {
				own[c] = parts[2]
			}
		}
	}
	return own
}

// cgroupFiles are the memory controller's files, limit and events, on
// cgroup v1 and v2 (a v2 group has one folder).
var cgroupFiles = map[bool][2]string{false: {"memory.limit_in_bytes", "memory.oom_control"}, true: {"memory.max", "memory.events"}}

// newGroup makes the group's folders, one on cgroup v2, whose parent must
// give it the memory and pids controllers, or a memory and a pids folder
// on v1, and writes their limits; it removes what it made when one step
// fails.
func newGroup(folders ...string) (*Group, error) {
	parent := filepath.Join(filepath.Dir(folders[0]), "cgroup.subtree_control")
	if sub, _ := os.ReadFile(parent); len(folders) == 1 && (!strings.Contains(string(sub), "memory") || !strings.Contains(string(sub), "pids")) {
		// A group with processes of its own cannot give its controllers
		// away: this then fails, and there are rlimits only.
		if err := os.WriteFile(parent, []byte("+memory +pids"), 0); err != nil {
			return nil, fmt.Errorf("cgroup v2 without the memory and pids controllers for this process's groups: %v", err)
		}
	}
	g := &Group{}
	var err error
	for _, dir := range folders {
		if err = os.Mkdir(dir, 0o755); err != nil {
			break
		}
		g.folders = append(g.folders, dir)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(folders[0], cgroupFiles[len(folders) == 1][0]), []byte(strconv.Itoa(MemoryLimit)), 0)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(folders[len(folders)-1], "pids.max"), []byte(strconv.Itoa(ProcessLimit)), 0)
	}
	if err != nil {
		g.Remove()
		return nil, err
	}
	if g.v2() {
		os.WriteFile(filepath.Join(folders[0], "memory.swap.max"), []byte("0"), 0) // absent without swap accounting
	}
	return g, nil
}

// v2 reports whether g is a cgroup v2 group: one folder.
func (g *Group) v2() bool { return len(g.folders) == 1 }

// Hit says which limits the sandbox's processes ran into, as a report's
// note says it: "used more than 2 GiB of memory".
func (g *Group) Hit() []string {
	if g == nil {
		return nil
	}
	var hit []string
	for _, e := range []struct{ file, key, note string }{
		{filepath.Join(g.folders[0], cgroupFiles[g.v2()][1]), "oom_kill", fmt.Sprintf("used more than %d GiB of memory", MemoryLimit>>30)},
		{filepath.Join(g.folders[len(g.folders)-1], "pids.events"), "max", fmt.Sprintf("started more than %d processes", ProcessLimit)},
	} {
		data, _ := os.ReadFile(e.file) // "key N" lines
		for line := range strings.Lines(string(data)) {
			if f := strings.Fields(line); len(f) == 2 && f[0] == e.key && f[1] != "0" {
				hit = append(hit, e.note)
			}
		}
	}
	return hit
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
			// cgroup.kill where the kernel has it, else each process.
			if os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) != nil {
				procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
				for _, f := range strings.Fields(string(procs)) {
					if pid, err := strconv.Atoi(f); err == nil {
						if p, err := os.FindProcess(pid); err == nil {
							p.Kill()
						}
					}
				}
			}
			if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) || try == 300 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return err
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

// A checker and the student's child answer each other call by call, a
// few hundred thousand times for some levels, and a wake-up across two
// CPUs costs about twice one on the same CPU (BenchmarkCall in
// harness/remote). So each checker and its child run on the CPU of their
// grading slot; without taskset or the list of allowed CPUs, they run
// where the system puts them, slower, with the same verdicts.

// PinnedTo returns cmd, made to run on the CPU of grading slot slot, with
// every process it starts.
func PinnedTo(slot int, cmd *exec.Cmd) *exec.Cmd {
	status, _ := os.ReadFile("/proc/self/status") // Linux's; elsewhere no CPUs
	_, list, _ := strings.Cut(string(status), "Cpus_allowed_list:")
	list, _, _ = strings.Cut(list, "\n")
	cpus := cpuList(strings.TrimSpace(list))
	taskset, err := exec.LookPath("taskset")
	if slot < 0 || len(cpus) < 2 || err != nil {
		return cmd
	}
	pinned := exec.Command(taskset, append([]string{"--cpu-list", strconv.Itoa(cpus[slot%len(cpus)]), cmd.Path}, cmd.Args[1:]...)...)
	pinned.Dir, pinned.Env = cmd.Dir, cmd.Env
	pinned.Stdin, pinned.Stdout, pinned.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	return pinned
}

// cpuList reads Linux's list format, such as "0-3,8,10-11"; nil for
// anything else.
func cpuList(s string) []int {
	var cpus []int
	for _, r := range strings.Split(s, ",") {
		var lo, hi int
		switch n, _ := fmt.Sscanf(r, "%d-%d", &lo, &hi); {
		case n == 1:
			hi = lo
		case n == 0 || hi < lo:
			return nil
		}
		for c := lo; c <= hi; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
