// Package procgroup ends a child process together with what it started,
// where the system allows it: on Unix the child leads a process group of
// its own, which one signal reaches whole; on Linux the kernel also kills
// the child when its parent dies. Elsewhere Own and DieWithParent do
// nothing, and Kill and Term report false, for the caller to end the child
// alone. It also reads the CPU time a process and what it started have
// used, by which the case runner tells a slow case from a busy machine.
package procgroup

import "time"

// Tree is a set of processes whose CPU time is read together: a child
// and what it started. Make one with NewTree once the child runs.
type Tree struct {
	pids []int
}

// CPU returns the CPU time, user and system, of the processes in t, with
// what they have waited for; false where the system cannot tell.
func (t *Tree) CPU() (time.Duration, bool) {
	if t == nil {
		return 0, false
	}
	return treeCPU(t.pids)
}
