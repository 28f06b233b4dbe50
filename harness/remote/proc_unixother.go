//go:build unix && !linux

package remote

import "syscall"

func deathSignal(*syscall.SysProcAttr) {}
