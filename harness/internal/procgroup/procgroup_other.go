//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

// Own does nothing where there are no process groups.
func Own(*exec.Cmd) {}

// Signal reports false: there are no process groups here.
func Signal(int, os.Signal) bool { return false }

// Kill reports false: there are no process groups here.
func Kill(int) bool { return false }

// Term reports false: there are no process groups here.
func Term(int) bool { return false }
