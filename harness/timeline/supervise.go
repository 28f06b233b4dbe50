package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// Environment variables of the supervisor.
const (
	// childEnv marks the supervised child, and every process it starts.
	childEnv = "LADDER_CHILD"
	// eventsFDEnv names the child's file descriptor for the runner's events.
	eventsFDEnv = "LADDER_EVENTS_FD"
	// ResultsEnv names a folder where the parent writes what it saw, one
	// file per test binary, for the ladder command to grade from. Output
	// printed by the learner's code cannot forge it.
	ResultsEnv = "LADDER_RESULTS"
	// SuperviseEnv set to 0 turns the supervisor off, for debugging the
	// runner itself.
	SuperviseEnv = "LADDER_SUPERVISE"
)

// Output limits of the relay: a learner's print statements may write
// without end, and whoever reads go test's output must not have to hold it.
const (
	segmentHead = 64 << 10 // bytes kept from the start of each test's output
	segmentTail = 16 << 10 // and from its end
	totalLimit  = 8 << 20  // bytes relayed in all, beyond which only test lines pass
)

func init() {
	if !shouldSupervise() {
		return
	}
	if status, ok := supervise(); ok {
		os.Exit(status)
	}
	// No child could be started: the tests run here, unsupervised.
	os.Setenv(childEnv, "1")
}

// shouldSupervise reports whether this process is a test binary that go
// test started, and not already a supervised child.
func shouldSupervise() bool {
	if os.Getenv(childEnv) != "" || os.Getenv(SuperviseEnv) == "0" || runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
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

// Event is one line the runner writes to the supervisor, and one line of a
// results file.
type Event struct {
	// Kind is "run-start", "run-end", "case-start", "case-end" or, from
	// the supervisor, "race" (a report of the race detector, in Report,
	// with the case that was open when it came, if any) and "exit".
	Kind string `json:"e"`
	// Test is the full test name: "TestHitCounter/part_1/a_hit".
	Test string `json:"test,omitempty"`
	// Case and Part name the spec case.
	Case string `json:"case,omitempty"`
	Part int    `json:"part,omitempty"`
	// Fuzz marks a case that a fuzz target built.
	Fuzz bool `json:"fuzz,omitempty"`
	// Verdict, Step and Report are the case's Outcome.
	Verdict string `json:"verdict,omitempty"`
	Step    int    `json:"step,omitempty"`
	Report  string `json:"report,omitempty"`
	// Brief is the Report cut to one screen, and Summary its one line:
	// the first wrong call, "Count(t=4s) = 3, want 5". See Outcome.
	Brief   string `json:"brief,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Missing is the method a stub's panic named, and Where the line of
	// the stub that panicked, for NotImplemented.
	Missing string `json:"missing,omitempty"`
	Where   string `json:"where,omitempty"`

	// For "exit": the package folder, the child's exit status or signal,
	// whether it ran to its end, and if not, why.
	Dir      string `json:"dir,omitempty"`
	Status   int    `json:"status,omitempty"`
	Signal   string `json:"signal,omitempty"`
	Complete bool   `json:"complete,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Crash is the start of what the runtime printed when the child
	// died of a fatal error or an unrecovered panic: the message, then
	// the frames of the learner's own files, as file:line.
	Crash string `json:"crash,omitempty"`
}

// supervise runs this test binary again as a child and returns the exit
// status to end with; ok is false if no child could be started.
func supervise() (status int, ok bool) {
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ladder: cannot supervise the tests (%v); running them unsupervised\n", err)
		return 0, false
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, ResultsEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, childEnv+"=1", eventsFDEnv+"=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stdin = os.Stdin
	setParentDeath(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, false
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return 0, false
	}
	// Ctrl-C reaches the whole process group; the child decides what to
	// do with it, and the parent stays to report.
	signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "ladder: cannot supervise the tests (%v); running them unsupervised\n", err)
		return 0, false
	}
	w.Close()

	budget := &relayBudget{left: totalLimit}
	outRelay := &relay{dst: os.Stdout, budget: budget}
	errRelay := &relay{dst: os.Stderr, budget: budget}
	var wg sync.WaitGroup
	var st state
	wg.Add(3)
	go func() { defer wg.Done(); outRelay.copy(stdout) }()
	go func() { defer wg.Done(); errRelay.copy(stderr) }()
	go func() { defer wg.Done(); st.read(r) }()
	wg.Wait()
	waitErr := cmd.Wait()

	exit := Event{Kind: "exit", Status: cmd.ProcessState.ExitCode()}
	exit.Dir, _ = os.Getwd()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		exit.Signal = ws.Signal().String()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		exit.Reason = waitErr.Error()
	}
	exit.Complete, exit.Reason = st.judge(exit, outRelay.lastLine())
	st.events = append(st.events, exit)
	writeResults(st.events)
	if exit.Complete {
		return exit.Status, true
	}
	fmt.Fprintf(os.Stdout, "\nFAIL: %s\n", exit.Reason)
	return 1, true
}

// state follows the runner's events.
type state struct {
	mu     sync.Mutex
	events []Event
	runs   map[string]bool  // tests whose Run started and has not ended
	open   map[string]Event // cases started and not ended, by test name
	last   *Event           // the last case that started
}

func (s *state) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		s.mu.Lock()
		if s.runs == nil {
			s.runs, s.open = map[string]bool{}, map[string]Event{}
		}
		switch e.Kind {
		case "run-start":
			s.runs[e.Test] = true
		case "run-end":
			delete(s.runs, e.Test)
		case "case-start":
			s.open[e.Test] = e
			s.last = &e
		case "case-end":
			delete(s.open, e.Test)
		}
		s.events = append(s.events, e)
		s.mu.Unlock()
	}
}

// judge decides whether the child ran to its own end, and if not, why not.
// A test binary that ends normally prints PASS or FAIL as its last line,
// after every test has returned.
func (s *state) judge(exit Event, lastLine string) (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	during := " before any case started"
	if len(s.open) > 0 {
		var c Event
		for _, e := range s.open {
			if c.Test == "" || e.Test < c.Test {
				c = e
			}
		}
		during = fmt.Sprintf(" during case %q of part %d", c.Case, c.Part)
	} else if s.last != nil {
		during = fmt.Sprintf(" after case %q of part %d ended, outside any case", s.last.Case, s.last.Part)
	}
	switch {
	case exit.Signal != "":
		why := "."
		if exit.Signal == syscall.SIGKILL.String() {
			why = ": the system may have run out of memory, or a time limit stopped it."
		}
		return false, fmt.Sprintf("the test binary was killed by signal %q%s%s Nothing in it counts as done.", exit.Signal, during, why)
	case exit.Reason != "":
		return false, "the test binary could not be waited for: " + exit.Reason
	case len(s.open) > 0 || len(s.runs) > 0 || !endsNormally(exit.Status, lastLine):
		why := ": does your code call os.Exit or syscall.Exit?"
		switch {
		case exit.Status == 66 && len(s.open) == 0:
			return false, "the race detector found a data race outside the cases (see the output above). Nothing in this test binary counts as done."
		case exit.Status == 2:
			why = ": a panic outside the case's own goroutine, or a time limit; see the output above."
		case s.last == nil && exit.Status == 0:
			why = ": does an init function in your code call os.Exit?"
		}
		return false, fmt.Sprintf("the test binary exited with status %d%s%s Nothing in it counts as done.", exit.Status, during, why)
	}
	return true, ""
}

// endsNormally reports whether a test binary's last line of output is the
// one the testing package prints for its exit status.
func endsNormally(status int, lastLine string) bool {
	switch status {
	case 0:
		return lastLine == "PASS"
	case 1:
		return lastLine == "FAIL"
	}
	return false
}

// writeResults writes the events where the ladder command asked for them.
func writeResults(events []Event) {
	dir := os.Getenv(ResultsEnv)
	if dir == "" {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, e := range events {
		enc.Encode(e)
	}
	name := filepath.Join(dir, strconv.Itoa(os.Getpid())+".jsonl")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "ladder: cannot write the results: %v\n", err)
	}
}

// relayBudget is the bytes left to relay, shared by stdout and stderr.
type relayBudget struct {
	mu   sync.Mutex
	left int
}

// relay copies a child's output line by line, keeping of each test's
// output only its head and its tail.
type relay struct {
	dst    io.Writer
	budget *relayBudget

	mu      sync.Mutex
	last    string // the last complete line, without its newline
	segment int    // bytes of the current segment seen
	tail    []byte // the latest bytes past the head, up to segmentTail
	cut     int    // bytes cut from the current segment
}

func (r *relay) copy(src io.Reader) {
	br := bufio.NewReaderSize(src, 64<<10)
	startOfLine := true
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			r.write(chunk, startOfLine)
			startOfLine = chunk[len(chunk)-1] == '\n'
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	r.flushTail()
}

// framing reports whether a line is one of the testing package's own: a
// new segment starts there, and it always passes.
func framing(line []byte) bool {
	l := bytes.TrimLeft(bytes.TrimPrefix(line, []byte{0x16}), " ")
	for _, p := range []string{"=== ", "--- ", "PASS", "FAIL", "ok ", "panic: ", "WARNING: DATA RACE", "testing: "} {
		if bytes.HasPrefix(l, []byte(p)) {
			return true
		}
	}
	return false
}

func (r *relay) write(chunk []byte, startOfLine bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	complete := chunk[len(chunk)-1] == '\n'
	if startOfLine && complete && !bytes.HasPrefix(chunk, []byte("coverage: ")) {
		r.last = strings.TrimPrefix(strings.TrimRight(string(chunk), "\r\n"), "\x16")
	}
	if startOfLine && framing(chunk) {
		r.flushTailLocked()
		r.segment = 0
		r.dst.Write(chunk)
		return
	}
	r.segment += len(chunk)
	if r.segment <= segmentHead && r.take(len(chunk)) {
		r.dst.Write(chunk)
		return
	}
	r.cut += len(chunk)
	r.tail = append(r.tail, chunk...)
	if len(r.tail) > 2*segmentTail {
		r.tail = append(r.tail[:0], r.tail[len(r.tail)-segmentTail:]...)
	}
}

// take spends n bytes of the shared budget.
func (r *relay) take(n int) bool {
	r.budget.mu.Lock()
	defer r.budget.mu.Unlock()
	if r.budget.left < n {
		return false
	}
	r.budget.left -= n
	return true
}

func (r *relay) flushTail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushTailLocked()
}

func (r *relay) flushTailLocked() {
	if r.cut == 0 {
		return
	}
	tail := r.tail
	if len(tail) > segmentTail {
		tail = tail[len(tail)-segmentTail:]
	}
	if !r.take(len(tail)) {
		tail = nil
	}
	fmt.Fprintf(r.dst, "\n[ladder: %d bytes of output cut here; the last %d follow]\n", r.cut-len(tail), len(tail))
	r.dst.Write(tail)
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		r.dst.Write([]byte("\n"))
	}
	r.tail, r.cut = r.tail[:0], 0
}

func (r *relay) lastLine() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}
