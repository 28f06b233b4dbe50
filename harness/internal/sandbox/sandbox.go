// Package sandbox runs a student's code for the class report: in a folder
// of its own with an environment built from nothing, inside bubblewrap on
// Linux (see Sandbox), under a time limit that ends every process the
// command started (RunLimited).
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
)

// A sandbox is where a student's code runs in a class report: a folder of
// its own, and, on Linux, bubblewrap (bwrap) around every command. Inside:
//
//   - new user, PID, network, IPC and UTS namespaces, and a mount
//     namespace whose root is empty but for what is bound into it;
//   - read-only: /usr (and /bin, /lib... as the system has them), the Go
//     toolchain (GOROOT), the instructor's module download cache, and the
//     grading copy (Src: the student's code and the instructor's tests);
//   - writable: the sandbox's own folder (HOME, TMPDIR, Go caches), and a
//     /tmp of its own in memory; nothing else of the machine is there;
//   - no network (a loopback of its own), no capabilities;
//   - /proc of its own PID namespace: only the sandbox's processes;
//   - an environment built from nothing (see Env);
//   - when the command ends, or when runLimited kills bwrap at the time
//     limit, the namespace's first process dies and the kernel kills every
//     other process in it, setsid daemons included.
//
// Why bwrap rather than the kernel's namespaces straight from Go
// (SysProcAttr.Cloneflags and UidMappings): Go can create the namespaces,
// but it cannot run code between clone and exec, so the bind mounts, the
// read-only remounts, /proc and pivot_root would need a helper process of
// our own (the ladder re-executing itself as an init), a few hundred lines
// of security code to get right. bwrap is that helper, small, audited and
// packaged (Debian's bubblewrap), and it costs about as little: see
// BenchmarkSandboxStart, and INSTRUCTORS.md for the numbers.
//
// Where there is no bwrap that works (macOS, Windows, a container without
// user namespaces), jail is nil: only with --no-sandbox, and then the code
// runs as the instructor's user with the folder, the environment and the
// process-group kill alone (noSandboxGivesUp).
type Sandbox struct {
	Dir        string // the whole sandbox, removed by Remove
	Src        string // the grading copy: read-only inside the sandbox
	Home       string
	Tmp        string
	GoCache    string
	GoModCache string
	// ModProxy is the instructor's module download cache, served to the go
	// command as a file:// GOPROXY, so that modules are unpacked into the
	// Sandbox's own GOMODCACHE and nothing is fetched from the network.
	ModProxy string
	// Jail runs commands inside bubblewrap; nil runs them plainly.
	Jail *Jail
	// CacheBase, when set, is a build cache the sandbox's go command reads
	// and never writes: the report's warm cache, read through the ladder
	// command's cache layer (ServeCacheLayers), with GoCache taking what
	// the sandbox's own builds add.
	CacheBase string
	// CacheHidden are folders of CacheBase, relative to it, that the
	// sandbox shows empty: the report's kept checkers.
	CacheHidden []string
	// Group is the cgroup of the sandbox's commands, nil for none: see
	// Limit.
	Group *Group
	// limited runs every command under the limits of Limit.
	limited bool
	// Slot is the grading slot the sandbox's student has, from 0, or -1:
	// the report's checker runs on that slot's CPU (see pinnedTo).
	Slot int
}

// New makes a sandbox in a new folder under parent.
func New(parent, name, modProxy string, j *Jail) (*Sandbox, error) {
	dir := filepath.Join(parent, name)
	s := &Sandbox{
		Dir:        dir,
		Src:        filepath.Join(dir, "src"),
		Home:       filepath.Join(dir, "home"),
		Tmp:        filepath.Join(dir, "tmp"),
		GoCache:    filepath.Join(dir, "gocache"),
		GoModCache: filepath.Join(dir, "gomodcache"),
		ModProxy:   modProxy,
		Jail:       j,
		Slot:       -1,
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	for _, d := range []string{s.Src, s.Home, s.Tmp, s.GoModCache} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Env is the environment of the code run in the sandbox, built from
// nothing: none of the instructor's variables, tokens and SSH_AUTH_SOCK
// included, only what the go command needs. The Go command builds with
// -trimpath, so that a build cache made in one sandbox still serves
// another one in a different folder, with -mod=readonly and a file://
// GOPROXY, so that it can neither change go.mod nor download, without
// cgo, so that no C compiler runs (but see Command for -race), and
// without DWARF in what it links, which links faster and changes nothing
// a grade reads (stack traces come from the symbol table).
func (s *Sandbox) Env() []string {
	goroot := s.goroot()
	path := "/usr/local/bin:/usr/bin:/bin"
	if goroot != "" {
		path = filepath.Join(goroot, "bin") + string(filepath.ListSeparator) + path
	}
	env := []string{"PATH=" + path}
	if goroot != "" {
		env = append(env, "GOROOT="+goroot)
	}
	env = append(env,
		"HOME="+s.Home,
		"TMPDIR="+s.Tmp,
		"GOCACHE="+s.GoCache,
		"GOMODCACHE="+s.GoModCache,
		"GOPATH="+filepath.Join(s.Home, "go"),
		"GOENV=off",
		"GOFLAGS=-mod=readonly -trimpath -buildvcs=false -ldflags=-w",
		"GOPROXY=file://"+filepath.ToSlash(s.modProxy()),
		"GOSUMDB=off",
		"GOTOOLCHAIN=local",
		"CGO_ENABLED=0",
		grade.QuickRaceExit,
	)
	if s.CacheBase != "" {
		env = append(env, "GOCACHEPROG="+s.cacheLayerProg())
	}
	return env
}

// goroot is the Go toolchain's folder: the jail's, or the go command's.
func (s *Sandbox) goroot() string {
	if s.Jail != nil {
		return s.Jail.goroot
	}
	return ToolchainRoot()
}

// Command is a command to run in the sandbox: inside bubblewrap when the
// Sandbox has a jail, with the sandbox's environment either way. dir is
// the working folder, the same path inside the sandbox as outside. Run it
// with runLimited. It is the one way a class report runs a student's code.
func (s *Sandbox) Command(dir, name string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if s.Jail == nil {
		cmd = exec.Command(name, args...)
	} else {
		cmd = exec.Command(s.Jail.bwrap, append(append(s.Jail.Args(s, dir), "--", name), args...)...)
	}
	cmd.Dir = dir
	cmd.Env = s.Env()
	if slices.Contains(args, "-race") {
		// The race detector needs cgo on Linux (go: -race requires cgo).
		// The grading copy holds no student file that uses cgo, C or
		// assembly (see gradingPlan.build): only the runtime's C is built.
		cmd.Env[slices.Index(cmd.Env, "CGO_ENABLED=0")] = "CGO_ENABLED=1"
	}
	return s.limitedCommand(cmd)
}

// Remove deletes the sandbox and its cgroup. The Go module cache is
// read-only by design, so folders are made writable first.
func (s *Sandbox) Remove() error {
	groupErr := s.Group.Remove()
	for _, name := range []string{linkCache, linkLayer, linkModProxy} {
		os.Remove(s.Dir + "." + name) // outsideLink's
	}
	if err := RemoveAll(s.Dir); err != nil {
		return err
	}
	return groupErr
}

// RemoveAll is os.RemoveAll that also deletes read-only folders, such as a
// Go module cache's.
func RemoveAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// RunLimited runs cmd in a process group of its own and stops the whole
// group when limit passes or ctx ends, and kills it again when cmd exits,
// so that nothing cmd started (a test binary, a child it forked) outlives
// it. Output goes to cmd.Stdout and cmd.Stderr, which it sets to buffers
// when they are nil. It reports whether the limit or ctx stopped the
// command. A process that leaves the group on purpose (setsid) escapes
// it; only a real sandbox, such as bwrap's PID namespace, stops that.
func RunLimited(ctx context.Context, limit time.Duration, cmd *exec.Cmd) (stopped bool, err error) {
	if cmd.Stdout == nil {
		cmd.Stdout = new(bytes.Buffer)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = new(bytes.Buffer)
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// The same command, bound to the limit: exec then stops it.
	c := exec.CommandContext(ctx, cmd.Path)
	c.Path, c.Args, c.Err = cmd.Path, cmd.Args, cmd.Err
	c.Dir, c.Env, c.SysProcAttr = cmd.Dir, cmd.Env, cmd.SysProcAttr
	c.Stdin, c.Stdout, c.Stderr, c.ExtraFiles = cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.ExtraFiles
	procgroup.Own(c)
	// Asked to stop, the group is asked first. A second later exec kills
	// what is left of the command, and stops waiting for a process that
	// left the group but holds its output open.
	c.Cancel = func() error { endGroup(c, procgroup.Term); return nil }
	c.WaitDelay = stopGrace
	err = c.Run()
	endGroup(c, procgroup.Kill)
	cmd.Process, cmd.ProcessState = c.Process, c.ProcessState
	if ctx.Err() != nil {
		return true, nil
	}
	var exit *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrWaitDelay):
		return false, nil // it succeeded; what it left behind is killed
	case errors.As(err, &exit):
		return false, fmt.Errorf("%s: %w", filepath.Base(cmd.Path), err)
	}
	return false, err
}

// stopGrace is how long runLimited lets a stopped command end its own way,
// and how long it waits for output after the command exits.
const stopGrace = time.Second

// endGroup ends cmd's process group with end (procgroup.Term or Kill).
// Only Unix has process groups: elsewhere it kills cmd alone, so that a
// time limit stops the go command but not what it started.
func endGroup(cmd *exec.Cmd, end func(pid int) bool) {
	if cmd.Process != nil && !end(cmd.Process.Pid) {
		cmd.Process.Kill()
	}
}
