//go:build unix

package timeline

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
)

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
