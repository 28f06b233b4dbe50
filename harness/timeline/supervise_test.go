package timeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// The supervisor's tests run this test binary again, as go test would,
// with probeEnv naming a way for the learner's code to misbehave; the
// helper test TestSupervisorProbe, or the init below, then misbehaves in
// the supervised child.
const probeEnv = "LADDER_TEST_PROBE"

func init() {
	// Only the child gets here: the supervisor's own init has exited.
	if os.Getenv(probeEnv) == "init-exit" {
		fmt.Println("PASS")
		os.Exit(0)
	}
}

// probes are the misbehaviours, each as the one step of a case, and
// nothing, a child that behaves (see channel_test.go).
var probes = map[string]func(){
	"nothing":      func() {},
	"close-stdout": func() { os.Stdout.Close() },
	"close-fd3":    func() { syscall.Close(3) },
	"junk-fd3":     func() { syscall.Write(3, []byte("not an event\n")) },
	"grandchild": func() {
		cmd := exec.Command("sleep", "30")
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			panic(err)
		}
		fmt.Fprintf(os.Stderr, "grandchild pid %d\n", cmd.Process.Pid)
	},
	"panic-in-goroutine": func() {
		go func() { panic("probe: boom") }()
		<-make(chan int) // the panic ends the process first
	},
	"fatal-error": func() {
		var mu sync.Mutex
		mu.Unlock()
	},
	"flood": func() {
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for range (totalLimit + totalLimit/2) / len("=== RUN   x\n") {
			w.WriteString("=== RUN   x\n") // looks like the testing package's own
		}
		w.Flush()
	},
	"wait": func() {
		fmt.Println("probe: waiting")
		<-make(chan int) // until a signal, or the case's time limit
	},
	"race": func() {
		n := 0
		done := make(chan bool)
		go func() { n++; done <- true }()
		n++
		<-done
	},
}

func TestSupervisorProbe(t *testing.T) {
	name := os.Getenv(probeEnv)
	if name == "" {
		t.Skip("a helper the supervisor's tests run in a child")
	}
	do := probes[name]
	if do == nil {
		t.Fatalf("no probe %q", name)
	}
	Run(t, []Case[*tally]{{
		Name:  "probe " + name,
		Part:  1,
		Setup: "New()",
		New:   func(clock.Clock) *tally { return &tally{} },
		Steps: []Step[*tally]{At(0, Call[*tally]{Method: "Probe", Do: func(*tally, time.Time) any { do(); return nil }})},
	}})
}

// probeRun is one supervised run of the test binary with a probe.
type probeRun struct {
	exit   protocol.Event
	events []protocol.Event // before the exit
	out    string           // stdout and stderr
	took   time.Duration
}

// runProbe runs this test binary supervised, with the given probe. While
// it runs, during, if set, sees each line of its output and the process.
func runProbe(t *testing.T, probe string, during func(line string, p *os.Process)) probeRun {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("the probes are Unix's: fd 3, sleep(1), signals")
	}
	results := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSupervisorProbe$", "-test.v", "-test.timeout=2m")
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != protocol.ChildEnv && name != protocol.EventsEnv && name != protocol.ResultsEnv && name != protocol.SuperviseEnv && name != probeEnv {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, probeEnv+"="+probe, protocol.ResultsEnv+"="+results, "GORACE=atexit_sleep_ms=0")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var out strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if during != nil {
			during(sc.Text(), cmd.Process)
		}
	}
	r.Close()
	cmd.Wait()
	run := probeRun{out: out.String(), took: time.Since(start)}

	files, _ := filepath.Glob(filepath.Join(results, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("probe %s left %d results files, want 1; output:\n%s", probe, len(files), run.out)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e protocol.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("results line %q: %v", l, err)
		}
		run.events = append(run.events, e)
	}
	run.exit = run.events[len(run.events)-1]
	run.events = run.events[:len(run.events)-1]
	if run.exit.Kind != "exit" {
		t.Fatalf("the results end with %+v, want an exit event", run.exit)
	}
	return run
}

func TestSupervisorNamesHowTheChildEnded(t *testing.T) {
	for _, tc := range []struct {
		probe  string
		reason string // exit.Reason is this, once the line number is taken out
		crash  string // exit.Crash starts with this, then names this file
	}{
		{probe: "init-exit",
			reason: "the test binary exited with status 0 before any case started: does an init function in your code call os.Exit? Nothing in it counts as done."},
		{probe: "close-stdout",
			reason: `your code closed the test binary's standard output (os.Stdout.Close?) during case "probe close-stdout" of part 1. Nothing in it counts as done.`},
		{probe: "close-fd3",
			reason: `the runner's results channel (file descriptor 3) was closed during case "probe close-fd3" of part 1: does your code close files it did not open? Nothing in it counts as done.`},
		{probe: "junk-fd3",
			reason: `something other than the runner wrote to the runner's results channel (file descriptor 3) during case "probe junk-fd3" of part 1: does your code write to files it did not open? Nothing in it counts as done.`},
		{probe: "panic-in-goroutine",
			reason: `the test binary crashed during case "probe panic-in-goroutine" of part 1: panic: probe: boom (harness/timeline/supervise_test.go:N). Nothing in it counts as done.`,
			crash:  "panic: probe: boom\n  "},
		{probe: "fatal-error",
			reason: `the test binary crashed during case "probe fatal-error" of part 1: fatal error: sync: unlock of unlocked mutex (harness/timeline/supervise_test.go:N). Nothing in it counts as done.`,
			crash:  "fatal error: sync: unlock of unlocked mutex\n  "},
	} {
		t.Run(tc.probe, func(t *testing.T) {
			t.Parallel()
			run := runProbe(t, tc.probe, nil)
			if run.exit.Complete {
				t.Fatalf("probe %s: exit = %+v, want an incomplete run; output:\n%s", tc.probe, run.exit, run.out)
			}
			if got := lineNumbers.ReplaceAllString(run.exit.Reason, ".go:N"); got != tc.reason {
				t.Errorf("probe %s: Reason = %q, want %q", tc.probe, got, tc.reason)
			}
			if !strings.HasPrefix(run.exit.Crash, tc.crash) || tc.crash != "" && !strings.Contains(run.exit.Crash, "  harness/timeline/supervise_test.go:") {
				t.Errorf("probe %s: Crash = %q, want it to contain %q", tc.probe, run.exit.Crash, tc.crash)
			}
			if n := strings.Count(run.exit.Crash, "\n") + 1; n > maxCrashLines {
				t.Errorf("probe %s: Crash has %d lines, want at most %d", tc.probe, n, maxCrashLines)
			}
		})
	}
}

// lineNumbers matches the line of a file, which moves as this file changes.
var lineNumbers = regexp.MustCompile(`\.go:[0-9]+`)

func TestSupervisorEndsWhatTheChildStarted(t *testing.T) {
	run := runProbe(t, "grandchild", nil)
	t.Logf("a child that left `sleep 30` holding its stdout: supervised run took %v", run.took)
	if !run.exit.Complete {
		t.Errorf("exit = %+v, want complete: the case passed; output:\n%s", run.exit, run.out)
	}
	if run.took > 5*time.Second {
		t.Errorf("the run took %v, want under 5s: the supervisor waited for the grandchild", run.took)
	}
	var pid int
	for _, l := range strings.Split(run.out, "\n") {
		if s, ok := strings.CutPrefix(l, "grandchild pid "); ok {
			pid, _ = strconv.Atoi(s)
		}
	}
	if pid == 0 {
		t.Fatalf("the probe printed no pid:\n%s", run.out)
	}
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild %d still runs after the supervisor ended", pid)
		}
		time.Sleep(10 * time.Millisecond) // waits for init to reap it, not for the code under test
	}
}

// alive reports whether a process exists and is not a zombie, from /proc.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndex(s, ")"); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func TestSupervisorCutsAFloodOfFramingLines(t *testing.T) {
	run := runProbe(t, "flood", nil)
	t.Logf("a child printed %d MB of framing lines: %d bytes relayed in %v", (totalLimit+totalLimit/2)>>20, len(run.out), run.took)
	if len(run.out) > totalLimit+64<<10 {
		t.Errorf("relayed %d bytes, want at most the %d of the budget and a little", len(run.out), totalLimit)
	}
	if n := strings.Count(run.out, strings.TrimSpace(limitNotice)); n != 1 {
		t.Errorf("the limit's notice appears %d times, want once", n)
	}
	if !strings.HasSuffix(run.out, "\nPASS\n") || !run.exit.Complete {
		t.Errorf("output ends %q, exit %+v; want PASS, and a complete run", run.out[max(0, len(run.out)-200):], run.exit)
	}
}

func TestSupervisorPassesCtrlCToTheChild(t *testing.T) {
	sent := false
	run := runProbe(t, "wait", func(line string, p *os.Process) {
		if line == "probe: waiting" && !sent {
			sent = true
			p.Signal(os.Interrupt) // the parent only, as a test of forwarding
		}
	})
	if !sent {
		t.Fatalf("the probe never waited:\n%s", run.out)
	}
	want := `the test binary was killed by signal "interrupt" during case "probe wait" of part 1. Nothing in it counts as done.`
	if run.exit.Signal != "interrupt" || run.exit.Reason != want {
		t.Errorf("exit = signal %q, %q; want signal \"interrupt\", %q", run.exit.Signal, run.exit.Reason, want)
	}
}

func TestSupervisorRecordsARace(t *testing.T) {
	if testing.Short() || !RaceEnabled {
		t.Skip("needs go test -race, and runs the test binary")
	}
	run := runProbe(t, "race", nil)
	var races []protocol.Event
	for _, e := range run.events {
		if e.Kind == "race" {
			races = append(races, e)
		}
	}
	if len(races) == 0 {
		t.Fatalf("no race event; output:\n%s", run.out)
	}
	r := races[0]
	t.Logf("race event, cut:\n%s", r.Report)
	if r.Case != "probe race" || r.Part != 1 {
		t.Errorf("race event in case %q of part %d, want \"probe race\" of part 1", r.Case, r.Part)
	}
	if !strings.HasPrefix(r.Report, "WARNING: DATA RACE\n") || !strings.Contains(r.Report, "harness/timeline/supervise_test.go:") {
		t.Errorf("Report = %q, want the headline and this file's lines", r.Report)
	}
	if strings.Contains(r.Report, "testing.go") || strings.Count(r.Report, "\n") >= maxRaceLines {
		t.Errorf("Report = %q, want at most %d lines, none from the testing package", r.Report, maxRaceLines)
	}
}
