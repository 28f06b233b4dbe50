package procgroup

import "time"

// The case runner (harness/timeline) judges a case "too slow" by the CPU
// time it used, not only by the time that passed: on a machine busy with
// other work, a right answer waits for a CPU and takes longer by the
// clock, but not by the CPU time it spends. These read that time.

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
