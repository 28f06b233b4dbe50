// Package procgroup ends a child process together with what it started,
// where the system allows it: on Unix the child leads a process group of
// its own, which one signal reaches whole; elsewhere Kill ends the child
// alone. It also reads the CPU time a process and what it started
// have used, by which the case runner tells a slow case from a busy
// machine.
package procgroup

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"time"
)

// A Tree is a child and the processes below it, whose CPU time is read
// together. Make one with NewTree once the child runs.
type Tree []int

// NewTree returns pid and every process below it, found by one pass over
// Linux's /proc (the kernel here may lack the per-task list of children,
// so the pass reads each process's parent); elsewhere pid alone.
func NewTree(pid int) Tree {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			if ppid, _, ok := readStat(p); ok {
				children[ppid] = append(children[ppid], p)
			}
		}
	}
	t := Tree{pid}
	for i := 0; i < len(t); i++ { // t grows as it is read: each process's children follow
		t = append(t, children[t[i]]...)
	}
	return t
}

// CPU returns the CPU time, user and system, that the processes of t
// still running have used, with what they have waited for; false where
// the system cannot tell. One that has ended is left out: its time is in
// its parent's, where the parent has waited for it.
func (t Tree) CPU() (time.Duration, bool) {
	var total int64
	for _, p := range t {
		_, ticks, _ := readStat(p)
		total += ticks
	}
	return time.Duration(total) * tick, runtime.GOOS == "linux"
}

// Linux counts CPU time in clock ticks of 1/100 s (USER_HZ), the same on
// every architecture Go runs on.
const tick = 10 * time.Millisecond

// readStat reads a process's parent and its CPU ticks (utime + stime +
// cutime + cstime) in Linux's /proc/PID/stat. Its second field, the
// command's name in parentheses, may hold spaces and parentheses itself,
// so the fields are counted from the last ')'.
func readStat(pid int) (ppid int, ticks int64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	// After ')': state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
	if fields := bytes.Fields(b[i+1:]); err == nil && i >= 0 && len(fields) >= 15 {
		ppid, _ = strconv.Atoi(string(fields[1]))
		for _, s := range fields[11:15] {
			n, _ := strconv.ParseInt(string(s), 10, 64)
			ticks += n
		}
		return ppid, ticks, true
	}
	return 0, 0, false
}
