//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

// Own makes cmd, not yet started, the leader of a new process group,
// which the processes it starts join.
func Own(cmd *exec.Cmd) {
	attr(cmd).Setpgid = true
}

// Signal sends sig to every process left in the group that pid leads, and
// reports whether this system could (false for a signal that is not a
// system one).
func Signal(pid int, sig os.Signal) bool {
	s, ok := sig.(syscall.Signal)
	if ok {
		syscall.Kill(-pid, s)
	}
	return ok
}

// Kill kills every process left in the group that pid leads.
func Kill(pid int) bool { return Signal(pid, syscall.SIGKILL) }

// Term asks every process left in the group that pid leads to stop.
func Term(pid int) bool { return Signal(pid, syscall.SIGTERM) }

func attr(cmd *exec.Cmd) *syscall.SysProcAttr {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	return cmd.SysProcAttr
}
