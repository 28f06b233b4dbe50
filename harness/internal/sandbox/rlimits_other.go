//go:build !unix

package sandbox

import (
	"errors"
	"runtime"
)

// setRlimits fails: only Unix has rlimits, and the sandbox is Linux's.
func setRlimits() error { return errors.New("no rlimits on " + runtime.GOOS) }
