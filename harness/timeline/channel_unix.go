//go:build unix

package timeline

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// passEvents hands the write end of the events pipe to the child, as a
// file descriptor past stdin, stdout and stderr, and names it in
// protocol.EventsEnv.
func passEvents(cmd *exec.Cmd, w *os.File) error {
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	fd := 2 + len(cmd.ExtraFiles)
	cmd.Env = append(cmd.Env, protocol.EventsEnv+"="+strconv.Itoa(fd))
	return nil
}

// closeOnExec keeps the events pipe out of the processes the tests start.
func closeOnExec(fd uintptr) bool {
	syscall.CloseOnExec(int(fd))
	return true
}
