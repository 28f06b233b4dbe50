package grade

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
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Run is one go test run: some levels' packages in one module.
type Run struct {
	Module     string   // the module's folder, relative to the root
	Patterns   []string // package patterns, relative to the module's folder
	Run, Skip  string   // go test -run and -skip; "" for every test, and to skip none
	Parts      []int    // the parts it plays, which a broken binary voids; nil for every part of the module
	Race, Lean bool     // Lean leaves out vet and DWARF, for a check that only wants verdicts
}

// Package is what one package's test binary did, as go test -json said.
type Package struct {
	ImportPath, BuildError string
	Dir                    string // absolute
	NoTests                bool   // the package has no test files
	Broken                 string // why its test binary did not run to its end, if it ran
	Cases, Races           []Case // as the runner reported them, in order; race reports, cut to the learner's lines, with their case
	Parts                  []int  // the parts the run played (see Run.Parts)
}

// Runner makes and runs the go commands of a grading (Plain, or the class report's sandbox).
type Runner struct {
	Command func(ctx context.Context, dir string, args ...string) *exec.Cmd
	Run     func(ctx context.Context, cmd *exec.Cmd) error
	Note    io.Writer                                                                         // if set, hears that a build is taking a while
	Judge   func(ctx context.Context, root string, r Run, own []*Package) ([]*Package, error) // if set, replaces the binaries' verdicts: the class report's checker
}

// SlowBuild is how long a build may take before Runner.Note is told, once.
var (
	SlowBuild  = 2 * time.Second
	buildNoted sync.Map
	floodLimit = 256 << 20 // how much one go test run may print before it is stopped
)

// Plain runs go in the learner's own environment.
var Plain = Runner{
	Command: func(ctx context.Context, dir string, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, GoTool(), args...)
		cmd.WaitDelay, cmd.Dir, cmd.Env = 5*time.Second, dir, LearnerEnv()
		return cmd
	},
	Run: runOwned,
	Note: func() io.Writer { // a terminal, not captured output
		if info, err := os.Stderr.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 || os.Getenv("LADDER_NOTES") == "1" {
			return os.Stderr
		}
		return nil
	}(),
}

// runOwned runs cmd as the leader of a process group, which it ends when
// cmd ends or on Ctrl-C: no process of the learner's outlives the grade.
func runOwned(ctx context.Context, cmd *exec.Cmd) error {
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	defer procgroup.Kill(cmd.Process)
	interrupted, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(interrupted, func() { procgroup.Kill(cmd.Process) })
	if err := cmd.Wait(); interrupted.Err() == nil || ctx.Err() != nil {
		return err
	}
	return errors.New("interrupted")
}

// runAll runs go test runs one after another, and joins their results.
func runAll(ctx context.Context, root string, runs []Run, runner Runner) ([]*Package, error) {
	var all []*Package
	for _, r := range runs {
		res, err := RunGoTest(ctx, root, r, runner)
		if err == nil && runner.Judge != nil {
			res, err = runner.Judge(ctx, root, r, res)
		}
		if all = append(all, res...); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// RunGoTest runs go test -json on the packages of one run but the specs.
// Failing tests are no error; only a go test that could not run is.
func RunGoTest(ctx context.Context, root string, r Run, runner Runner) ([]*Package, error) {
	modDir := filepath.Join(root, r.Module)
	if _, err := os.Stat(modDir); err != nil { // a partial copy lacks levels
		return nil, nil
	}
	pkgs, err := ListPackages(ctx, root, modDir, r.Patterns, runner)
	if err != nil || len(pkgs) == 0 {
		return nil, err
	}
	args := []string{"test", "-json", "-count=1", "-timeout", "10m", "-run", r.Run, "-skip", r.Skip, fmt.Sprintf("-race=%t", r.Race)}
	if r.Lean {
		args = append(args, "-vet=off", "-ldflags=-w")
	}
	for _, p := range pkgs {
		args = append(args, p.ImportPath)
	}
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	cmd := runner.Command(runCtx, modDir, args...)
	cmd.Env = append(cmd.Env, protocol.GradeEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &LimitedBuffer{Buf: &stderr, Left: buildTail}
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	rd := newReader(root, pkgs, stopRun)
	if runner.Note != nil { // a cold build takes a while: say so, so that a newcomer does not think the command hung
		what := strings.TrimSuffix(strings.TrimPrefix(r.Patterns[0], "./"), "/...")
		if len(r.Patterns) > 1 {
			what = fmt.Sprintf("%d levels", len(r.Patterns))
		}
		defer time.AfterFunc(SlowBuild, func() {
			if rd.started.Load() {
				return
			}
			if _, said := buildNoted.LoadOrStore(runner.Note, true); !said {
				fmt.Fprintf(runner.Note, "building the tests of %s, the first run only: later runs reuse the build…\n", what)
			}
		}).Stop()
	}
	var runErr error
	go func() {
		runErr = runner.Run(runCtx, cmd)
		pw.Close()
	}()
	rd.readAll(pr)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) && runCtx.Err() == nil { // a run stopped here says why itself
		return nil, fmt.Errorf("go test: %v\n%s", runErr, stderr.String())
	}
	for _, p := range pkgs {
		p.Parts = r.Parts
	}
	return pkgs, nil
}

// ListPackages lists the packages but the specs the patterns match in modDir.
func ListPackages(ctx context.Context, root, modDir string, patterns []string, runner Runner) ([]*Package, error) {
	args := append([]string{"list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}"}, patterns...)
	cmd := runner.Command(ctx, modDir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := runner.Run(ctx, cmd); err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []*Package
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		path, dir, ok := strings.Cut(line, "\t")
		if _, role := levels.RoleOf(filepath.ToSlash(RelDir(root, dir))); !ok || dir == "" || role == levels.Spec {
			continue // a spec, or a pattern that matched nothing (a partial copy lacks levels)
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

// Write keeps what fits and reports all of p written.
func (l *LimitedBuffer) Write(p []byte) (int, error) {
	n := min(len(p), max(l.Left, 0))
	l.Buf.Write(p[:n])
	l.Left -= n
	return len(p), nil
}

// GoTool is the go command of the toolchain that built the ladder, or PATH's.
func GoTool() string { return cmp.Or(os.Getenv("GO"), "go") }

// LearnerEnv is the caller's environment without GradeEnv and GradingGoflags' flags.
func LearnerEnv() []string {
	env := []string{QuickRaceExit} // the caller's GORACE, later, wins
	for _, kv := range os.Environ() {
		if flags, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			kv = "GOFLAGS=" + GradingGoflags(flags)
		}
		if !strings.HasPrefix(kv, protocol.GradeEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// QuickRaceExit spares a -race binary the race detector's second at exit.
const QuickRaceExit = "GORACE=atexit_sleep_ms=0"

// GradingGoflags drops from GOFLAGS the flags that choose which tests run, or how.
func GradingGoflags(flags string) string {
	return strings.Join(slices.DeleteFunc(strings.Fields(flags), func(f string) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimLeft(f, "-"), "test."), "=")
		return slices.Contains([]string{"run", "skip", "short", "count", "failfast", "list", "bench", "fuzz"}, name)
	}), " ")
}

// CheckStubs says what is wrong with the stubs under root: a level's files
// must be stubs or shared files, and fail every case as not implemented.
func CheckStubs(ctx context.Context, root string) ([]string, error) {
	runs := LevelRuns(levels.All)
	for i := range runs {
		runs[i].Race, runs[i].Lean = false, true // every stub panics at once
	}
	pkgs, err := runAll(ctx, root, merge(runs), Plain)
	problems, serr := CheckStubSources(root)
	if err = cmp.Or(err, serr); err != nil {
		return nil, err
	}
	for _, l := range levels.All {
		if _, err := shipped.Working(root, l); err != nil {
			continue
		}
		var bad []string
		for _, p := range Grade(root, l, pkgs).Parts { // the spec's own test keeps its list whole
			problems = append(problems, p.Blocked...)
			for _, c := range p.Cases {
				if c.Verdict != protocol.NotImplemented {
					bad = append(bad, fmt.Sprintf("part %d, %s (%s)", c.Part, c.Name, c.Verdict))
				}
			}
			if len(p.Unreported) > 0 || p.Reported == 0 {
				problems = append(problems, fmt.Sprintf("level %d, part %d (%s): %d of %s ran", l.Number, p.Number, p.Title, p.Reported, Plural(p.Total, "case")))
			}
		}
		if len(bad) > 0 {
			problems = append(problems, fmt.Sprintf("%s is not the stub as shipped: the stub check fails %d case(s), such as %q", l.Dir, len(bad), bad[0]))
		}
	}
	slices.Sort(problems)
	return slices.Compact(problems), nil
}

// CheckStubSources checks that every level's file under root is a stub or
// a shared file: the cases cannot see an answer no method calls.
func CheckStubSources(root string) ([]string, error) {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, l := range levels.All {
		files, err := shipped.Working(root, l)
		if errors.Is(err, fs.ErrNotExist) { // a level this copy does not have
			continue
		} else if err != nil {
			return nil, err
		}
		for _, p := range shipped.Classify(modPath, files).Other {
			problems = append(problems, fmt.Sprintf("%s is not the stub as shipped: %s", p, shipped.StubProblem(files[p])))
		}
	}
	return problems, nil
}
