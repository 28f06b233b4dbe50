//go:build !linux

package procgroup

import "os/exec"

// DieWithParent does nothing where the kernel offers no parent-death
// signal: the child then ends by its own time limit.
func DieWithParent(*exec.Cmd) {}
