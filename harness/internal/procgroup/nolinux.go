//go:build !linux

package procgroup

import (
	"os/exec"
	"time"
)

// NewTree returns a Tree whose CPU reports false: only Linux shows other
// processes' CPU time here.
func NewTree(pid int) *Tree { return &Tree{pids: []int{pid}} }

func treeCPU([]int) (time.Duration, bool) { return 0, false }

// DieWithParent does nothing where the kernel has no parent-death signal:
// the child then ends by its own time limit.
func DieWithParent(*exec.Cmd) {}
