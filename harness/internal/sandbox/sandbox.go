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

// A Sandbox is where a student's code runs in a class report: a folder
// of its own and, on Linux, bubblewrap (bwrap) around every command: new
// user, PID, network, IPC and UTS namespaces; read-only system folders,
// toolchain, module cache and grading copy; a writable sandbox folder and
// /tmp; no network, no capabilities; an environment built from nothing
// (see Env). When bwrap's first process dies the kernel kills every other
// process in the namespace, setsid daemons included. bwrap rather than
// namespaces straight from Go: Go cannot run code between clone and exec,
// so the mounts would need a helper of our own; bwrap is that helper,
// small, audited and packaged. Without a working bwrap (macOS, Windows, a
// container without user namespaces) Jail is nil: only with --no-sandbox
// (NoSandboxGivesUp).
type Sandbox struct {
	Dir        string // the whole sandbox, removed by Remove
	Src        string // the grading copy: read-only inside the sandbox
	Home       string
	Tmp        string
	GoCache    string
	GoModCache string
	// ModProxy is the instructor's module download cache, the go
	// command's file:// GOPROXY: nothing is fetched from the network.
	ModProxy string
	// Jail runs commands inside bubblewrap; nil runs them plainly.
	Jail *Jail
	// CacheBase, when set, is the report's warm build cache, which the
	// sandbox's go command reads through ServeCacheLayers and never writes.
	CacheBase string
	// CacheHidden are folders of CacheBase, relative to it, that the
	// sandbox shows empty: the report's kept checkers.
	CacheHidden []string
	// Group is the cgroup of the sandbox's commands, nil for none.
	Group *Group
	// limited runs every command under the limits of Limit.
	limited bool
	// Slot is the student's grading slot, from 0, or -1 (see PinnedTo).
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
	for _, d := range []string{dir, s.Src, s.Home, s.Tmp, s.GoModCache} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Env is the environment of the sandbox's code, built from nothing: only
// what the go command needs. -trimpath lets one sandbox's build cache
// serve another; -mod=readonly and a file:// GOPROXY forbid changing
// go.mod and downloading; no cgo, so no C compiler runs; no DWARF, which
// links faster and changes nothing a grade reads.
func (s *Sandbox) Env() []string {
	goroot, proxy := ToolchainRoot(), s.ModProxy
	if s.Jail != nil {
		goroot = s.Jail.goroot
		if proxy != "" {
			proxy = jailModProxy
		}
	}
	const path = "/usr/local/bin:/usr/bin:/bin"
	env := []string{"PATH=" + path}
	if goroot != "" {
		env = []string{"PATH=" + filepath.Join(goroot, "bin") + string(filepath.ListSeparator) + path, "GOROOT=" + goroot}
	}
	env = append(env,
		"HOME="+s.Home,
		"TMPDIR="+s.Tmp,
		"GOCACHE="+s.GoCache,
		"GOMODCACHE="+s.GoModCache,
		"GOPATH="+filepath.Join(s.Home, "go"),
		"GOENV=off",
		"GOFLAGS=-mod=readonly -trimpath -buildvcs=false -ldflags=-w",
		"GOPROXY=file://"+filepath.ToSlash(proxy),
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

// Command is a command to run in the sandbox, in dir (the same path
// inside as outside): inside bubblewrap when there is a jail, inside
// limitsScript when the sandbox is limited. Run it with RunLimited.
func (s *Sandbox) Command(dir, name string, args ...string) *exec.Cmd {
	argv := append([]string{name}, args...)
	if s.Jail != nil {
		argv = slices.Concat([]string{s.Jail.bwrap}, s.Jail.Args(s, dir), []string{"--"}, argv)
	}
	if s.limited {
		wrapper := []string{"/bin/sh", "-c", limitsScript, "sh"}
		if s.Group != nil {
			for _, folder := range s.Group.folders {
				wrapper = append(wrapper, filepath.Join(folder, "cgroup.procs"))
			}
		}
		argv = slices.Concat(wrapper, []string{"--"}, argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = s.Env()
	if slices.Contains(args, "-race") {
		// -race requires cgo; the grading copy holds no student C or
		// assembly (see gradingPlan.build), so only the runtime's C builds.
		cmd.Env[slices.Index(cmd.Env, "CGO_ENABLED=0")] = "CGO_ENABLED=1"
	}
	return cmd
}

// Remove deletes the sandbox, its links and its cgroup.
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

// RunLimited runs cmd in a process group of its own, stops the group when
// limit passes or ctx ends and kills it when cmd exits, so that nothing
// cmd started outlives it (but a setsid escapes: only bwrap stops that).
// Nil cmd.Stdout and cmd.Stderr become buffers. It reports whether the
// limit or ctx stopped the command.
func RunLimited(ctx context.Context, limit time.Duration, cmd *exec.Cmd) (stopped bool, err error) {
	if cmd.Stdout == nil {
		cmd.Stdout = new(bytes.Buffer)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = new(bytes.Buffer)
	}
	procgroup.Own(cmd)
	cmd.WaitDelay = stopGrace
	if err := cmd.Start(); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// The group is asked to stop first; a second later the command is
	// killed, and its output no longer waited for.
	stop := context.AfterFunc(ctx, func() {
		procgroup.Term(cmd.Process)
		time.AfterFunc(stopGrace, func() { cmd.Process.Kill() })
	})
	err = cmd.Wait()
	stop()
	procgroup.Kill(cmd.Process)
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

// stopGrace is how long a stopped command may take to end, and how long
// RunLimited waits for output after the command exits.
const stopGrace = time.Second
