// Package procgroup ends a child with what it started (on Unix, as a
// process group), and reads the CPU time a process tree has used, by which
// the case runner tells a slow case from a busy machine.
package procgroup

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"time"
)

// A Tree is a child and the processes below it (see NewTree).
type Tree []int

// NewTree returns pid and every process below it, by their parents in
// Linux's /proc (a kernel may lack the lists of children); elsewhere pid.
func NewTree(pid int) Tree {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			ppid, _ := readStat(p)
			children[ppid] = append(children[ppid], p)
		}
	}
	t := Tree{pid}
	for i := 0; i < len(t); i++ { // t grows as it is read: each process's children follow
		t = append(t, children[t[i]]...)
	}
	return t
}

// CPU returns the CPU time the processes of t still running have used,
// with what they have waited for (an ended one's time is its parent's);
// false where the system cannot tell.
func (t Tree) CPU() (time.Duration, bool) {
	var total time.Duration
	for _, p := range t {
		_, cpu := readStat(p)
		total += cpu
	}
	return total, runtime.GOOS == "linux"
}

// readStat reads a process's parent and CPU time (utime to cstime, ticks of
// 10ms) in /proc/PID/stat, or zeros; fields count from the last ')'.
func readStat(pid int) (ppid int, cpu time.Duration) {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	// After ')': state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
	if fields := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:]); len(fields) >= 15 {
		ppid, _ = strconv.Atoi(string(fields[1]))
		for _, s := range fields[11:15] {
			n, _ := strconv.ParseInt(string(s), 10, 64)
			cpu += time.Duration(n) * 10 * time.Millisecond
		}
	}
	return ppid, cpu
}
