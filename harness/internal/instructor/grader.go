// Package instructor holds the tools of whoever runs a class: the student
// copy, the class report (graded in a sandbox by a checker the students'
// code cannot reach), the GitHub Classroom workflow and the debrief.
package instructor

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Grader grades students' checkouts for one class report.
type Grader struct {
	plan     *gradingPlan
	Tmp      string        // the report's temporary folder, with every sandbox
	cache    string        // the warm build cache each sandbox gets a copy of
	modProxy string        // the instructor's module download cache
	Jail     *sandbox.Jail // nil with --no-sandbox
	// redisServer is redis-server, if a sandbox sees it (under /usr): the
	// runs in redisModules then get one.
	redisServer  string
	redisModules map[string]bool
	Checker      *checker
}

// withRedisServer starts a redis-server on the sandbox's loopback, waits
// until it answers, and runs its arguments.
//
//go:embed templates/with-redis-server.sh
var withRedisServer string

// NewGrader reads the instructor's checkout and builds its tests once, in a
// sandbox, into the build cache every student's sandbox starts from.
// cacheDir keeps it between reports ("" for none); j nil means no sandbox;
// seed 0 draws a seed for the random timelines.
func NewGrader(ctx context.Context, root, cacheDir string, j *sandbox.Jail, seed uint64) (_ *Grader, err error) {
	plan, err := newGradingPlan(root)
	if err != nil {
		return nil, err
	}
	g := &Grader{plan: plan, Jail: j, redisModules: map[string]bool{}}
	dirs := []string{"."} // the ladder's modules: each downloaded, into the sandboxes' GOPROXY
	for _, l := range plan.Levels {
		for _, m := range l.Modules {
			// A module's run needs the server if one of its cases does.
			if needs, err := moduleNeeds(root, l, m); err == nil && slices.Contains(needs, "redis-server") {
				g.redisModules[m.Dir] = true
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m.Dir), "go.mod")); err == nil && !slices.Contains(dirs, m.Dir) {
				dirs = append(dirs, m.Dir)
			}
		}
	}
	for _, dir := range dirs {
		if out, err := goCommand(root, dir, "mod", "download").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go mod download in %s: %v\n%s", dir, err, out)
		}
	}
	out, err := goCommand(root, ".", "env", "GOMODCACHE", "GOVERSION", "GOOS", "GOARCH").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMODCACHE: %v", err)
	}
	modCache, toolchain, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	g.modProxy = filepath.Join(modCache, "cache", "download")
	if p, err := exec.LookPath("redis-server"); err == nil && sandbox.Within(p, "/usr") {
		if _, err := exec.LookPath("redis-cli"); err == nil {
			g.redisServer = p
		}
	}
	if g.Tmp, err = os.MkdirTemp("", "ladder-report-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			sandbox.RemoveAll(g.Tmp)
		}
	}()
	if g.cache = filepath.Join(g.Tmp, "cache"); cacheDir != "" {
		if g.cache, err = filepath.Abs(cacheDir); err != nil {
			return nil, err
		}
	}
	store := filepath.Join(g.cache, storeDir, plan.warmKey(toolchain))
	if g.Checker = keptChecker(store, filepath.Join(g.Tmp, "checker"), seed); g.Checker != nil {
		return g, nil
	}
	sb, err := sandbox.New(g.Tmp, "warm-up", g.modProxy, j)
	if err != nil {
		return nil, err
	}
	defer sb.Remove()
	sb.GoCache = g.cache
	if err := os.MkdirAll(g.cache, 0o700); err != nil {
		return nil, err
	}
	if _, err := plan.Build("", sb.Src); err != nil {
		return nil, err
	}
	// go test -c builds and vets every test binary a grading runs, as
	// the grading runs it (-race too), and runs nothing.
	warm := grade.Runner{
		Command: func(_ context.Context, dir string, args ...string) *exec.Cmd {
			return sb.Command(dir, grade.GoTool(), args...)
		},
		Run: setupRun,
	}
	for i, r := range grade.LevelRuns(plan.Levels) {
		modDir := filepath.Join(sb.Src, filepath.FromSlash(r.Module))
		patterns := slices.DeleteFunc(r.Patterns, func(p string) bool {
			_, err := os.Stat(filepath.Join(modDir, strings.TrimSuffix(p, "/...")))
			return err != nil
		})
		if len(patterns) == 0 {
			continue
		}
		pkgs, err := grade.ListPackages(ctx, sb.Src, modDir, patterns, warm)
		if err != nil {
			return nil, fmt.Errorf("listing the tests of this checkout: %v", err)
		}
		if len(pkgs) == 0 {
			continue // go test -c of no package would build the folder's own
		}
		args := []string{"test", "-c", "-o", filepath.Join(sb.Tmp, fmt.Sprintf("warm-%d", i)) + string(filepath.Separator)}
		if r.Race {
			args = append(args, "-race")
		}
		for _, p := range pkgs {
			args = append(args, p.ImportPath)
		}
		if err := setupRun(ctx, sb.Command(modDir, grade.GoTool(), args...)); err != nil {
			return nil, fmt.Errorf("building the tests of this checkout: %v", err)
		}
	}
	if g.Checker, err = newChecker(ctx, sb, filepath.Join(g.Tmp, "checker"), plan, seed); err != nil {
		return nil, err
	}
	if cacheDir != "" {
		g.Checker.keep(store)
	}
	return g, nil
}

// setupRun runs a command of the report's setup, which fails with what
// it printed.
func setupRun(ctx context.Context, cmd *exec.Cmd) error {
	stopped, err := sandbox.RunLimited(ctx, time.Hour, cmd)
	if stopped {
		err = errors.New("interrupted")
	}
	if err != nil {
		return fmt.Errorf("%v\n%s", err, cmdOutput(cmd))
	}
	return nil
}

// goCommand is the go command, in the learner's environment, in the
// folder dir of root.
func goCommand(root, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(grade.GoTool(), args...)
	cmd.Dir = filepath.Join(root, filepath.FromSlash(dir))
	cmd.Env = grade.LearnerEnv()
	return cmd
}

// Close deletes the report's temporary folder.
func (g *Grader) Close() { sandbox.RemoveAll(g.Tmp) }

// Grade grades one student's checkout in a sandbox of its own, which it
// deletes afterwards.
func (g *Grader) Grade(ctx context.Context, i, slot int, dir string, limit time.Duration) (res Result) {
	res.Name = filepath.Base(filepath.Clean(dir))
	res.Commit, res.Graded = headCommit(dir), time.Now()
	defer func() { res.Took = time.Since(res.Graded) }()
	var notes []string
	defer func() { res.Err = strings.Join(notes, "; ") }()
	sb, err := sandbox.New(g.Tmp, fmt.Sprintf("student-%03d", i), g.modProxy, g.Jail)
	if err != nil {
		notes = append(notes, err.Error())
		return res
	}
	sb.Slot = slot
	sb.Limit()
	defer func() {
		// Read before Remove deletes the group.
		notes = append(notes, sb.Group.Hit()...)
		if err := sb.Remove(); err != nil {
			notes = append(notes, "its temporary folder could not be deleted: "+err.Error())
		}
	}()
	if notes, err = g.plan.Build(dir, sb.Src); err != nil {
		notes = append(notes, err.Error())
		return res
	}
	var touched []levels.Level
	for _, l := range g.plan.Levels {
		if !shipped.Untouched(sb.Src, l) {
			touched = append(touched, l)
		}
	}
	// The warm cache is read-only under the student's own.
	sb.CacheBase, sb.CacheHidden = g.cache, []string{storeDir}
	var stopped atomic.Bool
	runner := grade.Runner{
		Command: func(_ context.Context, dir string, args ...string) *exec.Cmd {
			rel, _ := filepath.Rel(sb.Src, dir)
			if len(args) > 0 && args[0] == "test" && g.Jail != nil && g.redisServer != "" && g.redisModules[filepath.ToSlash(rel)] {
				// As make test-level-8 REDIS=1: a server of the sandbox's own.
				cmd := sb.Command(dir, "sh", append([]string{"-c", withRedisServer, "sh", grade.GoTool()}, args...)...)
				cmd.Env = append(cmd.Env, "REDIS_ADDR=127.0.0.1:6379")
				return cmd
			}
			return sb.Command(dir, grade.GoTool(), args...)
		},
		Run: func(runCtx context.Context, cmd *exec.Cmd) error {
			s, err := sandbox.RunLimited(runCtx, limit, cmd)
			// A run started ahead, then not needed, is not the student's.
			if s && !(runCtx.Err() != nil && ctx.Err() == nil) {
				stopped.Store(true)
			}
			return err
		},
		Ahead: true,
	}
	gr := &grading{checker: g.Checker, sb: sb, run: runner.Run, root: sb.Src, modPath: g.plan.modPath}
	runner.Judge = func(ctx context.Context, root string, r grade.Run, own []*grade.Package) ([]*grade.Package, error) {
		if stopped.Load() {
			return own, nil // counts for nothing: see below
		}
		return gr.judge(ctx, r, own)
	}
	if _, err := gr.buildChildren(ctx, touched, filepath.Join(sb.Dir, "children")+string(filepath.Separator)); err != nil && ctx.Err() == nil {
		notes = append(notes, "building the checker's children: "+err.Error())
		return res
	}
	grades, err := grade.Levels(ctx, sb.Src, g.plan.Levels, runner)
	switch {
	case stopped.Load() && ctx.Err() != nil:
		notes = append(notes, "interrupted")
		return res
	case stopped.Load():
		notes = append(notes, fmt.Sprintf("stopped after %v", limit))
		return res
	case err != nil:
		notes = append(notes, grade.FirstLines(err.Error(), 1))
		return res
	}
	res.Levels = grade.Report(grades).Levels
	res.InProcess = gr.inProcessLevels(grades)
	for _, lg := range grades {
		for _, p := range lg.Parts {
			for _, c := range p.Cases {
				if c.Fuzz && c.Verdict != protocol.Pass && c.Verdict != protocol.NotImplemented {
					res.RandomFailed = true
				}
			}
		}
	}
	return res
}

// HeaviestFirst returns the indexes of dirs in the order the report grades
// them: the most work (the sum of the started levels' numbers) first, so
// that the longest gradings overlap the short ones; ties keep the order.
func HeaviestFirst(dirs []string) []int {
	return heaviestFirst(dirs, func(dir string) int {
		work := 0
		for _, l := range levels.All {
			if !shipped.Untouched(dir, l) {
				work += l.Number
			}
		}
		return work
	})
}

func heaviestFirst(dirs []string, work func(dir string) int) []int {
	weights := make([]int, len(dirs))
	order := make([]int, len(dirs))
	for i, dir := range dirs {
		weights[i], order[i] = work(dir), i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weights[b], weights[a]) })
	return order
}

// headCommit is the commit a student's checkout is on, read by hand: git
// would run what the student's config says (a hook, an fsmonitor).
func headCommit(dir string) string {
	gitDir := filepath.Join(dir, ".git")
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(id, "ref: "); ok {
		id = ""
		if data, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
			id = strings.TrimSpace(string(data))
		} else if packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs")); err == nil {
			for _, line := range strings.Split(string(packed), "\n") {
				if h, name, ok := strings.Cut(line, " "); ok && name == ref {
					id = h
				}
			}
		}
	}
	if len(id) < 12 || strings.Trim(id, "0123456789abcdef") != "" {
		return ""
	}
	return id[:12]
}
