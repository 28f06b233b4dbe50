// Package instructor holds the tools of whoever runs a class: the student
// copy, the class report (graded in a sandbox by a checker the students'
// code cannot reach), the GitHub Classroom workflow and the debrief.
package instructor

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"hash/fnv"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"text/template"
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
			if redis, err := needsRedis(root, l, m); err == nil && redis {
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
func (g *Grader) Grade(ctx context.Context, i, _ int, dir string, limit time.Duration) (res Result) {
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
	sb.ShareCache(g.cache, storeDir)
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

// The class report keeps, of what the student's test binary reports, only
// the cases the spec marks InProcess; every other case is played by a
// checker built from the instructor's files alone, against the student's
// code in a child that only answers calls (package remote).

// With --cache, a report keeps its checkers in the build cache's folder,
// named by a key of what they were built from, and a report that finds its
// key skips its setup.
const (
	seedEnv    = "LADDER_VERDICT_SEED" // the seed of a report's random timelines
	levelsFile = "levels"              // lists the levels of a checker's folder, which makes it whole
	storeDir   = "ladder-checkers"     // the kept checkers, which a student's sandbox shows empty
	storeAge   = 7 * 24 * time.Hour    // how long an unused set of checkers is kept
)

// checker is the report's checkers: in dir, a test binary a level
// (levelN.test), the go command's test2json, and the list of the levels;
// and the seed of their random timelines.
type checker struct {
	dir    string
	levels []int
	Seed   uint64
}

func (c *checker) binary(n int) string { return filepath.Join(c.dir, fmt.Sprintf("level%d.test", n)) }

// judges says whether the checker judges level l's parts in module m: a
// nested module's (level 8's Redis form) are judged by its own test binary.
func (c *checker) judges(l levels.Level, m levels.Module) bool {
	return m.Dir == "." && slices.Contains(c.levels, l.Number)
}

func drawSeed(seed uint64) uint64 {
	for seed == 0 {
		seed = rand.Uint64()
	}
	return seed
}

// newChecker builds into dir a checker for each level of plan that the
// instructor's copy in sb has. seed 0 draws one.
func newChecker(ctx context.Context, sb *sandbox.Sandbox, dir string, plan *gradingPlan, seed uint64) (*checker, error) {
	c := &checker{dir: dir, Seed: drawSeed(seed)}
	// Built where the sandbox may write, then moved to dir, which
	// outlives it. test2json turns a checker's output into go test -json.
	built := filepath.Join(sb.Dir, "checkers")
	builds := [][]string{{"build", "-o", filepath.Join(built, "test2json"), "cmd/test2json"}, {"test", "-c", "-o", built + string(filepath.Separator)}}
	var list []string
	for _, l := range plan.Levels {
		specDir := filepath.Join(sb.Src, filepath.FromSlash(l.SpecDir(l.ModuleOf(1))))
		if _, err := os.Stat(specDir); err != nil {
			continue
		}
		pkg := fmt.Sprintf("harness/ladder-checker/level%d", l.Number) // under harness/, to import remote
		sh, err := readShape(sb.Src, plan.modPath, l)
		if err == nil {
			err = sh.writeSource(checkerSource, filepath.Join(sb.Src, pkg, "check_test.go"))
		}
		if err != nil {
			return nil, fmt.Errorf("writing the report's checker: %v", err)
		}
		builds[1] = append(builds[1], "./"+pkg)
		c.levels, list = append(c.levels, l.Number), append(list, strconv.Itoa(l.Number))
	}
	if len(c.levels) == 0 {
		builds = builds[:1]
	}
	for _, args := range builds {
		if err := setupRun(ctx, sb.Command(sb.Src, grade.GoTool(), args...)); err != nil {
			return nil, fmt.Errorf("building the report's checker: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(built, levelsFile), []byte(strings.Join(list, " ")+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(built, dir); err != nil {
		return nil, fmt.Errorf("building the report's checker: %w", err)
	}
	return c, nil
}

// warmKey names what a report's setup builds from, the toolchain too.
func (p *gradingPlan) warmKey(toolchain string) string {
	h := fnv.New128a() // the command's other cache keys take FNV too: no crypto in its build
	for _, files := range []map[string][]byte{p.base, p.stubs} {
		for _, name := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(h, "%q %d\n", name, len(files[name]))
			h.Write(files[name])
		}
	}
	fmt.Fprintf(h, "%s\n%s\n%s\n", checkerSource, childSource, toolchain)
	return hex.EncodeToString(h.Sum(nil))
}

// keptChecker returns the checkers kept in store, copied into dir (another
// report may prune the store while this one runs), or nil if store holds
// no whole set.
func keptChecker(store, dir string, seed uint64) *checker {
	c := &checker{dir: dir, Seed: drawSeed(seed)}
	list, err := os.ReadFile(filepath.Join(store, levelsFile))
	if err != nil {
		return nil
	}
	err = os.CopyFS(dir, os.DirFS(store))
	for _, f := range strings.Fields(string(list)) {
		n, atoiErr := strconv.Atoi(f)
		if _, statErr := os.Stat(c.binary(n)); atoiErr != nil || statErr != nil {
			err = fmt.Errorf("no checker of level %s", f)
		}
		c.levels = append(c.levels, n)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil
	}
	now := time.Now()
	os.Chtimes(store, now, now) // in use: kept another storeAge
	return c
}

// keep copies c's checkers into store, renamed into place whole, and
// drops the sets unused for storeAge. Errors only cost a warm start.
func (c *checker) keep(store string) {
	parent := filepath.Dir(store)
	os.MkdirAll(parent, 0o755)
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > storeAge {
				os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	tmp, err := os.MkdirTemp(parent, "new-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp) // left only if the rename failed
	if os.CopyFS(tmp, os.DirFS(c.dir)) == nil {
		os.Rename(tmp, store) // fails if another report kept the same set first
	}
}

// cmdOutput is what a command run with sandbox.RunLimited printed.
func cmdOutput(cmd *exec.Cmd) string {
	var s string
	for _, w := range []any{cmd.Stdout, cmd.Stderr} {
		if b, ok := w.(interface{ String() string }); ok {
			s += b.String()
		}
	}
	return grade.FirstLines(s, 20)
}

const refusedPrefix = "refused:" // a level's build error, refused for its imports

// refusedImports lists the student's files of level l that import a spec
// (its model is an answer) or the grader's packages.
func refusedImports(root, modPath string, l levels.Level) []string {
	var out []string
	filepath.WalkDir(filepath.Join(root, filepath.FromSlash(l.Dir)), func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		if rel = filepath.ToSlash(rel); err != nil || !l.HasRole(rel, levels.Code) {
			return nil
		}
		ips, _ := shipped.Imports(p, nil) // one that does not parse: the build says what is wrong
		for _, ip := range ips {
			imported, ok := strings.CutPrefix(ip, modPath+"/")
			if _, role := levels.RoleOf(imported); ok && (imported == "harness/timeline" || imported == "harness/mutation" ||
				strings.HasPrefix(imported, "harness/internal/") || role == levels.Spec) {
				out = append(out, fmt.Sprintf("%s imports %s", rel, ip))
			}
		}
		return nil
	})
	return out
}

// inProcessCases lists the cases judged in the student's process, by part
// and name.
func inProcessCases(root string, l levels.Level) map[int]map[string]bool {
	out := map[int]map[string]bool{}
	for part, cs := range grade.SpecLists(root, l) {
		out[part] = map[string]bool{}
		for _, c := range cs {
			if c.InProcess != "" {
				out[part][c.Name] = true
			}
		}
	}
	return out
}

// grading is one student's checkout, in root of sb.
type grading struct {
	*checker
	sb            *sandbox.Sandbox
	run           func(context.Context, *exec.Cmd) error
	root, modPath string
}

// judge returns the verdicts of one go test run: of the student's own
// binaries only the cases judged in process, then the checker's.
func (g *grading) judge(ctx context.Context, r grade.Run, own []*grade.Package) ([]*grade.Package, error) {
	var out []*grade.Package
	for _, l := range levels.All {
		i := slices.IndexFunc(l.Modules, func(m levels.Module) bool {
			return m.Dir == r.Module && slices.Contains(r.Patterns, l.Patterns()[m.Dir])
		})
		if i < 0 {
			continue
		}
		var pkgs []*grade.Package
		for _, p := range own {
			if l.Holds(grade.RelDir(g.root, p.Dir)) {
				pkgs = append(pkgs, p)
			}
		}
		if !g.judges(l, l.Modules[i]) {
			out = append(out, pkgs...) // judged in process, as the report marks it
			continue
		}
		inProc := inProcessCases(g.root, l)
		for _, p := range pkgs {
			p.Cases = slices.DeleteFunc(p.Cases, func(e protocol.Event) bool { return e.Fuzz || !inProc[e.Part][e.Name] })
		}
		out = append(out, pkgs...)
		if len(pkgs) == 0 || slices.ContainsFunc(pkgs, func(p *grade.Package) bool { return p.BuildError != "" }) {
			continue
		}
		p, err := g.check(ctx, l, r)
		if err != nil {
			return nil, err
		}
		// A case judged in process passes only as the student's binary
		// reports it.
		p.Cases = slices.DeleteFunc(p.Cases, func(e protocol.Event) bool { return inProc[e.Part][e.Name] && e.Verdict == protocol.Pass })
		out = append(out, p)
	}
	return out, nil
}

// buildChildren builds the children of lvs into out (a folder, for
// several) in one go build, and returns what a failed build printed; check
// builds one that failed again, for its own message.
func (g *grading) buildChildren(ctx context.Context, lvs []levels.Level, out string) (failed string, err error) {
	args := []string{"build", "-o", out}
	for _, l := range lvs {
		if g.judges(l, levels.Module{Dir: "."}) {
			sh, err := readShape(g.root, g.modPath, l)
			if err == nil {
				err = sh.writeSource(childSource, filepath.Join(g.root, "harness", "ladder-child", l.Name(), "main.go"))
			}
			if err != nil {
				return "", err
			}
			args = append(args, "./harness/ladder-child/"+l.Name())
		}
	}
	build := g.sb.Command(g.root, grade.GoTool(), args...)
	build.Env = append(build.Env, "CGO_ENABLED=0")
	if len(args) > 3 {
		if err := g.run(ctx, build); err != nil {
			return cmp.Or(cmdOutput(build), err.Error()), ctx.Err()
		}
	}
	return "", ctx.Err()
}

// check runs the checker on level l's child, building it if need be.
func (g *grading) check(ctx context.Context, l levels.Level, r grade.Run) (*grade.Package, error) {
	levelDir := filepath.Join(g.root, filepath.FromSlash(l.Dir))
	res := &grade.Package{ImportPath: g.modPath + "/" + l.Dir + " (the report's checker)", Dir: levelDir, Parts: r.Parts}
	if refused := refusedImports(g.root, g.modPath, l); len(refused) > 0 {
		res.BuildError = fmt.Sprintf("%s %s. A level's code may not import a spec (its model is an answer) or the grader's packages.", refusedPrefix, strings.Join(refused, "; "))
		return res, nil
	}
	childBin := filepath.Join(g.sb.Dir, "children", l.Name())
	if runtime.GOOS == "windows" {
		childBin += ".exe"
	}
	if _, err := os.Stat(childBin); err != nil {
		if res.BuildError, err = g.buildChildren(ctx, []levels.Level{l}, childBin); err != nil || res.BuildError != "" {
			return res, err
		}
	}
	child := g.sb.Command(levelDir, childBin)
	launch, err := json.Marshal(protocol.Launch{Path: child.Path, Args: child.Args, Env: child.Env, Dir: child.Dir})
	if err != nil {
		return nil, err
	}
	tests := fmt.Sprintf("^(TestLevel%d|FuzzLevel%d)$", l.Number, l.Number)
	if r.Run != "" {
		tests = fmt.Sprintf("^TestLevel%d$%s", l.Number, strings.TrimPrefix(r.Run, "^Test"))
	}
	args := []string{"-p", res.ImportPath, g.binary(l.Number), "-test.v=test2json", "-test.run=" + tests, "-test.timeout=10m"}
	if r.Skip != "" {
		args = append(args, "-test.skip=^TestLevel"+strconv.Itoa(l.Number)+"$"+r.Skip)
	}
	cmd := exec.Command(filepath.Join(g.dir, "test2json"), args...)
	cmd.Dir = levelDir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + os.TempDir(),
		protocol.LaunchEnv + "=" + string(launch),
		seedEnv + "=" + strconv.FormatUint(g.Seed, 10),
		protocol.GradeEnv + "=1",
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	// Failing cases exit 1: the output says the rest.
	if g.run(ctx, cmd) != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	grade.Read(g.root, &out, res)
	return res, nil
}

// inProcessLevels returns, by level, the parts counted done that hold a
// case judged in the student's process.
func (g *grading) inProcessLevels(grades []grade.Level) map[int][]int {
	out := map[int][]int{}
	for _, lg := range grades {
		inProc := inProcessCases(g.root, lg.Level)
		for _, p := range lg.Parts {
			if p.Done && (len(inProc[p.Number]) > 0 || !g.judges(lg.Level, lg.Level.ModuleOf(p.Number))) {
				out[lg.Level.Number] = append(out[lg.Level.Number], p.Number)
			}
		}
	}
	return out
}

// A level's checker and child are written from its spec, read with
// go/parser. The spec's Test (and Fuzz) is generic over an interface and
// takes a constructor of it:
//
//	func Test[C Counter](t *testing.T, newCounter func(window time.Duration) C)
//
// The checker gives it a constructor of proxies, whose methods are the
// interface's and those of any interface the spec asserts to. The Err
// variables of the level's packages the spec imports are its sentinels.

// specShape is what a level's checker and child are written from.
type specShape struct {
	Mod, Dir string
	Number   int
	SeedEnv  string
	Ctor     signature // New: the interface Test is generic over, and an error for level 8
	Methods  []signature
	Imports  map[string]string // the packages the proxies' types name, by name, but the spec
	// Sentinels are "viewerr.ErrNegativeViews", from SentinelImports (by path).
	Sentinels       []string
	SentinelImports map[string]string
}

// signature is a function's name and the types of its parameters and
// results, which the proxies name a0… and r0….
type signature struct {
	Name            string
	Params, Results []string
}

// readShape reads the spec of level l in the checkout root.
func readShape(root, modPath string, l levels.Level) (*specShape, error) {
	dir := l.SpecDir(l.ModuleOf(1))
	files, err := parseDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	sh := &specShape{Mod: modPath, Dir: l.Dir, Number: l.Number, SeedEnv: seedEnv, Imports: map[string]string{}, SentinelImports: map[string]string{}}
	ifaces := map[string]*ast.InterfaceType{}
	var test *ast.FuncType
	var asserted []*ast.InterfaceType
	imports, local := map[string]string{}, map[string]bool{}
	// fields returns the types of a parameter or result list, one a
	// value, with the spec's own types as the checker's package names them.
	fields := func(fl *ast.FieldList) (out []string) {
		if fl == nil {
			return nil
		}
		for _, f := range fl.List {
			ast.Inspect(f.Type, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && local[id.Name] {
					id.Name = "spec." + id.Name // once: a name with a dot is no type's
				}
				_, sel := n.(*ast.SelectorExpr)
				return !sel
			})
			for range max(1, len(f.Names)) {
				out = append(out, types.ExprString(f.Type))
			}
		}
		return out
	}
	for _, f := range files {
		for _, imp := range f.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			if imports[path.Base(ip)] = ip; imp.Name != nil {
				imports[imp.Name.Name] = ip
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Name.Name == "Test" && n.Recv == nil {
					test = n.Type
				}
			case *ast.TypeSpec:
				local[n.Name.Name] = true
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					ifaces[n.Name.Name] = it
				}
			case *ast.TypeAssertExpr:
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					asserted = append(asserted, it)
				}
			}
			return true
		})
	}
	if test != nil && test.TypeParams != nil && len(test.TypeParams.List) == 1 && len(test.Params.List) == 2 {
		tp := test.TypeParams.List[0]
		ctor, _ := test.Params.List[1].Type.(*ast.FuncType)
		if cons, ok := tp.Type.(*ast.Ident); ok && ifaces[cons.Name] != nil && ctor != nil {
			if results := fields(ctor.Results); len(results) > 0 && results[0] == tp.Names[0].Name {
				results[0] = "spec." + cons.Name
				sh.Ctor = signature{constructor, fields(ctor.Params), results}
				asserted = append([]*ast.InterfaceType{ifaces[cons.Name]}, asserted...)
			}
		}
	}
	if sh.Ctor.Name == "" {
		return nil, fmt.Errorf("%s: no func Test[T Interface](t *testing.T, newT func(…) T) of one of the spec's interfaces", dir)
	}
	for len(asserted) > 0 {
		it := asserted[0]
		asserted = asserted[1:]
		for _, m := range it.Methods.List {
			ft, ok := m.Type.(*ast.FuncType)
			if !ok {
				embedded, _ := m.Type.(*ast.Ident)
				if embedded == nil || ifaces[embedded.Name] == nil {
					return nil, fmt.Errorf("%s: an interface embeds %s, which is not one of the spec's", dir, types.ExprString(m.Type))
				}
				asserted = append(asserted, ifaces[embedded.Name])
			} else if name := m.Names[0].Name; !slices.ContainsFunc(sh.Methods, func(s signature) bool { return s.Name == name }) {
				sh.Methods = append(sh.Methods, signature{name, fields(ft.Params), fields(ft.Results)})
			}
		}
	}
	// The sentinels: the Err variables of the level's packages the spec
	// imports.
	for _, ip := range slices.Sorted(maps.Values(imports)) {
		rel, ok := strings.CutPrefix(ip, modPath+"/")
		if !ok || !l.HasRole(rel+"/x.go", levels.Code) || sh.SentinelImports[ip] != "" {
			continue
		}
		pkg, err := parseDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		for _, pf := range pkg {
			for _, d := range pf.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
					for _, vs := range gd.Specs {
						for _, n := range vs.(*ast.ValueSpec).Names {
							if strings.HasPrefix(n.Name, "Err") {
								sh.SentinelImports[ip] = pf.Name.Name
								sh.Sentinels = append(sh.Sentinels, pf.Name.Name+"."+n.Name)
							}
						}
					}
				}
			}
		}
	}
	var types []string
	for _, s := range append(sh.Methods, sh.Ctor) {
		types = append(append(types, s.Params...), s.Results...)
	}
	for _, m := range qualified.FindAllStringSubmatch(strings.Join(types, " "), -1) {
		if ip := imports[m[1]]; ip != "" && sh.SentinelImports[ip] == "" {
			sh.Imports[m[1]] = ip
		}
	}
	return sh, nil
}

// qualified finds the package names in a type's text.
var qualified = regexp.MustCompile(`\b(\w+)\.`)

// parseDir parses the Go files of a package's folder, tests left out.
func parseDir(dir string) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// constructor is the function every level builds its value with.
const constructor = "New"

// The sources the report writes: a level's child, which serves the
// student's code, and its checker, with the proxies.
var (
	//go:embed templates/child.go.tmpl
	childSource string
	//go:embed templates/checker.go.tmpl
	checkerSource string
)

// writeSource writes one of the sources of sh into file, gofmt'ed.
func (sh *specShape) writeSource(src, file string) error {
	t, err := template.New("").Funcs(template.FuncMap{"join": func(s []string) string { return strings.Join(s, ", ") }}).Parse("// Written by the class report. DO NOT EDIT.\n\n" + src)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, sh); err != nil {
		return err
	}
	out := b.Bytes()
	if formatted, err := format.Source(out); err == nil {
		out = formatted // else the build says what is wrong
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o644)
}

// gradingPlan is what every student's grading copy takes from the
// instructor's checkout, read once.
type gradingPlan struct {
	Levels  []levels.Level
	modPath string
	// base holds every file of a grading copy but the learner's.
	base map[string][]byte
	// stubs holds each level's stubs as shipped, for a level not begun.
	stubs map[string][]byte
	// checked marks the files of base (tests, specs, shared code) whose
	// edits are noted, never used.
	checked map[string]bool
}

// newGradingPlan reads the instructor's checkout at root: the files git
// tracks (all, outside git), with each level's stubs from the commit that
// shipped them, so that a reference pasted over a stub is never used.
func newGradingPlan(root string) (*gradingPlan, error) {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		return nil, fmt.Errorf("run it from the ladder's top folder: %w", err)
	}
	names, inGit := instructorFiles(root)
	p := &gradingPlan{Levels: levels.All, modPath: modPath, base: map[string][]byte{}, stubs: map[string][]byte{}, checked: map[string]bool{}}
	levelFiles := map[int]map[string][]byte{} // level number → its files
	for _, n := range names {
		info, err := os.Lstat(filepath.Join(root, n))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted, or a symlink
		}
		data, err := os.ReadFile(filepath.Join(root, n))
		if err != nil {
			return nil, err
		}
		if lv, _ := levels.RoleOf(n); lv != 0 {
			if levelFiles[lv] == nil {
				levelFiles[lv] = map[string][]byte{}
			}
			levelFiles[lv][n] = data
		} else {
			p.base[n] = data
		}
	}
	for _, l := range p.Levels {
		files := levelFiles[l.Number]
		as, err := shipped.Level{}, errNotCheckout
		if inGit {
			as, err = shipped.Find(root, l)
		}
		if err != nil { // no history to go by: the working tree's stubs and shared files
			as = shipped.Level{Code: shipped.Classify(modPath, files), Files: files}
		}
		for _, s := range as.Code.Stubs {
			p.stubs[s] = as.Files[s]
		}
		for n, data := range files {
			shared := slices.Contains(as.Code.Shared, n)
			if l.HasRole(n, levels.Code) && !shared {
				continue // the instructor's own code: never graded
			}
			p.base[n] = data
			if _, role := levels.RoleOf(n); (shared || role == levels.Test || role == levels.Spec) && inStudentCopy(n) {
				p.checked[n] = true
			}
		}
	}
	return p, nil
}

// instructorFiles lists the files of root a grading copy may take: go.mod,
// go.sum, harness/ but its nested modules, and ladder/; those git tracks,
// or every file outside git.
func instructorFiles(root string) (names []string, inGit bool) {
	keep := func(n string) bool {
		return n == "go.mod" || n == "go.sum" || strings.HasPrefix(n, "harness/") || strings.HasPrefix(n, "ladder/")
	}
	var all []string
	if out, err := shipped.Git(root, "ls-files", "-z"); err == nil {
		inGit, all = true, strings.Split(out, "\x00")
	} else {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(root, p)
			if rel = filepath.ToSlash(rel); err == nil && d.IsDir() && rel != "." && !keep(rel+"/") {
				return filepath.SkipDir
			} else if err == nil && !d.IsDir() {
				all = append(all, rel)
			}
			return nil
		})
	}
	var nested []string // folders of nested modules, such as harness/plot, but a level's own
	for _, n := range all {
		dir := path.Dir(n)
		if path.Base(n) == "go.mod" && dir != "." && !slices.ContainsFunc(levels.All, func(l levels.Level) bool {
			return slices.ContainsFunc(l.Modules, func(m levels.Module) bool { return m.Dir == dir })
		}) {
			nested = append(nested, dir+"/")
		}
	}
	for _, n := range all {
		if keep(n) && !slices.ContainsFunc(nested, func(m string) bool { return strings.HasPrefix(n, m) }) {
			names = append(names, n)
		}
	}
	return names, inGit
}

var errNotCheckout = errors.New("not a rateladder checkout")

// What Build notes of a student's checkout, in the order of buildNotes.
const (
	testsEdited = iota
	sharedEdited
	modEdited
	symlinked
	notGraded
)

var buildNotes = [...]string{
	"tests edited: graded with the original tests (%s)",
	"%s edited: graded with the original",
	"%s edited: graded with the original",
	"symlinks ignored (%s)",
	"cgo, C and assembly not graded (%s)",
}

// Build writes into dest the grading copy of studentDir: the base files
// and the student's own code, without following a symlink. It returns
// notes on what the student changed that is not theirs to change. An
// empty studentDir gives the ladder as shipped. A level folder of more
// than maxLevelFiles files, or a file over maxStudentFile, is refused
// before it is read.
func (p *gradingPlan) Build(studentDir, dest string) (notes []string, err error) {
	if studentDir != "" {
		if info, err := os.Lstat(filepath.Join(studentDir, "ladder")); err != nil || !info.IsDir() {
			return nil, errNotCheckout
		}
		if info, err := os.Lstat(filepath.Join(studentDir, "go.mod")); err == nil && info.Size() > maxStudentFile {
			return nil, tooBig("go.mod", info.Size())
		}
	}
	write := func(name string, data []byte) error {
		target := filepath.Join(dest, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	}
	for n, data := range p.base {
		if err := write(n, data); err != nil {
			return nil, err
		}
	}
	var noted [len(buildNotes)][]string
	edited := func(n string) {
		if _, role := levels.RoleOf(n); role == levels.Test || role == levels.Spec {
			noted[testsEdited] = append(noted[testsEdited], n)
		} else {
			noted[sharedEdited] = append(noted[sharedEdited], n)
		}
	}
	for _, l := range p.Levels {
		levelDir := filepath.Join(studentDir, filepath.FromSlash(l.Dir))
		info, err := os.Lstat(levelDir)
		if studentDir == "" || err != nil || !info.IsDir() {
			// No folder (or a symlink): the level as shipped.
			for n, data := range p.stubs {
				if l.Holds(n) {
					if err := write(n, data); err != nil {
						return nil, err
					}
				}
			}
			if studentDir != "" && err == nil {
				noted[symlinked] = append(noted[symlinked], l.Dir)
			}
			continue
		}
		seen, files := map[string]bool{}, 0
		err = filepath.WalkDir(levelDir, func(fp string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if files++; files > maxLevelFiles {
				return fmt.Errorf("refused: %s holds more than %d files", TerminalText(l.Dir), maxLevelFiles)
			}
			rel, _ := filepath.Rel(studentDir, fp)
			n := filepath.ToSlash(rel)
			info, err := d.Info() // WalkDir's entries are Lstat's
			switch _, role := levels.RoleOf(n); {
			case err != nil:
				return err
			case info.Mode()&fs.ModeSymlink != 0 && (role == levels.Code || p.checked[n]):
				noted[symlinked] = append(noted[symlinked], n)
			case !info.Mode().IsRegular():
			case info.Size() > maxStudentFile:
				return tooBig(n, info.Size())
			case p.checked[n]:
				seen[n] = true
				if data, err := os.ReadFile(fp); err != nil || !bytes.Equal(data, p.base[n]) {
					edited(n)
				}
			case role == levels.Test || role == levels.Spec:
				// A test of their own is not run.
				if strings.HasSuffix(n, ".go") && inStudentCopy(n) {
					noted[testsEdited] = append(noted[testsEdited], n)
				}
			case role == levels.Code || (role == levels.Doc || role == levels.OtherFile) && p.base[n] == nil:
				// Their code, or a file beside it (a Lua script).
				data, err := os.ReadFile(fp)
				if err != nil || foreignCode(n, data) {
					noted[notGraded] = append(noted[notGraded], n)
					return err
				}
				return write(n, data)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for n := range p.checked {
			if l.Holds(n) && !seen[n] {
				edited(n)
			}
		}
	}
	if studentDir == "" {
		return nil, nil
	}
	for n, data := range p.base {
		if path.Base(n) == "go.mod" {
			if mod, err := os.ReadFile(filepath.Join(studentDir, filepath.FromSlash(n))); err == nil && !bytes.Equal(mod, data) {
				noted[modEdited] = append(noted[modEdited], n)
			}
		}
	}
	for i, names := range noted {
		if len(names) > 0 {
			notes = append(notes, fmt.Sprintf(buildNotes[i], SomeNames(names)))
		}
	}
	return notes, nil
}

// tooBig refuses a student's file of size bytes.
func tooBig(name string, size int64) error {
	s := fmt.Sprintf("%.1f MiB", float64(size)/(1<<20))
	if size >= 1<<30 {
		s = fmt.Sprintf("%.1f GiB", float64(size)/(1<<30))
	}
	return fmt.Errorf("refused: %s is %s, over the %d MiB the report reads of one file", TerminalText(name), s, maxStudentFile>>20)
}

// foreignCode reports whether a student's file brings code other than Go
// (cgo, C, assembly, objects), which the report does not build.
func foreignCode(name string, data []byte) bool {
	switch path.Ext(name) {
	case ".go":
		ips, err := shipped.Imports(name, data)
		return err == nil && slices.Contains(ips, "C")
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".s", ".S", ".sx", ".f", ".F", ".for", ".f90", ".syso", ".swig", ".swigcxx":
		return true
	}
	return false
}

// SomeNames lists a few names, sorted, and how many more there are.
func SomeNames(names []string) string {
	names = slices.Clone(names)
	for i, n := range names {
		names[i] = TerminalText(n)
	}
	sort.Strings(names)
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}
