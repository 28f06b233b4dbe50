package timeline

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// passEvents hands the write end of the events pipe to the child. Windows
// passes no file descriptors beyond the standard three: the child inherits
// the pipe's handle instead, under the same number, which
// protocol.EventsEnv names.
func passEvents(cmd *exec.Cmd, w *os.File) error {
	h := syscall.Handle(w.Fd())
	if err := syscall.SetHandleInformation(h, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT); err != nil {
		return err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, h)
	cmd.Env = append(cmd.Env, protocol.EventsEnv+"="+strconv.FormatUint(uint64(h), 10))
	return nil
}

// closeOnExec keeps the events pipe out of the processes the tests start.
func closeOnExec(h uintptr) bool {
	return syscall.SetHandleInformation(syscall.Handle(h), syscall.HANDLE_FLAG_INHERIT, 0) == nil
}
