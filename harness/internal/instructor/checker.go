package instructor

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// The class report keeps, of what the student's test binary reports, only
// the cases the spec marks InProcess; every other case is played by a
// checker built from the instructor's files alone, against the student's
// code in a child that only answers calls (package harness/remote).

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
		pkg := fmt.Sprintf("ladder-checker/level%d", l.Number)
		sh, err := readShape(sb.Src, plan.modPath, l)
		if err == nil {
			err = sh.writeSource(proxySource, filepath.Join(specDir, proxyFile))
		}
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
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n", checkerSource, childSource, proxySource, toolchain)
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
				err = sh.writeSource(childSource, filepath.Join(g.root, "ladder-child", l.Name(), "main.go"))
			}
			if err != nil {
				return "", err
			}
			args = append(args, "./ladder-child/"+l.Name())
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
	cmd := sandbox.PinnedTo(g.sb.Slot, exec.Command(filepath.Join(g.dir, "test2json"), args...))
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
