// Package instructor holds the tools of whoever runs a class: the student
// copy, the class report (graded in a sandbox by a checker the students'
// code cannot reach), the GitHub Classroom workflow and the debrief.
package instructor

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
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
	modPath string
	// files holds every file a grading copy takes from the instructor's
	// checkout; own marks the instructor's code of the levels, which only
	// the warm-up builds.
	files    map[string][]byte
	own      map[string]bool
	tmp      string        // the report's temporary folder, with every sandbox
	cache    string        // the warm build cache each sandbox gets a copy of
	modProxy string        // the instructor's module download cache
	jail     *sandbox.Jail // nil with --no-sandbox
	redis    bool          // a nested module's runs (level 8's Redis form) get a redis-server
	checkers string        // levelN.test, a level's checker, and the go command's test2json
	Seed     uint64        // of the checkers' random timelines
}

// withRedisServer starts a redis-server on the sandbox's loopback, then runs its arguments.
//
//go:embed templates/with-redis-server.sh
var withRedisServer string

// NewGrader reads the instructor's checkout and builds, in a sandbox, its
// tests into the build cache every student's sandbox starts from (kept in
// cacheDir, if not ""), and the checkers. j nil means no sandbox; seed 0
// draws a seed for the random timelines.
func NewGrader(ctx context.Context, root, cacheDir string, j *sandbox.Jail, seed uint64) (_ *Grader, err error) {
	g, err := readCheckout(root)
	if err != nil {
		return nil, err
	}
	g.jail = j
	// A redis-server under /usr, which the jail shows.
	server, err := exec.LookPath("redis-server")
	_, errCLI := exec.LookPath("redis-cli")
	g.redis = j != nil && err == nil && errCLI == nil && sandbox.Within(server, "/usr")
	for _, l := range levels.All {
		for _, m := range l.Modules {
			// Each module's requirements, into the sandboxes' GOPROXY; a
			// level this checkout lacks has no folder.
			if out, err := grade.Plain.Command(ctx, filepath.Join(root, filepath.FromSlash(m.Dir)), "mod", "download").CombinedOutput(); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("go mod download in %s: %v\n%s", m.Dir, err, out)
			}
		}
	}
	out, err := grade.Plain.Command(ctx, root, "env", "GOMODCACHE").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMODCACHE: %v", err)
	}
	g.modProxy = filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
	if g.tmp, err = os.MkdirTemp("", "ladder-report-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			sandbox.RemoveAll(g.tmp)
		}
	}()
	g.cache, _ = filepath.Abs(cmp.Or(cacheDir, filepath.Join(g.tmp, "cache")))
	sb, err := sandbox.New(g.tmp, "warm-up", g.modProxy, j, false)
	if err != nil {
		return nil, err
	}
	defer sb.Remove()
	sb.GoCache = g.cache
	if err := os.MkdirAll(g.cache, 0o700); err != nil {
		return nil, err
	}
	if _, err := g.build("", sb.Src); err != nil {
		return nil, err
	}
	// Each run a grading makes, with no test: it builds and vets every
	// test binary as the grading does (-race too), and runs nothing.
	warm := grade.Runner{Command: func(_ context.Context, dir string, args ...string) *exec.Cmd {
		return sb.Command(dir, grade.GoTool(), args...)
	}, Run: setupRun}
	for _, r := range grade.LevelRuns(levels.All) {
		r.Run = "^$"
		if _, err := grade.RunGoTest(ctx, sb.Src, r, warm); err != nil {
			return nil, fmt.Errorf("building the tests of this checkout: %v", err)
		}
	}
	// The checkers: built where the sandbox may write, then moved out of
	// it. test2json turns a checker's output into go test -json.
	g.Seed, g.checkers = cmp.Or(seed, rand.Uint64()), filepath.Join(g.tmp, "checker")
	built := filepath.Join(sb.Dir, "checkers")
	builds := [][]string{{"build", "-o", filepath.Join(built, "test2json"), "cmd/test2json"}, {"test", "-c", "-o", built + string(filepath.Separator)}}
	for _, l := range levels.All {
		if _, err := os.Stat(filepath.Join(sb.Src, filepath.FromSlash(l.SpecDir(l.ModuleOf(1))))); err != nil {
			continue // a level this checkout lacks
		}
		pkg := fmt.Sprintf("harness/ladder-checker/level%d", l.Number) // under harness/, to import remote
		if err := writeSource(checkerSource, sb.Src, g.modPath, l, filepath.Join(pkg, "check_test.go")); err != nil {
			return nil, fmt.Errorf("writing the report's checker: %v", err)
		}
		builds[1] = append(builds[1], "./"+pkg)
	}
	for _, args := range builds {
		if err := setupRun(ctx, sb.Command(sb.Src, grade.GoTool(), args...)); err != nil {
			return nil, fmt.Errorf("building the report's checker: %v", err)
		}
	}
	return g, os.Rename(built, g.checkers)
}

// setupRun runs a command of the report's setup; its error tells what it printed.
func setupRun(ctx context.Context, cmd *exec.Cmd) error {
	var out bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout, cmd.Stderr = &out, &out
	}
	if stopped, err := sandbox.RunLimited(ctx, time.Hour, cmd); stopped || err != nil {
		return fmt.Errorf("%v\n%s", cmp.Or(err, errors.New("interrupted")), grade.FirstLines(out.String(), 20))
	}
	return nil
}

// Close deletes the report's temporary folder.
func (g *Grader) Close() { sandbox.RemoveAll(g.tmp) }

// Grade grades one student's checkout in a sandbox of its own.
func (g *Grader) Grade(ctx context.Context, i int, dir string, limit time.Duration) (res Result) {
	res.Name = filepath.Base(filepath.Clean(dir))
	res.Commit, res.Graded = headCommit(dir), time.Now()
	var notes []string
	defer func() { res.Err, res.Took = strings.Join(notes, "; "), time.Since(res.Graded) }()
	sb, err := sandbox.New(g.tmp, fmt.Sprintf("student-%03d", i), g.modProxy, g.jail, true)
	if err != nil {
		notes = append(notes, err.Error())
		return res
	}
	defer func() {
		// Read before Remove deletes the group.
		notes = append(notes, sb.Group.Hit()...)
		if err := sb.Remove(); err != nil {
			notes = append(notes, "its temporary folder could not be deleted: "+err.Error())
		}
	}()
	if notes, err = g.build(dir, sb.Src); err != nil {
		notes = append(notes, err.Error())
		return res
	}
	// The warm cache is read-only under the student's own.
	sb.ShareCache(g.cache)
	gr := &grading{Grader: g, sb: sb}
	runner := grade.Runner{
		Command: func(_ context.Context, dir string, args ...string) *exec.Cmd {
			if rel, _ := filepath.Rel(sb.Src, dir); g.redis && rel != "." && len(args) > 0 && args[0] == "test" {
				// As make test-level-8 REDIS=1: a server of the sandbox's own.
				cmd := sb.Command(dir, "sh", append([]string{"-c", withRedisServer, "sh", grade.GoTool()}, args...)...)
				cmd.Env = append(cmd.Env, "REDIS_ADDR=127.0.0.1:6379")
				return cmd
			}
			return sb.Command(dir, grade.GoTool(), args...)
		},
		Run: func(runCtx context.Context, cmd *exec.Cmd) error {
			s, err := sandbox.RunLimited(runCtx, limit, cmd)
			// A run the grading stopped itself (a flood, a leftover) is not the student's.
			if s && !(runCtx.Err() != nil && ctx.Err() == nil) {
				gr.stopped.Store(true)
			}
			return err
		},
		Judge: gr.judge,
	}
	gr.run = runner.Run
	grades, err := grade.Levels(ctx, sb.Src, levels.All, runner)
	switch {
	case gr.stopped.Load() && ctx.Err() != nil:
		notes = append(notes, "interrupted")
	case gr.stopped.Load():
		notes = append(notes, fmt.Sprintf("stopped after %v", limit))
	case err != nil:
		notes = append(notes, grade.FirstLines(err.Error(), 1))
	default:
		res.Levels = grade.Report(grades).Levels
		gr.summarize(grades, &res)
	}
	return res
}

// headCommit is the commit a student's checkout is on: rev-parse runs no
// hook and no fsmonitor of the student's config, and --git-dir keeps git
// from looking above the checkout.
func headCommit(dir string) string {
	id, err := shipped.Git(dir, "--git-dir="+filepath.Join(dir, ".git"), "rev-parse", "--verify", "-q", "HEAD")
	if id = strings.TrimSpace(id); err != nil || len(id) < 12 {
		return ""
	}
	return id[:12]
}

// seedEnv is the seed of a report's random timelines.
const seedEnv = "LADDER_VERDICT_SEED"

const refusedPrefix = "refused:" // a level's build error, refused for its imports

// inProcessCases lists, by part and name, the cases judged in process.
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

// grading is one student's checkout, in sb.Src.
type grading struct {
	*Grader
	sb      *sandbox.Sandbox
	run     func(context.Context, *exec.Cmd) error
	stopped atomic.Bool // a run was stopped: the grading counts for nothing
}

// judge returns the verdicts of one go test run: of the student's own
// binaries only the cases the spec marks InProcess; every other case is
// the checker's, built from the instructor's files alone, which plays it
// against the student's code in a child that only answers calls.
func (g *grading) judge(ctx context.Context, _ string, r grade.Run, own []*grade.Package) ([]*grade.Package, error) {
	if r.Module != "." || g.stopped.Load() {
		return own, nil // a nested module's (level 8's Redis form): judged in process, as the report marks it
	}
	out := own
	for _, l := range levels.All {
		inProc, built, found := inProcessCases(g.sb.Src, l), true, false
		for _, p := range own {
			if l.Holds(grade.RelDir(g.sb.Src, p.Dir)) {
				p.Cases = slices.DeleteFunc(p.Cases, func(e protocol.Event) bool { return e.Fuzz || !inProc[e.Part][e.Name] })
				built, found = built && p.BuildError == "", true
			}
		}
		if _, err := os.Stat(filepath.Join(g.checkers, fmt.Sprintf("level%d.test", l.Number))); err != nil || !found || !built {
			continue // no checker: a level the instructor's checkout lacks
		}
		p, err := g.check(ctx, l, r)
		if err != nil {
			return nil, err
		}
		// A case judged in process passes only as the student's binary says.
		out = append(out, p)
		p.Cases = slices.DeleteFunc(p.Cases, func(e protocol.Event) bool { return inProc[e.Part][e.Name] && e.Verdict == protocol.Pass })
	}
	return out, nil
}

// check runs the checker on level l's child, building it if need be.
func (g *grading) check(ctx context.Context, l levels.Level, r grade.Run) (*grade.Package, error) {
	levelDir := filepath.Join(g.sb.Src, filepath.FromSlash(l.Dir))
	res := &grade.Package{ImportPath: g.modPath + "/" + l.Dir + " (the report's checker)", Dir: levelDir, Parts: r.Parts}
	// Refused: a student's file of the level that imports a spec (its
	// model is an answer) or the grader's packages.
	var refused []string
	filepath.WalkDir(levelDir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(g.sb.Src, p)
		if rel = filepath.ToSlash(rel); err != nil || !l.HasRole(rel, levels.Code) {
			return nil
		}
		ips, _ := shipped.Imports(p, nil) // one that does not parse: the build says what is wrong
		for _, ip := range ips {
			imported, ok := strings.CutPrefix(ip, g.modPath+"/")
			if _, role := levels.RoleOf(imported); ok && (imported == "harness/timeline" || imported == "harness/mutation" ||
				strings.HasPrefix(imported, "harness/internal/") || role == levels.Spec) {
				refused = append(refused, fmt.Sprintf("%s imports %s", rel, ip))
			}
		}
		return nil
	})
	if len(refused) > 0 {
		res.BuildError = fmt.Sprintf("%s %s. A level's code may not import a spec (its model is an answer) or the grader's packages.", refusedPrefix, strings.Join(refused, "; "))
		return res, nil
	}
	// The child: the student's code, and what serves it to the checker.
	childBin := filepath.Join(g.sb.Dir, "children", l.Name())
	if _, err := os.Stat(childBin); err != nil { // else built for an earlier run of the level
		if err := writeSource(childSource, g.sb.Src, g.modPath, l, "harness/ladder-child/"+l.Name()+"/main.go"); err != nil {
			return nil, err
		}
		build := g.sb.Command(g.sb.Src, grade.GoTool(), "build", "-o", childBin, "./harness/ladder-child/"+l.Name())
		var out bytes.Buffer
		build.Stdout, build.Stderr = &out, &out
		if err := g.run(ctx, build); err != nil {
			res.BuildError = cmp.Or(grade.FirstLines(out.String(), 20), err.Error())
			return res, ctx.Err()
		}
	}
	child := g.sb.Command(levelDir, childBin)
	launch, _ := json.Marshal(protocol.Launch{Path: child.Path, Args: child.Args, Env: child.Env, Dir: child.Dir}) // strings only
	tests := fmt.Sprintf("^(TestLevel%d|FuzzLevel%d)$", l.Number, l.Number)
	if r.Run != "" {
		tests = fmt.Sprintf("^TestLevel%d$%s", l.Number, strings.TrimPrefix(r.Run, "^Test"))
	}
	args := []string{"-p", res.ImportPath, filepath.Join(g.checkers, fmt.Sprintf("level%d.test", l.Number)), "-test.v=test2json", "-test.run=" + tests, "-test.timeout=10m"}
	if r.Skip != "" {
		args = append(args, "-test.skip=^TestLevel"+strconv.Itoa(l.Number)+"$"+r.Skip)
	}
	cmd := exec.Command(filepath.Join(g.checkers, "test2json"), args...)
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
	grade.Read(g.sb.Src, &out, res)
	return res, nil
}

// summarize sets res.InProcess, by level, to the parts counted done that
// hold a case judged in the student's process, and res.RandomFailed.
func (g *grading) summarize(grades []grade.Level, res *Result) {
	res.InProcess = map[int][]int{}
	for _, lg := range grades {
		inProc := inProcessCases(g.sb.Src, lg.Level)
		for _, p := range lg.Parts {
			if p.Done && (len(inProc[p.Number]) > 0 || lg.Level.ModuleOf(p.Number).Dir != ".") {
				res.InProcess[lg.Level.Number] = append(res.InProcess[lg.Level.Number], p.Number)
			}
			for _, c := range p.Cases {
				res.RandomFailed = res.RandomFailed || c.Fuzz && c.Verdict != protocol.Pass && c.Verdict != protocol.NotImplemented
			}
		}
	}
}

// specShape is what a level's checker and child are written from, read
// from its spec with go/parser. The spec's Test (and Fuzz) is generic over
// an interface and takes a constructor of it, func Test[C Counter](t
// *testing.T, newCounter func(window time.Duration) C): the checker gives
// it a constructor of proxies, whose methods are the interface's and those
// of any interface the spec asserts to.
type specShape struct {
	levels.Level
	Mod, SeedEnv string
	Ctor         signature // New: the interface Test is generic over, and an error for level 8
	Methods      []signature
	Imports      map[string]string // the packages the proxies' types name, by name, but the spec
	// Sentinels are "viewerr.ErrNegativeViews", from SentinelImports (by path).
	Sentinels       []string
	SentinelImports map[string]string
}

// signature is a function's name and types, its parameters a0… and results r0….
type signature struct {
	Name            string
	Params, Results []string
}

// readShape reads the spec of level l in the checkout root.
func readShape(root, modPath string, l levels.Level) (*specShape, error) {
	dir := l.SpecDir(l.ModuleOf(1))
	names, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.go"))
	sh := &specShape{Level: l, Mod: modPath, SeedEnv: seedEnv, Imports: map[string]string{}, SentinelImports: map[string]string{}}
	ifaces, imports := map[string]*ast.InterfaceType{}, map[string]string{}
	var test *ast.FuncType
	var asserted []*ast.InterfaceType
	// fields returns the types of a parameter or result list, one a value
	// (the checker dot-imports the spec, whose types it names as the spec
	// does), and notes the packages they name but the spec.
	fields := func(fl *ast.FieldList) (out []string) {
		for _, f := range cmp.Or(fl, &ast.FieldList{}).List { // a method's Results may be nil
			t := types.ExprString(f.Type)
			for _, m := range qualified.FindAllStringSubmatch(t, -1) {
				if ip := imports[m[1]]; ip != "" {
					sh.Imports[m[1]] = ip
				}
			}
			for range max(1, len(f.Names)) {
				out = append(out, t)
			}
		}
		return out
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
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
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					ifaces[n.Name.Name] = it
				}
			case *ast.TypeAssertExpr:
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					asserted = append(asserted, it)
				}
			case *ast.SelectorExpr:
				// A sentinel: an Err variable of the level's packages.
				if x, ok := n.X.(*ast.Ident); ok && strings.HasPrefix(n.Sel.Name, "Err") {
					rel, inMod := strings.CutPrefix(imports[x.Name], modPath+"/")
					if name := x.Name + "." + n.Sel.Name; inMod && l.HasRole(rel+"/x.go", levels.Code) && !slices.Contains(sh.Sentinels, name) {
						sh.SentinelImports[imports[x.Name]] = x.Name
						sh.Sentinels = append(sh.Sentinels, name)
					}
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
				results[0] = cons.Name
				sh.Ctor = signature{"New", fields(ctor.Params), results} // every level's constructor
				asserted = append([]*ast.InterfaceType{ifaces[cons.Name]}, asserted...)
			}
		}
	}
	if sh.Ctor.Name == "" {
		return nil, fmt.Errorf("%s: no func Test[T Interface](t *testing.T, newT func(…) T) of one of the spec's interfaces", dir)
	}
	for _, it := range asserted {
		for _, m := range it.Methods.List {
			ft, ok := m.Type.(*ast.FuncType)
			if !ok {
				return nil, fmt.Errorf("%s: an interface embeds %s, which the report's proxies do not follow", dir, types.ExprString(m.Type))
			}
			if name := m.Names[0].Name; !slices.ContainsFunc(sh.Methods, func(s signature) bool { return s.Name == name }) {
				sh.Methods = append(sh.Methods, signature{name, fields(ft.Params), fields(ft.Results)})
			}
		}
	}
	return sh, nil
}

// qualified finds the package names in a type's text.
var qualified = regexp.MustCompile(`\b(\w+)\.`)

// The sources of a level's child, which serves the student's code, and checker.
var (
	//go:embed templates/child.go.tmpl
	childSource string
	//go:embed templates/checker.go.tmpl
	checkerSource string
)

// writeSource writes src, a template filled from level l's spec, into file rel of root.
func writeSource(src, root, modPath string, l levels.Level, rel string) error {
	sh, err := readShape(root, modPath, l)
	if err != nil {
		return err
	}
	t := template.Must(template.New("").Funcs(template.FuncMap{"join": func(s []string) string { return strings.Join(s, ", ") }}).Parse("// Written by the class report. DO NOT EDIT.\n\n" + src))
	var b bytes.Buffer
	if err := t.Execute(&b, sh); err != nil {
		return err
	}
	return writeFile(root, rel, b.Bytes(), 0o644)
}

// writeFile writes data into file rel of root, and the folders it needs.
func writeFile(root, rel string, data []byte, perm os.FileMode) error {
	file := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, data, perm)
}

// readCheckout reads from the instructor's checkout at root the files git
// tracks in go.mod, go.sum, harness/ and ladder/.
func readCheckout(root string) (*Grader, error) {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		return nil, fmt.Errorf("run it from the ladder's top folder: %w", err)
	}
	tracked, err := shipped.Git(root, "ls-files", "-z", "go.mod", "go.sum", "harness", "ladder")
	if err != nil {
		return nil, fmt.Errorf("the class report grades with a git checkout of the ladder: %w", err)
	}
	g := &Grader{modPath: modPath, files: map[string][]byte{}, own: map[string]bool{}}
	for _, n := range strings.Split(strings.TrimSuffix(tracked, "\x00"), "\x00") {
		info, err := os.Lstat(filepath.Join(root, n))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted, or a symlink
		}
		if g.files[n], err = os.ReadFile(filepath.Join(root, n)); err != nil {
			return nil, err
		}
	}
	shared := shipped.Classify(modPath, g.files).Shared
	for n := range g.files {
		if _, role := levels.RoleOf(n); role == levels.Code && !slices.Contains(shared, n) {
			g.own[n] = true // the instructor's own code: never graded
		}
	}
	return g, nil
}

// What build notes of a student's checkout, in this order.
const (
	testsEdited = "tests edited: graded with the original tests (%s)"
	edited      = "%s edited: graded with the original"
	notGraded   = "cgo, C and assembly not graded (%s)"
)

// build writes into dest the grading copy of studentDir ("" for the
// instructor's own code), following no symlink, and notes what the student
// changed that is not theirs. A level folder of over maxLevelFiles files,
// or a file over maxStudentFile, is refused before it is read.
func (g *Grader) build(studentDir, dest string) (notes []string, err error) {
	for n, data := range g.files {
		if studentDir == "" || !g.own[n] {
			if err := writeFile(dest, n, data, 0o644); err != nil {
				return nil, err
			}
		}
	}
	if studentDir == "" {
		return nil, nil
	}
	if info, err := os.Lstat(filepath.Join(studentDir, "ladder")); err != nil || !info.IsDir() {
		return nil, errors.New("not a rateladder checkout")
	}
	if info, err := os.Lstat(filepath.Join(studentDir, "go.mod")); err == nil && info.Size() > maxStudentFile {
		return nil, tooBig("go.mod", info.Size())
	}
	noted := map[string][]string{}
	note := func(what, n string) { noted[what] = append(noted[what], n) }
	for _, l := range levels.All {
		levelDir := filepath.Join(studentDir, filepath.FromSlash(l.Dir))
		if info, err := os.Lstat(levelDir); err != nil || !info.IsDir() {
			continue // no folder (or a symlink): no code of theirs
		}
		files := 0
		err := filepath.WalkDir(levelDir, func(fp string, d fs.DirEntry, err error) error {
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
			case !info.Mode().IsRegular(): // a symlink is not followed
			case info.Size() > maxStudentFile:
				return tooBig(n, info.Size())
			case g.files[n] != nil && !g.own[n] && inStudentCopy(n) && (role == levels.Code || role == levels.Test || role == levels.Spec):
				// The instructor's tests, specs and shared code: an edit is noted, never used.
				if data, err := os.ReadFile(fp); err != nil || !bytes.Equal(data, g.files[n]) {
					note(cmp.Or(cond(role == levels.Test || role == levels.Spec, testsEdited), edited), n)
				}
			case (role == levels.Test || role == levels.Spec) && strings.HasSuffix(n, ".go") && inStudentCopy(n):
				note(testsEdited, n) // a test of their own is not run
			case role == levels.Code || (role == levels.Doc || role == levels.OtherFile) && g.files[n] == nil:
				// Their code, or a file beside it (a Lua script).
				data, err := os.ReadFile(fp)
				if err != nil || foreignCode(n, data) {
					note(notGraded, n)
					return err
				}
				return writeFile(dest, n, data, 0o644)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for n, data := range g.files {
		if path.Base(n) == "go.mod" {
			if mod, err := os.ReadFile(filepath.Join(studentDir, filepath.FromSlash(n))); err == nil && !bytes.Equal(mod, data) {
				note(edited, n)
			}
		}
	}
	for _, what := range []string{testsEdited, edited, notGraded} {
		if len(noted[what]) > 0 {
			notes = append(notes, fmt.Sprintf(what, SomeNames(noted[what])))
		}
	}
	return notes, nil
}

// tooBig refuses a student's file of size bytes.
func tooBig(name string, size int64) error {
	return fmt.Errorf("refused: %s is %.1f MiB, over the %d MiB the report reads of one file", TerminalText(name), float64(size)/(1<<20), maxStudentFile>>20)
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
