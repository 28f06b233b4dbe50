//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
	"time"
)

// Own makes cmd, not yet started, the leader of a new process group,
// which the processes it starts join.
func Own(cmd *exec.Cmd) {
	attr(cmd).Setpgid = true
}

// Kill kills every process left in the group that pid leads.
func Kill(pid int) bool { return signal(pid, syscall.SIGKILL) }

// Term asks every process left in the group that pid leads to stop.
func Term(pid int) bool { return signal(pid, syscall.SIGTERM) }

// signal sends sig to the group pid leads, and reports true: Unix has
// process groups.
func signal(pid int, sig syscall.Signal) bool {
	syscall.Kill(-pid, sig)
	return true
}

func attr(cmd *exec.Cmd) *syscall.SysProcAttr {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	return cmd.SysProcAttr
}

// SelfCPU returns the CPU time, user and system, that this process and
// the children it has waited for have used.
func SelfCPU() (time.Duration, bool) {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			return 0, false
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total, true
}
