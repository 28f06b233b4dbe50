package procgroup

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes the kernel kill cmd's process, not yet started, when
// the process that started it dies, so that no time limit on the parent
// leaves the child behind.
func DieWithParent(cmd *exec.Cmd) {
	attr(cmd).Pdeathsig = syscall.SIGKILL
}
