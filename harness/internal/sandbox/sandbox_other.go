//go:build !unix

package sandbox

import "os/exec"

// newProcessGroup does nothing here: only Unix has process groups, so on
// this system a time limit stops the go command but not what it started.
func newProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the command itself, all this system allows for here.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// termGroup kills the command itself: there is no gentler way here.
func termGroup(cmd *exec.Cmd) { killGroup(cmd) }
