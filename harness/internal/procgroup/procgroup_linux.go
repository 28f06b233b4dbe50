package procgroup

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// DieWithParent makes the kernel kill cmd's process, not yet started, when
// the process that started it dies.
func DieWithParent(cmd *exec.Cmd) {
	attr(cmd).Pdeathsig = syscall.SIGKILL
}

// Linux counts CPU time in clock ticks of 1/100 s (USER_HZ), the same on
// every architecture Go runs on.
const tick = 10 * time.Millisecond

// NewTree returns pid and every process below it, found by one pass over
// /proc. The kernel here may lack the per-task list of children, so the
// pass reads each process's parent instead.
func NewTree(pid int) *Tree {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, ok := readStat(p); ok {
			children[f.ppid] = append(children[f.ppid], p)
		}
	}
	t := &Tree{pids: []int{pid}}
	for i := 0; i < len(t.pids); i++ { // t.pids grows as it is read: each process's children follow
		t.pids = append(t.pids, children[t.pids[i]]...)
	}
	return t
}

// treeCPU sums what the processes still running have used. One that has
// ended is left out: its time is in its parent's, where the parent has
// waited for it, and the caller's own once the caller has.
func treeCPU(pids []int) (time.Duration, bool) {
	var ticks int64
	for _, p := range pids {
		if f, ok := readStat(p); ok {
			ticks += f.ticks
		}
	}
	return time.Duration(ticks) * tick, true
}

// statFields are what NewTree and CPU read of /proc/PID/stat.
type statFields struct {
	ppid  int
	ticks int64 // utime + stime + cutime + cstime
}

// readStat reads /proc/PID/stat. Its second field, the command's name in
// parentheses, may hold spaces and parentheses itself, so the fields are
// counted from the last ')'.
func readStat(pid int) (statFields, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return statFields{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return statFields{}, false
	}
	// After ')': state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 15 {
		return statFields{}, false
	}
	var f statFields
	f.ppid, _ = strconv.Atoi(string(fields[1]))
	for _, s := range fields[11:15] {
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return statFields{}, false
		}
		f.ticks += n
	}
	return f, true
}
