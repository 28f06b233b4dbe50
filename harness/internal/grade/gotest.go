package grade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Run is one go test run: some levels' packages in one module, with
// or without the race detector.
type Run struct {
	Module   string   // the module's folder, relative to the root
	Patterns []string // package patterns, relative to the module's folder
	Race     bool
	Run      string // go test -run, or "" for every test
	Skip     string // go test -skip, or "" to skip nothing
	// Parts are the parts this run plays, when it is a run of one level:
	// a test binary that breaks voids these parts only. Nil means every
	// part of the module.
	Parts []int
	// Lean leaves out go test's vet and the binaries' DWARF, for a check
	// of the repository's own code (the stubs) that only wants verdicts.
	Lean bool
}

// Package is what one package's test binary did, as go test -json
// reported it (see events.go).
type Package struct {
	ImportPath string
	Dir        string // absolute
	BuildError string
	// Output is the tail of what the package printed outside its tests,
	// such as a panic or go test's last line.
	Output string
	// NoTests is set for a package without test files.
	NoTests bool
	// Exit is the grader's word on how the test binary ended, nil if its
	// tests did not report through the ladder's runner
	// of this package reported.
	Exit *protocol.Event
	// Cases are the runner's protocol.CaseEnd events, in order.
	Cases []protocol.Event
	// Races are the race detector's reports, cut to the learner's lines.
	Races []protocol.Event
	// Parts are the parts the run played (see testRun.Parts).
	Parts []int
}

// outputTail is how much of a package's own output is kept.
const outputTail = 8 << 10

// LevelRuns groups the levels' packages into as few go test runs as the
// modules and race settings allow, taking the modules that want says.
func LevelRuns(lvs []levels.Level, run string, want func(levels.Level, levels.Module) bool) []Run {
	var us []unit
	for _, l := range lvs {
		for _, m := range l.Modules {
			if want == nil || want(l, m) {
				us = append(us, unit{Level: l, module: m})
			}
		}
	}
	out := runsOf(us)
	for i := range out {
		out[i].Run = run
	}
	return out
}

// Runner makes and runs the go commands of a grading: plainly for a
// learner, and in a sandbox with a time limit for the class report.
type Runner struct {
	Command func(ctx context.Context, dir string, args ...string) *exec.Cmd
	Run     func(ctx context.Context, cmd *exec.Cmd) error
	// Note, if set, hears that a build is taking a while.
	Note io.Writer
	// Judge, if set, replaces what a go test run's own test binaries said
	// with verdicts decided elsewhere: the class report's checker.
	Judge func(ctx context.Context, root string, r Run, own []*Package) ([]*Package, error)
	// Ahead starts the units of a level's later modules (level 8's Redis
	// form) at once, beside the other runs, instead of once the parts
	// before them pass; what they find counts only if those parts pass.
	// The class report sets it: such a unit mostly waits on deadlines,
	// and the code it tests is already all there. A learner's progress
	// does not, so that a module's dependencies are downloaded only when
	// the learner reaches it. Command and Run are then called from more
	// than one goroutine.
	Ahead bool
}

// leftoverWait is how long go test may run on once every test binary has
// said its last line.
const leftoverWait = 3 * time.Second

// buildNoted holds the writers that were told of a slow build.
var buildNoted sync.Map

// SlowBuild is how long a build may take before the learner is told.
var SlowBuild = 2 * time.Second

// buildWhat names what a go test run builds: "ladder/01-hit-counter", or
// "3 levels".
func buildWhat(patterns []string) string {
	if len(patterns) == 1 {
		return strings.TrimSuffix(strings.TrimPrefix(patterns[0], "./"), "/...")
	}
	return fmt.Sprintf("%d levels", len(patterns))
}

// terminalNote is where a learner's command says what a slow first run is
// doing: standard error, when it is a terminal, and nowhere otherwise,
// so that captured output stays the verdict alone.
func terminalNote() io.Writer {
	if info, err := os.Stderr.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 || os.Getenv("LADDER_NOTES") == "1" {
		return os.Stderr
	}
	return nil
}

// Plain runs go in the learner's own environment.
var Plain = Runner{
	Command: func(ctx context.Context, dir string, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, GoTool(), args...)
		cmd.WaitDelay = 5 * time.Second
		cmd.Dir = dir
		cmd.Env = LearnerEnv()
		return cmd
	},
	Run:  runOwned,
	Note: terminalNote(),
}

// errInterrupted is what a run ended by Ctrl-C returns.
var errInterrupted = errors.New("interrupted")

// runOwned runs cmd as the leader of a process group of its own, and ends
// the group when cmd ends: a process the learner's code started, which
// may hold the test binary's output open, does not outlive the grade.
// Ctrl-C, which the terminal sends to its own process group, ends this
// one too.
func runOwned(_ context.Context, cmd *exec.Cmd) error {
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(interrupt)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		procgroup.Kill(pid)
		return err
	case <-interrupt:
		procgroup.Kill(pid)
		<-waited
		return errInterrupted
	}
}

// runAll runs go test runs one after another (each builds and tests its
// packages in parallel) and joins their results.
func runAll(ctx context.Context, root string, runs []Run, runner Runner) ([]*Package, error) {
	var all []*Package
	for _, r := range runs {
		res, err := RunGoTest(ctx, root, r, runner)
		if err == nil && runner.Judge != nil {
			res, err = runner.Judge(ctx, root, r, res)
		}
		if err != nil {
			return nil, err
		}
		all = append(all, res...)
	}
	return all, nil
}

// RunGoTest runs go test -json on the learner's packages of one run: every
// package the patterns match except the specs. Failing tests are the
// normal state of a ladder in progress, so go test's exit status is not an
// error here; only a go test that could not run at all is.
func RunGoTest(ctx context.Context, root string, r Run, runner Runner) ([]*Package, error) {
	modDir := filepath.Join(root, r.Module)
	var patterns []string
	for _, p := range r.Patterns {
		// A level that is missing here (a partial copy) has no packages.
		if _, err := os.Stat(filepath.Join(modDir, strings.TrimSuffix(p, "/..."))); err == nil {
			patterns = append(patterns, p)
		}
	}
	if len(patterns) == 0 {
		return nil, nil
	}
	pkgs, err := ListPackages(ctx, root, modDir, patterns, runner)
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, nil
	}
	args := []string{"test", "-json", "-count=1", "-timeout", "10m"}
	if r.Race {
		args = append(args, "-race")
	}
	if r.Lean {
		args = append(args, "-vet=off", "-ldflags=-w")
	}
	if r.Run != "" {
		args = append(args, "-run", r.Run)
	}
	if r.Skip != "" {
		args = append(args, "-skip", r.Skip)
	}
	for _, p := range pkgs {
		args = append(args, p.ImportPath)
	}
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	cmd := runner.Command(runCtx, modDir, args...)
	cmd.Env = append(cmd.Env, protocol.GradeEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &LimitedBuffer{Buf: &stderr, Left: outputTail}
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	read := make(chan struct{})
	started := make(chan struct{})
	rd := newReader(root, pkgs, func() { close(started) }, stopRun)
	// Every binary has ended: go test has no more to say, and if it
	// waits, it waits for a process the learner's code left holding the
	// output (up to a minute, go test's own limit).
	rd.allEnded = func() { time.AfterFunc(leftoverWait, stopRun) }
	go func() {
		defer close(read)
		rd.read(pr)
		io.Copy(io.Discard, pr)
	}()
	if runner.Note != nil {
		// A cold build takes a while: say so, once, so that a newcomer
		// does not think the command hung. Once for each writer: a watch
		// or an interview runs go test again and again, and a later
		// build slowed by a busy machine is no first run.
		timer := time.AfterFunc(SlowBuild, func() {
			select {
			case <-started:
			default:
				if _, said := buildNoted.LoadOrStore(runner.Note, true); !said {
					fmt.Fprintf(runner.Note, "building the tests of %s, the first run only: later runs reuse the build…\n", buildWhat(r.Patterns))
				}
			}
		})
		defer timer.Stop()
	}
	runErr := runner.Run(runCtx, cmd)
	pw.Close()
	<-read
	rd.finish()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) && runCtx.Err() == nil { // a run this grading stopped says why itself
		return nil, fmt.Errorf("go test: %v\n%s", runErr, stderr.String())
	}
	// Build errors that -json did not carry arrive on stderr.
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		for _, p := range pkgs {
			if p.Exit == nil && p.BuildError == "" && !p.NoTests && strings.Contains(p.Output, "[build failed]") {
				p.BuildError = msg
			}
		}
	}
	for _, p := range pkgs {
		p.Parts = r.Parts
	}
	return pkgs, nil
}

// ListPackages lists the packages the patterns match in a module of
// root, without the specs: a spec's own tests are the repository's
// business.
func ListPackages(ctx context.Context, root, modDir string, patterns []string, runner Runner) ([]*Package, error) {
	args := append([]string{"list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}"}, patterns...)
	cmd := runner.Command(ctx, modDir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := runner.Run(ctx, cmd)
	out := stdout.Bytes()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []*Package
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, ok := strings.Cut(line, "\t")
		if _, role := levels.RoleOf(filepath.ToSlash(RelDir(root, dir))); !ok || path == "" || role == levels.Spec {
			continue
		}
		pkgs = append(pkgs, &Package{ImportPath: path, Dir: dir})
	}
	return pkgs, nil
}

// LimitedBuffer keeps the first bytes written to it, up to a limit.
type LimitedBuffer struct {
	Buf  *bytes.Buffer
	Left int
}

// Write keeps what fits and reports all of p written, so that exec goes
// on copying.
func (l *LimitedBuffer) Write(p []byte) (int, error) {
	if l.Left > 0 {
		n := min(len(p), l.Left)
		l.Buf.Write(p[:n])
		l.Left -= n
	}
	return len(p), nil
}

// GoTool is the go command of the toolchain that built the ladder, or the
// one on PATH.
func GoTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// LearnerEnv is the environment for the learner's tests: the caller's,
// without the runner's own variable and the GOFLAGS that would choose
// which tests run.
func LearnerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if flags, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			kv = "GOFLAGS=" + GradingGoflags(flags)
		}
		name, _, _ := strings.Cut(kv, "=")
		if name != protocol.GradeEnv {
			env = append(env, kv)
		}
	}
	if _, set := os.LookupEnv("GORACE"); !set {
		env = append(env, QuickRaceExit)
	}
	return env
}

// QuickRaceExit spares a test binary built with -race the second the race
// detector sleeps as a program exits, for reports from threads still
// running: a level graded under -race would wait a second a package for
// nothing.
const QuickRaceExit = "GORACE=atexit_sleep_ms=0"

// GradingGoflags drops from GOFLAGS the flags that choose which tests run
// or how (-run, -skip, -short, -count, -failfast): a grade plays every case
// of the parts it grades, whatever the learner's shell has set for their
// own go test runs.
func GradingGoflags(flags string) string {
	var keep []string
	for _, f := range strings.Fields(flags) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		name = strings.TrimPrefix(name, "test.")
		switch name {
		case "run", "skip", "short", "count", "failfast", "list", "bench", "fuzz":
			continue
		}
		keep = append(keep, f)
	}
	return strings.Join(keep, " ")
}
