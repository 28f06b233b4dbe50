package timeline

import (
	"os/exec"
	"syscall"
)

// setParentDeath makes the kernel kill the child if the supervisor dies,
// so that go test's own time limit never leaves a test binary behind.
func setParentDeath(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
