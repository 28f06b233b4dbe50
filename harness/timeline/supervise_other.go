//go:build !unix

package timeline

import (
	"os"
	"os/exec"
)

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

// closeOnExec does nothing: without a supervisor there is no events pipe.
func closeOnExec(int) {}
