//go:build unix

package sandbox

import (
	"syscall"
	"time"
)

// setRlimits lowers this process's rlimits to the limits per process.
func setRlimits() error {
	for _, l := range []struct {
		resource int
		max      uint64
	}{
		{syscall.RLIMIT_FSIZE, FileSizeLimit},
		{syscall.RLIMIT_NOFILE, OpenFilesLimit},
		{syscall.RLIMIT_CPU, uint64(CPUTimeLimit / time.Second)},
	} {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(l.resource, &r); err != nil {
			return err
		}
		r.Cur, r.Max = min(r.Cur, l.max), min(r.Max, l.max)
		if l.resource == syscall.RLIMIT_NOFILE {
			r.Cur = r.Max // Go raises it to the hard limit anyway
		}
		if err := syscall.Setrlimit(l.resource, &r); err != nil {
			return err
		}
	}
	return nil
}
