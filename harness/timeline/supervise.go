package timeline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// A learner's code runs in the same process as the tests, so it can end
// that process: os.Exit or syscall.Exit in a method, an init function that
// exits, a crash, the kernel killing it for memory. go test then reports
// whatever the process managed to print, and an exit status of 0 reads as
// "ok". So every test binary that imports this package runs its tests in a
// child process: the parent, started before any of the learner's init
// functions can run, only relays the child's output, listens to the
// runner's events on a pipe of its own, and when the child ends checks
// that every case that started also ended and that the test binary
// reached its own end. If not, it says what happened, during which case,
// and fails.

func init() {
	if !shouldSupervise() {
		return
	}
	if status, ok := supervise(); ok {
		os.Exit(status)
	}
	// No child could be started: the tests run here, unsupervised.
	os.Setenv(protocol.ChildEnv, "1")
}

// shouldSupervise reports whether this process is a test binary that go
// test started, and not already a supervised child.
func shouldSupervise() bool {
	if os.Getenv(protocol.ChildEnv) != "" || os.Getenv(protocol.SuperviseEnv) == "0" || runtime.GOOS == "plan9" {
		return false
	}
	isTest := false
	for _, a := range os.Args[1:] {
		switch {
		case strings.HasPrefix(a, "-test.fuzzworker"), strings.HasPrefix(a, "-test.list"),
			strings.HasPrefix(a, "-test.fuzz="), strings.HasPrefix(a, "-test.fuzzcachedir"):
			// Fuzzing has its own worker processes and pipes; and a list
			// runs no code of the learner's.
			return false
		case strings.HasPrefix(a, "-test."):
			isTest = true
		}
	}
	return isTest
}

// How long the supervisor waits, once the child has ended, for output
// still on its way: from what the child wrote last, or from a process
// that escaped the group's kill and holds the pipes open.
const drainTime = time.Second

// supervise runs this test binary again as a child and returns the exit
// status to end with; ok is false if no child could be started.
func supervise() (status int, ok bool) {
	cant := func(err error) (int, bool) {
		fmt.Fprintf(os.Stderr, "ladder: cannot supervise the tests (%v); running them unsupervised\n", err)
		return 0, false
	}
	var pipes [3][2]*os.File // events, stdout, stderr: read end, write end
	closeAll := func(end int) {
		for _, p := range pipes {
			if p[end] != nil {
				p[end].Close()
			}
		}
	}
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(0)
			closeAll(1)
			return cant(err)
		}
		pipes[i] = [2]*os.File{r, w}
	}
	events, stdout, stderr := pipes[0][0], pipes[1][0], pipes[2][0]

	args := os.Args[1:]
	markerDir, marker := endMarker(args)
	if marker != "" {
		defer os.RemoveAll(markerDir)
		args = append([]string{"-test.memprofile=" + marker}, args...)
	}
	cmd := exec.Command(os.Args[0], args...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, protocol.ResultsEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, protocol.ChildEnv+"=1")
	if err := passEvents(cmd, pipes[0][1]); err != nil {
		closeAll(0)
		closeAll(1)
		return cant(err)
	}
	cmd.Stdout, cmd.Stderr = pipes[1][1], pipes[2][1]
	cmd.Stdin = childStdin()
	procgroup.DieWithParent(cmd)
	procgroup.Own(cmd)
	// The child has a process group of its own, which the terminal's
	// Ctrl-C does not reach: the parent passes it on, and stays to report.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		signal.Stop(signals)
		closeAll(0)
		closeAll(1)
		return cant(err)
	}
	closeAll(1)
	pid := cmd.Process.Pid
	go func() {
		for sig := range signals {
			procgroup.Signal(pid, sig)
		}
	}()

	var st state
	st.endKnown = marker != ""
	// A stream that closes while the child still runs was closed by the
	// learner's code; at the child's end they all close at once.
	closedEarly := func(stream string) func() {
		return func() {
			if running, known := childRunning(pid); running || !known {
				st.noteClosed(stream, running)
			}
		}
	}
	budget := &relayBudget{left: totalLimit}
	outWatch := &watcher{onRace: st.addRace}
	errWatch := &watcher{onRace: st.addRace}
	outRelay := &relay{dst: os.Stdout, budget: budget, watch: outWatch, onEOF: closedEarly("stdout")}
	errRelay := &relay{dst: os.Stderr, budget: budget, watch: errWatch, onEOF: closedEarly("stderr")}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); outRelay.copy(stdout) }()
	go func() { defer wg.Done(); errRelay.copy(stderr) }()
	go func() {
		defer wg.Done()
		if errors.Is(st.read(events), io.EOF) {
			closedEarly("events")()
		}
	}()

	// Wait for the child itself, not for its pipes: a process it started
	// may hold them open. Then end every process it left in its group:
	// its process ID stays taken while the group has members.
	waitErr := cmd.Wait()
	st.settleClosings(time.Now())
	procgroup.Kill(pid)
	for _, f := range []*os.File{events, stdout, stderr} {
		f.SetReadDeadline(time.Now().Add(drainTime))
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTime + 100*time.Millisecond):
		// The read ends do not take deadlines here; leave the readers.
	}

	exit := protocol.Event{Kind: protocol.Exit, Status: cmd.ProcessState.ExitCode()}
	exit.Dir, _ = os.Getwd()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		exit.Signal = ws.Signal().String()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		exit.Reason = waitErr.Error()
	}
	if marker != "" {
		_, err := os.Stat(marker)
		st.ended = err == nil
	}
	if exit.Status == 2 {
		c, ok := errWatch.crashed()
		if !ok {
			c, ok = outWatch.crashed()
		}
		if ok {
			st.crash = &c
			exit.Crash = c.text()
		}
	}
	exit.Complete, exit.Reason = st.judge(exit, outRelay.lastLine())
	st.mu.Lock()
	st.events = append(st.events, exit)
	writeResults(st.events)
	st.mu.Unlock()
	if exit.Complete {
		return exit.Status, true
	}
	fmt.Fprintf(os.Stdout, "\nFAIL: %s\n", exit.Reason)
	return 1, true
}

// endMarker returns a path where the child's testing package writes a
// memory profile, and the folder that holds it. The testing package writes
// it after its last test, as it ends: a child that printed PASS but left
// no profile was ended by someone else's os.Exit, such as an init
// function's. A learner's own -test.memprofile leaves no room for one.
func endMarker(args []string) (dir, path string) {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name == "test.memprofile" {
			return "", ""
		}
	}
	dir, err := os.MkdirTemp("", "ladder-end-")
	if err != nil {
		return "", ""
	}
	return dir, filepath.Join(dir, "end.prof")
}

// childStdin is the child's standard input: the parent's, but never a
// terminal, which a process outside the terminal's foreground group
// cannot read without being stopped.
func childStdin() *os.File {
	if fi, err := os.Stdin.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		return nil
	}
	return os.Stdin
}

// writeResults writes the events where the ladder command asked for them.
func writeResults(events []protocol.Event) {
	dir := os.Getenv(protocol.ResultsEnv)
	if dir == "" {
		return
	}
	var b []byte
	for _, e := range events {
		b = append(b, e.Line()...)
	}
	name := filepath.Join(dir, strconv.Itoa(os.Getpid())+".jsonl")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "ladder: cannot write the results: %v\n", err)
	}
}
