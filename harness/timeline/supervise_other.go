//go:build !unix

package timeline

// Windows has no process groups to end: a process the learner's code
// starts outlives the tests there, and a supervisor that is killed leaves
// its child to end at its own -test.timeout. Neither changes a verdict.

// childRunning does not know, where the system does not say.
func childRunning(int) (running, known bool) { return false, false }

// fileIdentity does not know, where the system does not say.
func fileIdentity(int) string { return "" }
