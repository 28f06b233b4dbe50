//go:build unix

package procgroup

import (
	"syscall"
	"time"
)

// SelfCPU returns the CPU time, user and system, that this process and
// the children it has waited for have used.
func SelfCPU() (time.Duration, bool) {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			return 0, false
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total, true
}
