//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Own makes cmd, not yet started, lead a process group of its own.
func Own(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Kill kills every process left in the group that p leads.
func Kill(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }

// SelfCPU returns the CPU time this process and its waited children used.
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
