package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// A Jail is bubblewrap as the class report runs it, found and checked once
// per report (see Sandbox for what it gives).
type Jail struct {
	bwrap  string   // the bwrap program
	goroot string   // the Go toolchain, bound read-only
	system []string // bwrap's arguments for /usr, /bin, /lib...: read-only binds or symlinks
}

// NoSandboxGivesUp says what --no-sandbox gives up, in the report's refusal
// and in its --help.
const NoSandboxGivesUp = `Without the sandbox, a student's code runs as your user: it can read and
write every file you can (your SSH keys, your other checkouts, the other
students' folders), reach the network, read your environment and your
processes' command lines through /proc, and leave processes running
(setsid) after the report. What is left: a temporary folder of its own as
HOME, TMPDIR and working folder, an environment built from nothing, and
a time limit that kills its process group.`

// FindJail finds bwrap and checks that it makes a sandbox here by running
// go version in one.
func FindJail() (*Jail, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("no sandbox on %s: the class report's sandbox is bubblewrap, which needs Linux", runtime.GOOS)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, errors.New("bwrap (bubblewrap) is not installed: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora); make class-report and make test-e2e install it when missing")
	}
	goroot := ToolchainRoot()
	if goroot == "" {
		return nil, errors.New("go env GOROOT names no toolchain")
	}
	j := &Jail{bwrap: bwrap, goroot: goroot, system: systemBinds()}
	tmp, err := os.MkdirTemp("", "ladder-jail-check-")
	if err != nil {
		return nil, err
	}
	defer RemoveAll(tmp)
	sb, err := New(tmp, "check", "", j)
	if err != nil {
		return nil, err
	}
	out, err := sb.Command(sb.Src, "go", "version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("bwrap cannot make a sandbox here (%v): %s(a container without user namespaces? an AppArmor or SELinux rule against them?)", err, grade.FirstLines(string(out), 5))
	}
	return j, nil
}

// ToolchainRoot is the GOROOT of the go command the ladder runs, or "".
var ToolchainRoot = sync.OnceValue(func() string {
	cmd := exec.Command(grade.GoTool(), "env", "GOROOT")
	cmd.Env = grade.LearnerEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

// systemBinds binds /usr read-only, and /bin, /sbin and /lib... as this
// system has them: a folder bound, or a symlink made again.
func systemBinds() []string {
	args := []string{"--ro-bind", "/usr", "/usr"}
	for _, p := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		info, err := os.Lstat(p)
		switch {
		case err != nil:
		case info.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(p); err == nil {
				args = append(args, "--symlink", target, p)
			}
		case info.IsDir():
			args = append(args, "--ro-bind", p, p)
		}
	}
	return args
}

// Args are bwrap's arguments for a command of s run in dir. Paths are the
// same inside as outside; later mounts go over earlier ones.
func (j *Jail) Args(s *Sandbox, dir string) []string {
	a := []string{
		"--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--hostname", "sandbox",
	}
	a = append(a, j.system...)
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
	if !Within(j.goroot, "/usr") {
		a = append(a, "--ro-bind", j.goroot, j.goroot)
	}
	if s.ModProxy != "" {
		a = append(a, "--ro-bind-try", s.outsideLink(linkModProxy, s.ModProxy), jailModProxy)
	}
	a = append(a, "--bind", s.Dir, s.Dir, "--ro-bind", s.Src, s.Src)
	if !Within(s.GoCache, s.Dir) {
		a = append(a, "--bind", s.GoCache, s.GoCache) // the warm-up's: the instructor's code only
	}
	if s.CacheBase != "" {
		// bwrap's command line shows in the sandbox: it names links, not their targets.
		a = append(a, "--ro-bind", s.outsideLink(linkCache, s.CacheBase), jailCacheBase, "--ro-bind", s.outsideLink(linkLayer, layerExecutable()), jailLayerProgram)
		for _, h := range s.CacheHidden {
			if info, err := os.Stat(filepath.Join(s.CacheBase, h)); err == nil && info.IsDir() {
				a = append(a, "--tmpfs", path.Join(jailCacheBase, filepath.ToSlash(h)))
			}
		}
	}
	return append(a, "--chdir", dir)
}

// Within reports whether path is dir or inside it.
func Within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// outsideLink returns a symbolic link to target beside the sandbox's
// folder, out of the sandbox's sight, to give bwrap in place of a path of
// the instructor's. An existing link is kept: its target never changes,
// and commands of one sandbox start at once.
func (s *Sandbox) outsideLink(name, target string) string {
	link := s.Dir + "." + name
	os.Symlink(target, link) // an error: it is there already
	return link
}

// The names of outsideLink's links, which Remove deletes.
const (
	linkCache    = "cache"
	linkLayer    = "ladder"
	linkModProxy = "modproxy"
)
