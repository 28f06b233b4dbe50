//go:build !unix && !windows

package timeline

import (
	"errors"
	"os"
	"os/exec"
)

// inheritEvents fails: this system has no way to hand a pipe to a child,
// so the tests run unsupervised, and the ladder command says "not
// verified".
func inheritEvents(*exec.Cmd, *os.File) (uint64, error) {
	return 0, errors.New("this system cannot hand a pipe to a child process")
}

// closeOnExec refuses: there is no events pipe to open here.
func closeOnExec(uintptr) bool { return false }
