package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// A checker and the student's child answer each other call by call, a
// few hundred thousand times for some levels, and a wake-up across two
// CPUs costs about twice one on the same CPU (BenchmarkCall in
// harness/remote). So each checker and its child run on the CPU of their
// grading slot; without taskset or the list of allowed CPUs, they run
// where the system puts them, slower, with the same verdicts.

// PinnedTo returns cmd, made to run on the CPU of grading slot slot, with
// every process it starts.
func PinnedTo(slot int, cmd *exec.Cmd) *exec.Cmd {
	cpus := allowedCPUs()
	if slot < 0 || len(cpus) < 2 {
		return cmd
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		return cmd
	}
	pinned := exec.Command(taskset, append([]string{"--cpu-list", strconv.Itoa(cpus[slot%len(cpus)]), cmd.Path}, cmd.Args[1:]...)...)
	pinned.Dir, pinned.Env = cmd.Dir, cmd.Env
	pinned.Stdin, pinned.Stdout, pinned.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	return pinned
}

// allowedCPUs lists the CPUs this process may run on, from Linux's
// /proc/self/status; nil elsewhere.
func allowedCPUs() []int {
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if list, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return cpuList(strings.TrimSpace(list))
		}
	}
	return nil
}

// cpuList reads Linux's list format, such as "0-3,8,10-11"; nil for
// anything else.
func cpuList(s string) []int {
	var cpus []int
	for _, r := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || b < a {
			return nil
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
