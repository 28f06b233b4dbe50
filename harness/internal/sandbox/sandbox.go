// Package sandbox runs a student's code for the class report: in a folder
// of its own, inside bubblewrap on Linux, under limits of memory,
// processes and CPU, and a time limit that ends all it started.
package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
)

// A Sandbox is where a student's code runs in a class report: a folder of
// its own and, on Linux, bubblewrap around every command (see jailArgs).
type Sandbox struct {
	Dir      string // the whole sandbox, removed by Remove
	Src      string // the grading copy: read-only inside the sandbox
	ModProxy string // the instructor's module downloads, the go command's file:// GOPROXY: nothing comes from the network
	Jail     *Jail  // bubblewrap around every command; nil (only with --no-sandbox) runs them plainly
	Group    Group  // the cgroup of the sandbox's commands, nil for none
	// The sandbox's HOME, TMPDIR, GOCACHE and GOMODCACHE.
	Home, Tmp, GoCache, GoModCache string
	cacheBase                      string // the warm build cache (see ShareCache)
	limited                        bool   // every command under the limits (see New)
}

// New makes a sandbox in a new folder under parent. A limited one runs its
// commands under the limits (on Linux), in a cgroup where it can.
func New(parent, name, modProxy string, j *Jail, limited bool) (*Sandbox, error) {
	dir := filepath.Join(parent, name)
	in := func(sub string) string { return filepath.Join(dir, sub) }
	s := &Sandbox{
		Dir: dir, Src: in("src"), Home: in("home"), Tmp: in("tmp"),
		GoCache: in("gocache"), GoModCache: in("gomodcache"), ModProxy: modProxy,
		Jail: j, limited: limited && runtime.GOOS == "linux",
	}
	for _, d := range []string{dir, s.Src, s.Home, s.Tmp, s.GoModCache} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	if s.limited {
		s.Group, _ = NewGroup(fmt.Sprintf("ladder-%d-%s", os.Getpid(), name))
	}
	return s, nil
}

// Env is the environment of the sandbox's code, built from nothing:
// -trimpath for caches shared between sandboxes, no downloads, no cgo (no
// C compiler runs), no DWARF (links faster).
func (s *Sandbox) Env() []string {
	proxy := s.ModProxy
	if s.Jail != nil && proxy != "" {
		proxy = jailModProxy
	}
	return []string{"PATH=" + filepath.Join(ToolchainRoot(), "bin") + string(filepath.ListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		"GOROOT=" + ToolchainRoot(), "HOME=" + s.Home, "TMPDIR=" + s.Tmp, "GOCACHE=" + s.GoCache, "GOMODCACHE=" + s.GoModCache,
		"GOPATH=" + filepath.Join(s.Home, "go"), "GOENV=off", "GOFLAGS=-mod=readonly -trimpath -buildvcs=false -ldflags=-w",
		"GOPROXY=file://" + filepath.ToSlash(proxy), "GOSUMDB=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0", grade.QuickRaceExit}
}

// Command is a command to run in the sandbox, in dir, inside the jail and
// limitsScript when there are. Run it with RunLimited.
func (s *Sandbox) Command(dir, name string, args ...string) *exec.Cmd {
	argv := append([]string{name}, args...)
	if s.Jail != nil {
		argv = append(s.jailArgs(dir), argv...)
	}
	if s.limited {
		argv = slices.Concat([]string{"/bin/sh", "-c", limitsScript, "sh"}, s.Group, []string{"--"}, argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, s.Env()
	if slices.Contains(args, "-race") || slices.Contains(args, "-race=true") {
		// -race needs cgo; only the runtime's C builds (see the instructor's foreignCode).
		cmd.Env[slices.Index(cmd.Env, "CGO_ENABLED=0")] = "CGO_ENABLED=1"
	}
	return cmd
}

// Remove deletes the sandbox, its links and its cgroup.
func (s *Sandbox) Remove() error {
	return cmp.Or(RemoveAll(s.Dir), os.RemoveAll(s.Dir+".links"), s.Group.Remove())
}

// RemoveAll is os.RemoveAll that deletes read-only folders (a module cache's) too.
func RemoveAll(dir string) error {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// RunLimited runs cmd in a process group, killed when limit passes, ctx
// ends or cmd exits; nil outputs become buffers. It reports whether the
// limit or ctx stopped the command.
func RunLimited(ctx context.Context, limit time.Duration, cmd *exec.Cmd) (stopped bool, err error) {
	cmd.Stdout = cmp.Or[io.Writer](cmd.Stdout, new(bytes.Buffer))
	cmd.Stderr = cmp.Or[io.Writer](cmd.Stderr, new(bytes.Buffer))
	procgroup.Own(cmd)
	cmd.WaitDelay = time.Second // for output after the command exits
	if err := cmd.Start(); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// A stopped run counts for nothing: its group gets no grace.
	stop := context.AfterFunc(ctx, func() { procgroup.Kill(cmd.Process) })
	err = cmd.Wait()
	stop()
	procgroup.Kill(cmd.Process)
	if ctx.Err() != nil || errors.Is(err, exec.ErrWaitDelay) {
		err = nil // stopped, or it succeeded and what it left behind is killed
	}
	return ctx.Err() != nil, err
}

// A Jail is the bwrap program, found and checked once per report.
type Jail string

// NoSandboxGivesUp says what --no-sandbox gives up.
const NoSandboxGivesUp = `Without the sandbox, a student's code runs as your user: it can read and
write every file you can (your SSH keys, the other students' folders),
reach the network, read your processes' environments, and leave processes
running (setsid) after the report. What is left: a folder of its own, an
environment built from nothing, and a time limit on its process group.`

// FindJail finds bwrap and checks that go version runs in a jail here.
func FindJail() (*Jail, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("no sandbox on %s: the class report's sandbox is bubblewrap, which needs Linux", runtime.GOOS)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, errors.New("bwrap (bubblewrap) is not installed: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora); make class-report and make test-e2e install it when missing")
	}
	j, tmp := Jail(bwrap), os.TempDir()
	sb := &Sandbox{Dir: tmp, Src: tmp, Home: tmp, GoCache: tmp, Jail: &j}
	if out, err := sb.Command(tmp, "go", "version").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bwrap cannot make a sandbox here (%v): %s(a container without user namespaces? an AppArmor or SELinux rule against them?)", err, grade.FirstLines(string(out), 5))
	}
	return &j, nil
}

// ToolchainRoot is the GOROOT of the go command the ladder runs, or "".
var ToolchainRoot = sync.OnceValue(func() string {
	out, _ := grade.Plain.Command(context.Background(), "", "env", "GOROOT").Output()
	return strings.TrimSpace(string(out))
})

// Where a jail mounts the warm build cache and the module downloads, so
// that nothing a student's code can read names the instructor's folders.
const (
	jailCacheBase = "/ladder/cache"
	jailModProxy  = "/ladder/modproxy"
)

// jailArgs runs a command in dir in bwrap: new namespaces, whose every
// process dies with the first; the system, toolchain, module downloads and
// grading copy read-only; only the sandbox's folder and /tmp writable.
// Paths are the same inside as outside; later mounts go over earlier ones.
func (s *Sandbox) jailArgs(dir string) []string {
	a := []string{string(*s.Jail), "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "sandbox"}
	for _, p := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		a = append(a, "--ro-bind-try", p, p)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", ToolchainRoot(), ToolchainRoot())
	// bwrap's command line, seen inside, names links, not the instructor's folders.
	if s.ModProxy != "" {
		a = append(a, "--ro-bind-try", s.outsideLink("modproxy", s.ModProxy), jailModProxy)
	}
	a = append(a, "--bind", s.Dir, s.Dir, "--ro-bind", s.Src, s.Src)
	if !Within(s.GoCache, s.Dir) {
		a = append(a, "--bind", s.GoCache, s.GoCache) // the warm-up's: the instructor's code only
	}
	if s.cacheBase != "" {
		a = append(a, "--ro-bind", s.outsideLink("cache", s.cacheBase), jailCacheBase)
	}
	return append(a, "--chdir", dir, "--")
}

// Within reports whether path is dir or inside it.
func Within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// outsideLink returns a symbolic link to target in a folder beside the
// sandbox's, out of its sight, made once.
func (s *Sandbox) outsideLink(name, target string) string {
	link := filepath.Join(s.Dir+".links", name)
	os.Mkdir(filepath.Dir(link), 0o700)
	os.Symlink(target, link) // an error: it is there already
	return link
}

// ShareCache gives the sandbox the warm build cache base without a copy
// (366 MiB): links to its outputs, mounted read-only, and copies of its
// action entries (a line each), which the go command may rewrite.
func (s *Sandbox) ShareCache(base string) {
	s.cacheBase = base
	target := base
	if s.Jail != nil {
		target = jailCacheBase
	}
	dirs, _ := filepath.Glob(filepath.Join(base, "[0-9a-f][0-9a-f]"))
	for _, dir := range dirs {
		sub := filepath.Base(dir)
		entries, _ := os.ReadDir(dir)
		os.MkdirAll(filepath.Join(s.GoCache, sub), 0o700)
		for _, e := range entries {
			own := filepath.Join(s.GoCache, sub, e.Name())
			if !strings.HasSuffix(e.Name(), "-a") {
				os.Symlink(filepath.Join(target, sub, e.Name()), own)
			} else if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				os.WriteFile(own, data, 0o600)
			}
		}
	}
	// A trim now would delete the links to entries not used for days.
	os.WriteFile(filepath.Join(s.GoCache, "trim.txt"), []byte(strconv.FormatInt(time.Now().Unix(), 10)), 0o600)
}

// A sandbox's limits, as INSTRUCTORS.md has them: memory and processes in
// all (a cgroup), the rest per process. No RLIMIT_AS: -race reserves TiBs.
const (
	MemoryLimit    = 2 << 30          // the memory of a student's whole sandbox
	ProcessLimit   = 256              // how many processes and threads a sandbox may run at once
	FileSizeLimit  = 1 << 30          // the largest file a process may write (RLIMIT_FSIZE)
	OpenFilesLimit = 4096             // how many files one process may hold open (RLIMIT_NOFILE)
	CPUTimeLimit   = 10 * time.Minute // the CPU time one process may use (RLIMIT_CPU)
)

// limitsScript enters the folders before "--", lowers the rlimits (ulimit
// -f counts 512-byte blocks) and runs the command.
var limitsScript = fmt.Sprintf(`while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 126; shift; done; shift
lower() { h=$(ulimit -H -$1) || exit 126; if [ "$h" = unlimited ] || [ "$h" -gt $2 ]; then h=$2; fi; ulimit -$1 "$h" || exit 126; }
lower f %d; lower n %d; lower t %d
exec "$@"`, FileSizeLimit/512, OpenFilesLimit, int(CPUTimeLimit/time.Second))

// A Group is the cgroup of a sandbox: memory's folder, then pids' on v1
// (v2 has one for both). Only the files' places differ.
type Group []string

// NoCgroups says why no group can be made here, or is nil.
var NoCgroups = sync.OnceValue(func() error {
	g, err := NewGroup(fmt.Sprintf("ladder-%d-check", os.Getpid()))
	if err == nil {
		err = g.Remove()
	}
	return err
})

// NewGroup makes the group name, with its limits, below this process's
// own: on cgroup v2 where the system has it, else v1.
func NewGroup(name string) (Group, error) {
	self, err := os.ReadFile("/proc/self/cgroup") // "ID:controllers:group" lines, v2's with no controller
	if err != nil {
		return nil, fmt.Errorf("no cgroups: %v", err)
	}
	own := map[string]string{}
	for line := range strings.Lines(string(self)) {
		if f := strings.SplitN(strings.TrimSpace(line), ":", 3); len(f) == 3 {
			for _, c := range strings.Split(f[1], ",") {
				own[c] = f[2]
			}
		}
	}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return newGroup(Group{filepath.Join("/sys/fs/cgroup", own[""], name)})
	}
	if own["memory"] == "" || own["pids"] == "" {
		return nil, errors.New("neither cgroup v2 nor the memory and pids controllers of cgroup v1")
	}
	return newGroup(Group{filepath.Join("/sys/fs/cgroup", "memory", own["memory"], name), filepath.Join("/sys/fs/cgroup", "pids", own["pids"], name)})
}

// cgroupFiles are the memory limit and events files, by folder count.
var cgroupFiles = map[int][2]string{1: {"memory.max", "memory.events"}, 2: {"memory.limit_in_bytes", "memory.oom_control"}}

// newGroup makes g's folders and writes their limits, or removes them.
func newGroup(g Group) (Group, error) {
	parent := filepath.Join(filepath.Dir(g[0]), "cgroup.subtree_control")
	if sub, _ := os.ReadFile(parent); len(g) == 1 && (!bytes.Contains(sub, []byte("memory")) || !bytes.Contains(sub, []byte("pids"))) {
		// A group with processes of its own cannot: rlimits only then.
		if err := os.WriteFile(parent, []byte("+memory +pids"), 0); err != nil {
			return nil, fmt.Errorf("cgroup v2 without the memory and pids controllers for this process's groups: %v", err)
		}
	}
	var err error
	for _, dir := range g {
		err = cmp.Or(err, os.Mkdir(dir, 0o755))
	}
	if err == nil {
		err = cmp.Or(os.WriteFile(filepath.Join(g[0], cgroupFiles[len(g)][0]), []byte(strconv.Itoa(MemoryLimit)), 0),
			os.WriteFile(filepath.Join(g[len(g)-1], "pids.max"), []byte(strconv.Itoa(ProcessLimit)), 0))
	}
	if err != nil {
		g.Remove()
		return nil, err
	}
	if len(g) == 1 {
		os.WriteFile(filepath.Join(g[0], "memory.swap.max"), []byte("0"), 0) // absent without swap accounting
	}
	return g, nil
}

// Hit says which limits were hit: "used more than 2 GiB of memory".
func (g Group) Hit() []string {
	if len(g) == 0 {
		return nil
	}
	var hit []string
	for _, e := range []struct{ file, key, note string }{
		{filepath.Join(g[0], cgroupFiles[len(g)][1]), "oom_kill", fmt.Sprintf("used more than %d GiB of memory", MemoryLimit>>30)},
		{filepath.Join(g[len(g)-1], "pids.events"), "max", fmt.Sprintf("started more than %d processes", ProcessLimit)},
	} {
		data, _ := os.ReadFile(e.file) // "key N" lines
		for line := range strings.Lines(string(data)) {
			if f := strings.Fields(line); len(f) == 2 && f[0] == e.key && f[1] != "0" {
				hit = append(hit, e.note)
			}
		}
	}
	return hit
}

// Remove deletes the folders, for a few seconds while an ending process
// holds one. The jail's processes have ended with its first; without a
// jail, cgroup v2 kills a setsid daemon still in the group (on v1 it may
// outlive it: NoSandboxGivesUp).
func (g Group) Remove() error {
	var err error
	for _, dir := range slices.Backward(g) {
		for try := 0; ; try++ {
			os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) // absent on v1 and old kernels
			if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) || try == 300 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return err
}
