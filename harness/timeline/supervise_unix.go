//go:build unix

package timeline

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

// setOwnGroup starts the child in a process group of its own, so that
// everything it starts can be ended with it.
func setOwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup ends every process left in the child's group. The child has
// been waited for; its process ID stays taken while its group has members.
func killGroup(pid int) {
	syscall.Kill(-pid, syscall.SIGKILL)
}

// signalGroup passes a signal the parent received on to the child's group.
func signalGroup(pid int, sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(-pid, s)
	}
}

// childRunning reports whether the child still holds open files, which it
// does until it exits; known is false where the system does not say.
func childRunning(pid int) (running, known bool) {
	if runtime.GOOS != "linux" {
		return false, false
	}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		if _, err := os.Stat("/proc/self/fd"); err != nil {
			return false, false // no /proc
		}
		return false, true // gone, or exiting
	}
	return len(fds) > 0, true
}

// fileIdentity names the file behind a file descriptor, or is "" if the
// descriptor is closed.
func fileIdentity(fd int) string {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return ""
	}
	return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
}
