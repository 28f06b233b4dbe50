package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// BenchmarkSandboxStart is what a sandbox costs each command the class
// report runs (a few go list and go test runs a student), measured on
// true, which does nothing:
//
//   - plain: no sandbox;
//   - clone: the kernel's namespaces straight from Go (SysProcAttr), with
//     no mount at all, the least any Go-made sandbox costs;
//   - clone+helper: the same, starting a Go binary first, as a Go-made
//     sandbox must to bind and remount folders between clone and exec
//     (this test binary stands for that helper);
//   - bwrap: the sandbox the report uses, every namespace and mount.
func BenchmarkSandboxStart(b *testing.B) {
	namespaces := func(cmd *exec.Cmd) *exec.Cmd {
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
			GidMappingsEnableSetgroups: false,
		}
		return cmd
	}
	cases := []struct {
		name string
		cmd  func() *exec.Cmd
	}{
		{"plain", func() *exec.Cmd { return exec.Command("true") }},
		{"clone", func() *exec.Cmd { return namespaces(exec.Command("true")) }},
		{"clone+helper", func() *exec.Cmd { return namespaces(exec.Command(os.Args[0], "-test.run=^$")) }},
		{"bwrap", func() *exec.Cmd {
			j, err := testJail()
			if err != nil {
				b.Skip(err)
			}
			sb, err := New(b.TempDir(), "s", "", j, false)
			if err != nil {
				b.Fatal(err)
			}
			return sb.Command(sb.Src, "true")
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				cmd := c.cmd()
				b.StartTimer()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
