//go:build unix

package remote

import (
	"os/exec"
	"syscall"
)

// ownGroup leaves the child in the checker's process group, so that
// whatever stops the checker's group (the report's time limit) stops the
// child and what it started too; on Linux the child also dies with the
// checker.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	deathSignal(cmd.SysProcAttr)
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
