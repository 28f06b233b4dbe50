package instructor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

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

// checked says whether the checker judges the parts in module m: a nested
// module's (level 8's Redis form) are judged by its own test binary.
func checked(m levels.Module) bool { return m.Dir == "." }

// seedEnv holds the seed of a report's random timelines.
const seedEnv = "LADDER_VERDICT_SEED"

// randomInputs is how many random timelines each level's fuzz target gets.
const randomInputs = 24

// checker is the report's checker binaries, by level, and the seed of
// their random timelines.
type checker struct {
	binaries  map[int]string
	test2json string // the go command's test2json, built with them
	Seed      uint64
}

// newChecker builds into dir a checker for each level the instructor's copy
// in sb has. seed 0 draws one.
func newChecker(ctx context.Context, sb *sandbox.Sandbox, dir string, lvs []levels.Level, seed uint64, run func(context.Context, *exec.Cmd) error) (*checker, error) {
	c := &checker{binaries: map[int]string{}, Seed: drawSeed(seed)}
	modPath, err := shipped.ModulePath(sb.Src)
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, l := range lvs {
		specDir := filepath.Join(sb.Src, filepath.FromSlash(l.SpecDir(l.ModuleOf(1))))
		if _, err := os.Stat(specDir); err != nil {
			continue
		}
		pkg := fmt.Sprintf("ladder-checker/level%d", l.Number)
		sh, err := readShape(sb.Src, modPath, l)
		if err == nil {
			err = sh.writeSource(proxySource, filepath.Join(specDir, proxyFile))
		}
		if err == nil {
			err = sh.writeSource(checkerSource, filepath.Join(sb.Src, pkg, "check_test.go"))
		}
		if err != nil {
			return nil, fmt.Errorf("writing the report's checker: %v", err)
		}
		pkgs = append(pkgs, "./"+pkg)
		c.binaries[l.Number] = filepath.Join(dir, fmt.Sprintf("level%d.test", l.Number))
	}
	if len(pkgs) == 0 {
		return c, nil
	}
	// Built where the sandbox may write, then moved to dir, which
	// outlives it. test2json turns a checker's output into go test -json.
	built := filepath.Join(sb.Dir, "checkers")
	c.test2json = filepath.Join(dir, "test2json")
	for _, args := range [][]string{
		append([]string{"test", "-c", "-o", built + string(filepath.Separator)}, pkgs...),
		{"build", "-o", filepath.Join(built, "test2json"), "cmd/test2json"},
	} {
		cmd := sb.Command(sb.Src, grade.GoTool(), args...)
		if err := run(ctx, cmd); err != nil {
			return nil, fmt.Errorf("building the report's checker: %v\n%s", err, cmdOutput(cmd))
		}
	}
	for _, bin := range append(slices.Collect(maps.Values(c.binaries)), c.test2json) {
		if err := os.Rename(filepath.Join(built, filepath.Base(bin)), bin); err != nil {
			return nil, fmt.Errorf("building the report's checker: %w", err)
		}
	}
	return c, nil
}

// cmdOutput is what a command run with runLimited printed.
func cmdOutput(cmd *exec.Cmd) string {
	var s string
	for _, w := range []any{cmd.Stdout, cmd.Stderr} {
		if b, ok := w.(interface{ String() string }); ok {
			s += b.String()
		}
	}
	return grade.FirstLines(s, 20)
}

// forbiddenImport says whether a student's code may not import ip: a spec
// (its model is an answer) or the grader's packages.
func forbiddenImport(modPath, ip string) bool {
	rel, ok := strings.CutPrefix(ip, modPath+"/")
	_, role := levels.RoleOf(rel)
	return ok && (rel == "harness/timeline" || rel == "harness/mutation" ||
		strings.HasPrefix(rel, "harness/internal/") || role == levels.Spec)
}

// refusedPrefix starts the build error of a level refused for its imports.
const refusedPrefix = "refused:"

// refusedImports lists the student's files of level l that import what
// forbiddenImport forbids.
func refusedImports(root, modPath string, l levels.Level) []string {
	var out []string
	filepath.WalkDir(filepath.Join(root, filepath.FromSlash(l.Dir)), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !l.HasRole(rel, levels.Code) {
			return nil
		}
		ips, err := shipped.Imports(p, nil)
		if err != nil {
			return nil // the build says what is wrong
		}
		for _, ip := range ips {
			if forbiddenImport(modPath, ip) {
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
	for _, cs := range grade.SpecLists(root, l) {
		for _, c := range cs {
			if c.InProcess != "" {
				if out[c.Part] == nil {
					out[c.Part] = map[string]bool{}
				}
				out[c.Part][c.Name] = true
			}
		}
	}
	return out
}

// judge returns the verdicts of one go test run: of the student's own
// binaries only the cases judged in process, then the checker's.
func (c *checker) judge(ctx context.Context, sb *sandbox.Sandbox, run func(context.Context, *exec.Cmd) error, root string, r grade.Run, own []*grade.Package) ([]*grade.Package, error) {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		return nil, err
	}
	var out []*grade.Package
	for _, l := range levels.All {
		var m levels.Module
		for _, mod := range l.Modules {
			if mod.Dir == r.Module && slices.Contains(r.Patterns, l.Patterns()[mod.Dir]) {
				m = mod
			}
		}
		if m.Dir == "" {
			continue
		}
		var pkgs []*grade.Package
		for _, p := range own {
			if l.Holds(grade.RelDir(root, p.Dir)) {
				pkgs = append(pkgs, p)
			}
		}
		if !checked(m) || c.binaries[l.Number] == "" {
			out = append(out, pkgs...) // judged in process, as the report marks it
			continue
		}
		inProc := inProcessCases(root, l)
		built := true
		for _, p := range pkgs {
			p.Cases = slices.DeleteFunc(p.Cases, func(e protocol.Event) bool { return e.Fuzz || !inProc[e.Part][e.Case] })
			if p.BuildError != "" {
				built = false
			}
			out = append(out, p)
		}
		if !built || len(pkgs) == 0 {
			continue
		}
		p, err := c.Check(ctx, sb, run, root, modPath, l, r)
		if err != nil {
			return nil, err
		}
		// A case judged in process passes only as the student's binary
		// reports it.
		p.Cases = slices.DeleteFunc(p.Cases, func(e protocol.Event) bool { return inProc[e.Part][e.Case] && e.Verdict == protocol.Pass })
		out = append(out, p)
	}
	return out, nil
}

// writeChild writes level l's child into root, and returns its package.
func writeChild(root, modPath string, l levels.Level) (string, error) {
	sh, err := readShape(root, modPath, l)
	if err != nil {
		return "", err
	}
	return "./ladder-child/" + l.Name(), sh.writeSource(childSource, filepath.Join(root, "ladder-child", l.Name(), "main.go"))
}

// buildChildren builds the children of lvs in one go build. One that does
// not build is built again by Check, for its own error message.
func (c *checker) buildChildren(ctx context.Context, sb *sandbox.Sandbox, run func(context.Context, *exec.Cmd) error, root string, lvs []levels.Level) error {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		return err
	}
	var pkgs []string
	for _, l := range lvs {
		if c.binaries[l.Number] == "" {
			continue
		}
		pkg, err := writeChild(root, modPath, l)
		if err != nil {
			return err
		}
		pkgs = append(pkgs, pkg)
	}
	if len(pkgs) == 0 {
		return nil
	}
	dir := filepath.Join(sb.Dir, "children")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	build := sb.Command(root, grade.GoTool(), append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	build.Env = append(build.Env, "CGO_ENABLED=0")
	run(ctx, build) // what failed is built again by Check
	return ctx.Err()
}

// Check runs the checker on level l's child, building it if need be.
func (c *checker) Check(ctx context.Context, sb *sandbox.Sandbox, run func(context.Context, *exec.Cmd) error, root, modPath string, l levels.Level, r grade.Run) (*grade.Package, error) {
	levelDir := filepath.Join(root, filepath.FromSlash(l.Dir))
	res := &grade.Package{ImportPath: modPath + "/" + l.Dir + " (the report's checker)", Dir: levelDir, Parts: r.Parts}
	if refused := refusedImports(root, modPath, l); len(refused) > 0 {
		res.BuildError = fmt.Sprintf("%s %s. A level's code may not import a spec (its model is an answer) or the grader's packages.", refusedPrefix, strings.Join(refused, "; "))
		return res, nil
	}
	childBin := filepath.Join(sb.Dir, "children", l.Name())
	if runtime.GOOS == "windows" {
		childBin += ".exe"
	}
	if _, err := os.Stat(childBin); err != nil {
		pkg, err := writeChild(root, modPath, l)
		if err != nil {
			return nil, err
		}
		build := sb.Command(root, grade.GoTool(), "build", "-o", childBin, pkg)
		build.Env = append(build.Env, "CGO_ENABLED=0")
		if err := run(ctx, build); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.BuildError = cmdOutput(build)
			if res.BuildError == "" {
				res.BuildError = err.Error()
			}
			return res, nil
		}
	}
	launch, err := json.Marshal(protocol.LaunchOf(sb.Command(levelDir, childBin)))
	if err != nil {
		return nil, err
	}
	tests := fmt.Sprintf("^(TestLevel%d|FuzzLevel%d)$", l.Number, l.Number)
	if r.Run != "" {
		tests = fmt.Sprintf("^TestLevel%d$%s", l.Number, strings.TrimPrefix(r.Run, "^Test"))
	}
	args := []string{"-p", res.ImportPath, c.binaries[l.Number], "-test.v=test2json", "-test.run=" + tests, "-test.timeout=10m"}
	if r.Skip != "" {
		args = append(args, "-test.skip=^TestLevel"+strconv.Itoa(l.Number)+"$"+r.Skip)
	}
	cmd := sandbox.PinnedTo(sb.Slot, exec.Command(c.test2json, args...))
	cmd.Dir = levelDir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + os.TempDir(),
		protocol.LaunchEnv + "=" + string(launch),
		seedEnv + "=" + strconv.FormatUint(c.Seed, 10),
		protocol.GradeEnv + "=1",
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	// Failing cases exit 1: the output says the rest.
	if run(ctx, cmd) != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	grade.Read(root, &out, res)
	return res, nil
}

// inProcessLevels returns, by level, the parts counted done that hold a
// case judged in the student's process.
func (c *checker) inProcessLevels(root string, grades []grade.Level) map[int][]int {
	out := map[int][]int{}
	for _, g := range grades {
		inProc := inProcessCases(root, g.Level)
		for _, p := range g.Parts {
			m := g.Level.ModuleOf(p.Number)
			if p.Done && (len(inProc[p.Number]) > 0 || !checked(m) || c.binaries[g.Level.Number] == "") {
				out[g.Level.Number] = append(out[g.Level.Number], p.Number)
			}
		}
	}
	return out
}
