//go:build !unix

package procgroup

import (
	"os/exec"
	"time"
)

// Own does nothing where there are no process groups.
func Own(*exec.Cmd) {}

// Kill reports false: there are no process groups here.
func Kill(int) bool { return false }

// Term reports false: there are no process groups here.
func Term(int) bool { return false }

// SelfCPU reports false here: the case runner then judges by the clock.
func SelfCPU() (time.Duration, bool) { return 0, false }
