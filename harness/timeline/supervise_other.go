//go:build !unix

package timeline

import (
	"os"
	"os/exec"
)

// Windows has no process groups to end: a process the learner's code
// starts outlives the tests there, and a supervisor that is killed leaves
// its child to end at its own -test.timeout. Neither changes a verdict.

// setOwnGroup does nothing where there are no process groups.
func setOwnGroup(*exec.Cmd) {}

// killGroup does nothing where there are no process groups.
func killGroup(int) {}

// signalGroup does nothing where there are no process groups.
func signalGroup(int, os.Signal) {}

// childRunning does not know, where the system does not say.
func childRunning(int) (running, known bool) { return false, false }

// fileIdentity does not know, where the system does not say.
func fileIdentity(int) string { return "" }
