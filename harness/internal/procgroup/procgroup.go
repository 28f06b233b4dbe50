// Package procgroup ends a child process together with what it started,
// where the system allows it. On Unix the child leads a process group of
// its own, which one signal reaches whole, even after the child has exited
// while a process it started lives on; on Linux the kernel also kills the
// child when its parent dies. Elsewhere there are no process groups: Own
// and DieWithParent do nothing, and Signal, Kill and Term report false, for
// the caller to end the child alone.
//
// It also reads the CPU time a process and what it started have used
// (SelfCPU, Tree), by which the case runner tells a slow case from a
// machine busy with other work (see cpu.go).
//
// The grader's go test runs (harness/internal/grade), the class report's
// sandbox and its checker's child all use it.
package procgroup
