//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
	"time"
)

// Own does nothing where there are no process groups.
func Own(*exec.Cmd) {}

// Kill kills p alone: there are no process groups here.
func Kill(p *os.Process) { p.Kill() }

// SelfCPU reports false here: the case runner then judges by the clock.
func SelfCPU() (time.Duration, bool) { return 0, false }
