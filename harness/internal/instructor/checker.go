package instructor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
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

// The class report decides each case outside the student's process. The
// student's test binary still runs, sandboxed, as in make test-level-N, but
// of what it reports the report keeps only the cases the spec marks
// InProcess (allocations, memory, the race detector): everything else is
// played by a checker, a test binary built once per report from the
// instructor's files alone (the harness and the level's spec), against the
// student's code in a child that only answers calls (package
// harness/remote). A part done with a case judged in process is marked in
// the report.

// checked says whether the checker judges the parts of level l that live
// in module m: those of the root module. A nested module's (level 8's
// Redis form) are judged by its own test binary, and the report marks
// them so.
func checked(m levels.Module) bool { return m.Dir == "." }

// seedEnv names the environment variable that holds the seed of a
// report's random timelines, drawn afresh for each report.
const seedEnv = "LADDER_VERDICT_SEED"

// randomInputs is how many random timelines each level's fuzz decoder
// makes for one report, besides its seeds.
const randomInputs = 24

// childSource is the main of the child that serves the student's level
// to the checker: {{MOD}}, {{DIR}}, {{IMPORTS}}, {{CONSTRUCTOR}} and
// {{SENTINELS}} are filled in by levelSource. Plain replacement rather
// than text/template, which would bring net/url into the command's first
// Build.
const childSource = `// Written by the class report: the child that serves the student's level
// to the checker. DO NOT EDIT.

package main

import (
	level "{{MOD}}/{{DIR}}"{{IMPORTS}}
	"{{MOD}}/harness/remote"
)

func main() {
	remote.Main(map[string]any{"{{CONSTRUCTOR}}": level.{{CONSTRUCTOR}}}, {{SENTINELS}})
}
`

// checkerSource is the checker of one level, which plays the spec's cases
// against the student's child; filled in as childSource is, with
// {{NUMBER}}, {{SEEDENV}}, {{RANDOM}} and {{PROXY}} too.
const checkerSource = `// Written by the class report: the checker of level {{NUMBER}}, which
// plays the spec's cases against the student's child. DO NOT EDIT.

package level{{NUMBER}}

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"{{MOD}}/harness/remote"
	"{{MOD}}/harness/timeline"
	"{{MOD}}/{{DIR}}/spec"{{IMPORTS}}
)

func TestLevel{{NUMBER}}(t *testing.T) { spec.Test(t, newProxies(open(t))) }

func FuzzLevel{{NUMBER}}(f *testing.F) {
	seed, err := strconv.ParseUint(os.Getenv("{{SEEDENV}}"), 10, 64)
	if err != nil {
		f.Fatal("{{SEEDENV}}: ", err)
	}
	rng := rand.New(rand.NewPCG(seed, {{NUMBER}}))
	for range {{RANDOM}} {
		data := make([]byte, 16+rng.IntN(240))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		f.Add(data)
	}
	spec.Fuzz(f, newProxies(open(f)))
}

func open(tb testing.TB) *remote.Conn {
	conn, err := remote.Open({{SENTINELS}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(conn.Close)
	// The calls run in the child: a case is judged by their CPU time
	// there, and the checker's, on a machine busy with other work, and
	// without the probes only the child could measure.
	timeline.PlayElsewhere(conn.CPU)
	return conn
}
{{PROXY}}`

// levelSource writes a level's child or checker from its source above and
// the shape of its spec, read from the checkout root.
func levelSource(src, root, modPath string, l levels.Level) ([]byte, error) {
	sh, err := readShape(root, modPath, l)
	if err != nil {
		return nil, err
	}
	imports := sh.sentinelImports
	if src == checkerSource {
		imports = maps.Clone(sh.imports)
		maps.Copy(imports, sh.sentinelImports)
		for _, p := range []string{"math/rand/v2", "os", "strconv", "testing", modPath + "/harness/remote", modPath + "/harness/timeline"} {
			delete(imports, p)
		}
	}
	var imps strings.Builder
	for _, p := range slices.Sorted(maps.Keys(imports)) {
		fmt.Fprintf(&imps, "\n\t%s %q", imports[p], p)
	}
	out := []byte(strings.NewReplacer(
		"{{MOD}}", modPath, "{{DIR}}", l.Dir, "{{IMPORTS}}", imps.String(),
		"{{CONSTRUCTOR}}", constructor, "{{SENTINELS}}", strings.Join(sh.sentinels, ", "),
		"{{NUMBER}}", fmt.Sprint(l.Number), "{{SEEDENV}}", seedEnv,
		"{{RANDOM}}", fmt.Sprint(randomInputs), "{{PROXY}}", proxySource(sh),
	).Replace(src))
	if formatted, err := format.Source(out); err == nil {
		out = formatted // else the build says what is wrong
	}
	return out, nil
}

// Checker is the report's checker binaries, by level, and the seed of
// their random timelines.
type checker struct {
	binaries  map[int]string
	test2json string // the go command's test2json, built with them
	Seed      uint64
}

// newChecker builds a checker for each level the checker judges into dir,
// from the instructor's copy in sb, which holds no student's code. A level
// the instructor's checkout does not have gets none. seed is the seed of
// the random timelines; 0 draws one.
func newChecker(ctx context.Context, sb *sandbox.Sandbox, dir string, lvs []levels.Level, seed uint64, run func(context.Context, *exec.Cmd) error) (*checker, error) {
	c := &checker{binaries: map[int]string{}, Seed: drawSeed(seed)}
	modPath, err := shipped.ModulePath(sb.Src)
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, l := range lvs {
		if _, err := os.Stat(filepath.Join(sb.Src, filepath.FromSlash(l.SpecDir(l.ModuleOf(1))))); err != nil {
			continue
		}
		pkg := fmt.Sprintf("ladder-checker/level%d", l.Number)
		if err := os.MkdirAll(filepath.Join(sb.Src, pkg), 0o755); err != nil {
			return nil, err
		}
		src, err := levelSource(checkerSource, sb.Src, modPath, l)
		if err != nil {
			return nil, fmt.Errorf("writing the report's checker: %v", err)
		}
		if err := os.WriteFile(filepath.Join(sb.Src, pkg, "check_test.go"), src, 0o644); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, "./"+pkg)
		c.binaries[l.Number] = filepath.Join(dir, fmt.Sprintf("level%d.test", l.Number))
	}
	if len(pkgs) == 0 {
		return c, nil
	}
	// Built into the sandbox's own folder, the one it may write, then
	// moved out of it to dir, which outlives the sandbox. test2json, the
	// go command's, turns a checker's output into go test -json, which
	// the grader reads as it reads a learner's run.
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

// forbiddenImport says whether ip is one of the packages a student's code may not import in the
// report: a spec holds the level's model, which would be an answer, and the
// runner and the mutation checks are the grader's.
func forbiddenImport(modPath, ip string) bool {
	rel, ok := strings.CutPrefix(ip, modPath+"/")
	_, role := levels.RoleOf(rel)
	return ok && (rel == "harness/timeline" || rel == "harness/mutation" ||
		strings.HasPrefix(rel, "harness/internal/") || role == levels.Spec)
}

// refusedPrefix starts the build error of a level refused for what its
// code imports; the report's cell then reads "refused".
const refusedPrefix = "refused:"

// refusedImports lists the student's files of level l, in the grading copy
// root, that import what forbiddenImport forbids.
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

// inProcessCases reads, from the instructor's list of a spec's cases, the
// cases judged in the student's process, by part and name.
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

// judge returns the verdicts of one go test run of a student's grading
// copy root: of the student's own test binaries, only the cases judged in
// process, and for every level the checker knows, the checker's verdicts.
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
		// A case judged in process with steps too: the checker plays the
		// steps, and its pass waits for the student's binary to report
		// the case as well. A case that binary skipped then never reports,
		// and its part is not done.
		p.Cases = slices.DeleteFunc(p.Cases, func(e protocol.Event) bool { return inProc[e.Part][e.Case] && e.Verdict == protocol.Pass })
		out = append(out, p)
	}
	return out, nil
}

// childBinary is where level l's child is built, in the sandbox's own
// folder: outside the grading copy, which the sandbox makes read-only.
func childBinary(sb *sandbox.Sandbox, l levels.Level) string {
	name := l.Name()
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(sb.Dir, "children", name)
}

// writeChild writes level l's child into the grading copy root, and
// returns its package.
func writeChild(root, modPath string, l levels.Level) (string, error) {
	childDir := filepath.Join(root, "ladder-child", l.Name())
	if err := os.MkdirAll(childDir, 0o755); err != nil {
		return "", err
	}
	src, err := levelSource(childSource, root, modPath, l)
	if err != nil {
		return "", err
	}
	return "./ladder-child/" + l.Name(), os.WriteFile(filepath.Join(childDir, "main.go"), src, 0o644)
}

// buildChildren builds the children of the levels lvs that the checker
// judges, in one go build: it loads the module once and links them side
// by side. A child that does not build is left out, and Check builds it
// again alone, for its own error message. Building runs none of the
// student's code: Check still refuses a level's forbidden imports before
// it runs a child.
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

// Check runs the checker on level l's child, built in the grading copy
// root, in the sandbox: by buildChildren, or here.
func (c *checker) Check(ctx context.Context, sb *sandbox.Sandbox, run func(context.Context, *exec.Cmd) error, root, modPath string, l levels.Level, r grade.Run) (*grade.Package, error) {
	levelDir := filepath.Join(root, filepath.FromSlash(l.Dir))
	res := &grade.Package{ImportPath: modPath + "/" + l.Dir + " (the report's checker)", Dir: levelDir, Parts: r.Parts}
	if refused := refusedImports(root, modPath, l); len(refused) > 0 {
		res.BuildError = fmt.Sprintf("%s %s. A level's code may not import a spec (its model is an answer) or the grader's packages.", refusedPrefix, strings.Join(refused, "; "))
		return res, nil
	}
	childBin := childBinary(sb, l)
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
		// A unit of some parts: "^Test/^part_3$" names them.
		tests = fmt.Sprintf("^TestLevel%d$%s", l.Number, strings.TrimPrefix(r.Run, "^Test"))
	}
	// test2json turns the checker's output into go test -json, which the
	// grader reads as it reads a learner's run.
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
	if err := run(ctx, cmd); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Failing cases make it exit 1: its output says the rest.
	}
	grade.Read(root, &out, res)
	return res, nil
}

// inProcessLevels returns, by level, the parts counted done that hold a
// case judged in the student's process, by the instructor's lists of
// cases in root.
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
