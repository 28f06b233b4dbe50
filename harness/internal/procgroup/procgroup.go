// Package procgroup ends a child process together with what it started,
// where the system allows it: on Unix the child leads a process group of
// its own, which one signal reaches whole; elsewhere Kill ends the child
// alone. It also reads the CPU time a process and what it started have
// used, by which the case runner tells a slow case from a busy machine.
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
// Linux's /proc, which reads each process's parent (the kernel may lack
// the list of a task's children); elsewhere pid alone.
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

// CPU returns the CPU time, user and system, that the processes of t
// still running have used, with what they have waited for; false where
// the system cannot tell. One that has ended is left out: its time is in
// its parent's, where the parent has waited for it.
func (t Tree) CPU() (time.Duration, bool) {
	var total time.Duration
	for _, p := range t {
		_, cpu := readStat(p)
		total += cpu
	}
	return total, runtime.GOOS == "linux"
}

// readStat reads a process's parent and its CPU time (utime + stime +
// cutime + cstime, in ticks of 1/100 s on every architecture) in Linux's
// /proc/PID/stat; 0 and 0 where it cannot. The command's name in
// parentheses may hold spaces and parentheses itself, so the fields are
// counted from the last ')'.
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
