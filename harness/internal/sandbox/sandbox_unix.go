//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// newProcessGroup makes cmd the leader of a new process group, which its
// children join, so that killGroup reaches all of them.
func newProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills every process left in cmd's group. The group outlives its
// leader while any member is alive, so this works after cmd has exited.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// termGroup asks every process in cmd's group to stop.
func termGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
