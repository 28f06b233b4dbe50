package timeline

import (
	"os"
	"os/exec"
	"syscall"
)

// inheritEvents hands the write end of the events pipe to the child.
// Windows passes no file descriptors beyond the standard three: the child
// inherits the pipe's handle instead, under the same number, which it
// returns.
func inheritEvents(cmd *exec.Cmd, w *os.File) (uint64, error) {
	h := syscall.Handle(w.Fd())
	if err := syscall.SetHandleInformation(h, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT); err != nil {
		return 0, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, h)
	return uint64(h), nil
}

// closeOnExec keeps the events pipe out of the processes the tests start.
func closeOnExec(h uintptr) bool {
	return syscall.SetHandleInformation(syscall.Handle(h), syscall.HANDLE_FLAG_INHERIT, 0) == nil
}
