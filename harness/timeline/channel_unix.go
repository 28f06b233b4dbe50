//go:build unix

package timeline

import (
	"os"
	"os/exec"
	"syscall"
)

// inheritEvents hands the write end of the events pipe to the child as a
// file descriptor past stdin, stdout and stderr, and returns its number.
func inheritEvents(cmd *exec.Cmd, w *os.File) (uint64, error) {
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	return uint64(2 + len(cmd.ExtraFiles)), nil
}

// closeOnExec keeps the events pipe out of the processes the tests start.
func closeOnExec(fd uintptr) bool {
	syscall.CloseOnExec(int(fd))
	return true
}
