//go:build !linux

package timeline

import "os/exec"

// setParentDeath does nothing where the kernel offers no parent-death
// signal; the child then ends with its own -test.timeout.
func setParentDeath(*exec.Cmd) {}
