package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A sandbox is a throwaway folder for running code the instructor has not
// read, such as a student's: the code's HOME, TMPDIR and Go caches all lie
// inside it, and its environment carries nothing of the instructor's but
// PATH, the locale and the Go toolchain's location. It is not a security
// boundary: the code runs as the instructor's user and can still write to
// any absolute path that user can. It keeps what the code writes relative
// to its home, its temporary folder or its working directory inside the
// folder, which Remove deletes.
type sandbox struct {
	Dir        string // the whole sandbox, removed by Remove
	Src        string // where the code to run is copied
	Home       string
	Tmp        string
	GoCache    string
	GoModCache string
	// ModProxy is the instructor's module download cache, served to the go
	// command as a file:// GOPROXY, so that modules are unpacked into the
	// sandbox's own GOMODCACHE and nothing is fetched from the network.
	ModProxy string
}

// newSandbox makes a sandbox in a new folder under parent.
func newSandbox(parent, name, modProxy string) (*sandbox, error) {
	dir := filepath.Join(parent, name)
	s := &sandbox{
		Dir:        dir,
		Src:        filepath.Join(dir, "src"),
		Home:       filepath.Join(dir, "home"),
		Tmp:        filepath.Join(dir, "tmp"),
		GoCache:    filepath.Join(dir, "gocache"),
		GoModCache: filepath.Join(dir, "gomodcache"),
		ModProxy:   modProxy,
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	for _, d := range []string{s.Src, s.Home, s.Tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// keptEnv lists the only variables a sandbox takes from the instructor's
// environment: where programs are, the locale, and where Go is installed.
// Everything else, tokens and SSH_AUTH_SOCK included, stays out.
var keptEnv = []string{"PATH", "LANG", "LC_ALL", "GOROOT"}

// secretLike matches names that may hold a credential, which a sandbox
// never passes on even if keptEnv ever grows to include one.
func secretLike(name string) bool {
	up := strings.ToUpper(name)
	for _, s := range []string{"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "SSH_"} {
		if strings.Contains(up, s) {
			return true
		}
	}
	return false
}

// Env is the environment of the code run in the sandbox. The Go command
// builds with -trimpath, so that a build cache made in one sandbox still
// serves another one in a different folder, and with -mod=readonly and a
// file:// GOPROXY, so that it can neither change go.mod nor download.
func (s *sandbox) Env() []string {
	var env []string
	for _, name := range keptEnv {
		if v, ok := os.LookupEnv(name); ok && !secretLike(name) {
			env = append(env, name+"="+v)
		}
	}
	return append(env,
		"HOME="+s.Home,
		"TMPDIR="+s.Tmp,
		"GOCACHE="+s.GoCache,
		"GOMODCACHE="+s.GoModCache,
		"GOPATH="+filepath.Join(s.Home, "go"),
		"GOENV=off",
		"GOFLAGS=-mod=readonly -trimpath -buildvcs=false",
		"GOPROXY=file://"+filepath.ToSlash(s.ModProxy),
		"GOSUMDB=off",
		"GOTOOLCHAIN=local",
		quickRaceExit,
	)
}

// Command is a command to run in the sandbox's copy, with its
// environment. Run it with runLimited.
func (s *sandbox) Command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = s.Env()
	return cmd
}

// Remove deletes the sandbox. The Go module cache is read-only by design,
// so folders are made writable first.
func (s *sandbox) Remove() error { return removeAll(s.Dir) }

// removeAll is os.RemoveAll that also deletes read-only folders, such as a
// Go module cache's.
func removeAll(dir string) error {
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

// runLimited runs cmd in a process group of its own and kills the whole
// group when limit passes or ctx ends, and again when cmd exits, so that
// nothing cmd started (a test binary, a child it forked) outlives it.
// Output goes to cmd.Stdout and cmd.Stderr, which it sets to buffers when
// they are nil. It reports whether the limit or ctx stopped the command.
// A process that leaves the group on purpose (setsid) escapes it; only a
// real sandbox, such as a container, stops that.
func runLimited(ctx context.Context, limit time.Duration, cmd *exec.Cmd) (stopped bool, err error) {
	if cmd.Stdout == nil {
		cmd.Stdout = new(bytes.Buffer)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = new(bytes.Buffer)
	}
	// Output is read through pipes of our own rather than exec's, so that
	// Wait returns as soon as the command exits, and the group is killed
	// before anything left in it could hold the pipes open.
	outR, outW, err := os.Pipe()
	if err != nil {
		return false, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return false, err
	}
	copied := make(chan struct{}, 2)
	copyPipe := func(w io.Writer, r *os.File) {
		io.Copy(w, r)
		copied <- struct{}{}
	}
	stdout, stderr := cmd.Stdout, cmd.Stderr
	cmd.Stdout, cmd.Stderr = outW, errW
	newProcessGroup(cmd)
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return false, err
	}
	go copyPipe(stdout, outR)
	go copyPipe(stderr, errR)

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err = <-exited:
	case <-timer.C:
		stopped = true
	case <-ctx.Done():
		stopped = true
	}
	if stopped {
		// A supervised test binary runs its tests in a process group of
		// its own (harness/timeline), out of this group's reach: asked to
		// stop, each supervisor kills its child's group, then exits.
		termGroup(cmd)
		select {
		case err = <-exited:
			exited <- err
		case <-time.After(time.Second):
		}
	}
	killGroup(cmd)
	if stopped {
		err = <-exited
	}
	// A process that left the group may still hold a pipe: give up on it
	// after a while rather than wait for it.
	giveUp := time.NewTimer(5 * time.Second)
	defer giveUp.Stop()
wait:
	for range 2 {
		select {
		case <-copied:
		case <-giveUp.C:
			break wait
		}
	}
	outR.Close()
	errR.Close()
	if stopped {
		return true, nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return false, fmt.Errorf("%s: %w", filepath.Base(cmd.Path), err)
	}
	return false, err
}

// cappedBuffer keeps the first Max bytes written to it and counts the
// rest, so that a program that prints without end fills neither the
// instructor's memory nor the report.
type cappedBuffer struct {
	bytes.Buffer
	Max     int
	Dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := max(b.Max-b.Len(), 0); room < len(p) {
		b.Dropped += int64(len(p) - room)
		p = p[:room]
	}
	b.Buffer.Write(p)
	return n, nil
}
