// Package instructor holds the tools of whoever runs a class: the student
// copy (a checkout without solutions/ and without anything that solves a
// level), the class report (every student's checkout graded in a sandbox,
// its verdicts decided by a checker the students' code cannot reach), the
// GitHub Classroom workflow, the class's known mistakes and the debrief.
package instructor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// gradingPlan is what every student's grading copy takes from the
// instructor's checkout, read once.
type gradingPlan struct {
	Levels []levels.Level
	// base holds every file of a grading copy but the learner's: go.mod,
	// go.sum, harness/ (without nested modules), and each level's README,
	// hints, tests, spec, shared files (such as level 8's limits/) and
	// nested modules' go.mod and go.sum (level 8's Redis form).
	base map[string][]byte
	// stubs holds each level's stubs as shipped, for a student who has no
	// folder for the level.
	stubs map[string][]byte
	// checked marks the files of base a student's copy is compared with:
	// tests, specs and shared code. A difference is noted, never used.
	checked map[string]bool
}

// newGradingPlan reads the instructor's checkout at root. Files come from
// the working tree, but only those git tracks (all, outside git). A
// level's stubs come from the commit that shipped them (see findShipped),
// so a reference pasted over the instructor's own stub is never used.
func newGradingPlan(root string) (*gradingPlan, error) {
	modPath, err := shipped.ModulePath(root)
	if err != nil {
		return nil, fmt.Errorf("run it from the ladder's top folder: %w", err)
	}
	names, inGit := instructorFiles(root)
	p := &gradingPlan{Levels: levels.All, base: map[string][]byte{}, stubs: map[string][]byte{}, checked: map[string]bool{}}
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
		if lv, role := levels.RoleOf(n); lv != 0 && role != levels.Reference {
			if levelFiles[lv] == nil {
				levelFiles[lv] = map[string][]byte{}
			}
			levelFiles[lv][n] = data
			continue
		}
		p.base[n] = data
	}
	for _, l := range p.Levels {
		files := levelFiles[l.Number]
		shared := map[string]bool{}
		var as shipped.Level
		if inGit {
			as, err = shipped.Find(root, l)
		}
		if !inGit || err != nil {
			// No history to go by: the working tree's stubs and shared files.
			code := shipped.Classify(modPath, files)
			as = shipped.Level{Code: code, Files: map[string][]byte{}}
			for _, s := range append(append([]string{}, code.Stubs...), code.Shared...) {
				as.Files[s] = files[s]
			}
		}
		for _, s := range as.Code.Shared {
			shared[s] = true
		}
		for _, s := range as.Code.Stubs {
			p.stubs[s] = as.Files[s]
		}
		for n, data := range files {
			switch {
			case l.HasRole(n, levels.Code) && !shared[n]:
				// The learner's, or the instructor's own code: never graded.
			default:
				p.base[n] = data
				// A file a student copy never holds (a spec's own test)
				// is no edit when it is missing.
				if (shared[n] || isTestOrSpec(n)) && inStudentCopy(n) {
					p.checked[n] = true
				}
			}
		}
	}
	return p, nil
}

// instructorFiles lists the files of root a grading copy may take: go.mod,
// go.sum, harness/ but its nested modules, and ladder/, with the levels'
// nested modules (level 8's Redis form) and their go.mod and go.sum. They
// are the files git tracks, or every file outside git.
func instructorFiles(root string) (names []string, inGit bool) {
	var all []string
	if out, err := shipped.Git(root, "ls-files", "-z"); err == nil {
		inGit = true
		all = strings.Split(out, "\x00")
	} else {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() && (d.Name() == ".git" || rel == learner.StateDir || rel == "solutions" || rel == "plots") {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				all = append(all, rel)
			}
			return nil
		})
	}
	levelModule := map[string]bool{} // a level's nested module is graded as one
	for _, l := range levels.All {
		for _, m := range l.Modules {
			levelModule[m.Dir] = true
		}
	}
	var nested []string // folders of other nested modules, such as harness/plot
	for _, n := range all {
		if path.Base(n) == "go.mod" && n != "go.mod" && !levelModule[path.Dir(n)] {
			nested = append(nested, path.Dir(n)+"/")
		}
	}
	for _, n := range all {
		if n == "" {
			continue
		}
		keep := n == "go.mod" || n == "go.sum" || strings.HasPrefix(n, "harness/") || strings.HasPrefix(n, "ladder/")
		for _, m := range nested {
			if strings.HasPrefix(n, m) {
				keep = false
			}
		}
		if keep {
			names = append(names, n)
		}
	}
	return names, inGit
}

// isTestOrSpec reports whether the file p of a level is a test or part of
// the spec.
func isTestOrSpec(p string) bool {
	_, role := levels.RoleOf(p)
	return role == levels.Test || role == levels.Spec
}

var errNotCheckout = errors.New("not a rateladder checkout")

// Build writes the grading copy of the student checkout studentDir into
// dest: the plan's base files, with the student's own code in each level
// (the stubs as shipped where the student has no folder for the level).
// It returns notes for the report on what the student changed that is not
// theirs to change. It reads the student's folder without following a
// symlink. An empty studentDir gives the ladder as shipped.
func (p *gradingPlan) Build(studentDir, dest string) (notes []string, err error) {
	if studentDir != "" {
		if info, err := os.Lstat(filepath.Join(studentDir, "ladder")); err != nil || !info.IsDir() {
			return nil, errNotCheckout
		}
	}
	if err := p.tooBig(studentDir); err != nil {
		return nil, err
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
	var testsEdited, sharedEdited, symlinks, notGraded []string
	for _, l := range p.Levels {
		levelDir := ""
		var info fs.FileInfo
		var err error
		if studentDir != "" {
			levelDir = filepath.Join(studentDir, filepath.FromSlash(l.Dir))
			info, err = os.Lstat(levelDir)
		}
		if levelDir == "" || err != nil || !info.IsDir() {
			// No folder for the level (or a symlink in its place): the
			// level as shipped, not started.
			for n, data := range p.stubs {
				if l.Holds(n) {
					if err := write(n, data); err != nil {
						return nil, err
					}
				}
			}
			if levelDir != "" && err == nil {
				symlinks = append(symlinks, l.Dir)
			}
			continue
		}
		seen := map[string]bool{}
		inBase := func(n string) bool { _, ok := p.base[n]; return ok }
		err = filepath.WalkDir(levelDir, func(fp string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(studentDir, fp)
			n := filepath.ToSlash(rel)
			if !d.Type().IsRegular() {
				if d.Type()&fs.ModeSymlink != 0 && (l.HasRole(n, levels.Code) || p.checked[n]) {
					symlinks = append(symlinks, n)
				}
				return nil
			}
			switch {
			case p.checked[n]:
				seen[n] = true
				data, err := os.ReadFile(fp)
				if err != nil || !bytes.Equal(data, p.base[n]) {
					if isTestOrSpec(n) {
						testsEdited = append(testsEdited, n)
					} else {
						sharedEdited = append(sharedEdited, n)
					}
				}
			case isTestOrSpec(n):
				// A test file of their own is not run; a spec's own test,
				// which no student copy holds, is not a student's at all.
				if strings.HasSuffix(n, ".go") && inStudentCopy(n) {
					testsEdited = append(testsEdited, n)
				}
			case l.HasRole(n, levels.Code) || ownFile(n) && !inBase(n):
				// Their code, or a file of their own beside it, such as
				// a Lua script their Redis form embeds.
				data, err := os.ReadFile(fp)
				if err != nil {
					return err
				}
				if foreignCode(n, data) {
					notGraded = append(notGraded, n)
					return nil
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
				if isTestOrSpec(n) {
					testsEdited = append(testsEdited, n)
				} else {
					sharedEdited = append(sharedEdited, n)
				}
			}
		}
	}
	if studentDir == "" {
		return nil, nil
	}
	if len(testsEdited) > 0 {
		notes = append(notes, "tests edited: graded with the original tests ("+SomeNames(testsEdited)+")")
	}
	if len(sharedEdited) > 0 {
		notes = append(notes, SomeNames(sharedEdited)+" edited: graded with the original")
	}
	var mods []string
	for n, data := range p.base {
		if path.Base(n) == "go.mod" {
			if mod, err := os.ReadFile(filepath.Join(studentDir, filepath.FromSlash(n))); err == nil && !bytes.Equal(mod, data) {
				mods = append(mods, n)
			}
		}
	}
	if len(mods) > 0 {
		notes = append(notes, SomeNames(mods)+" edited: graded with the original")
	}
	if len(symlinks) > 0 {
		notes = append(notes, "symlinks ignored ("+SomeNames(symlinks)+")")
	}
	if len(notGraded) > 0 {
		notes = append(notes, "cgo, C and assembly not graded ("+SomeNames(notGraded)+")")
	}
	return notes, nil
}

// tooBig refuses a student checkout whose level folders hold a file over
// maxStudentFile, or more than maxLevelFiles files, before Build reads any
// of it. A sparse file counts by its size.
func (p *gradingPlan) tooBig(studentDir string) error {
	if studentDir == "" {
		return nil
	}
	if info, err := os.Lstat(filepath.Join(studentDir, "go.mod")); err == nil && info.Size() > maxStudentFile {
		return fmt.Errorf("refused: go.mod is %s, over the %d MiB the report reads of one file", sizeOf(info.Size()), maxStudentFile>>20)
	}
	for _, l := range p.Levels {
		levelDir := filepath.Join(studentDir, filepath.FromSlash(l.Dir))
		files := 0
		var refusal error
		filepath.WalkDir(levelDir, func(fp string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil // Build says what it makes of it
			}
			if files++; files > maxLevelFiles {
				refusal = fmt.Errorf("refused: %s holds more than %d files", TerminalText(l.Dir), maxLevelFiles)
				return filepath.SkipAll
			}
			info, err := d.Info() // WalkDir's entries are Lstat's
			if err == nil && info.Mode().IsRegular() && info.Size() > maxStudentFile {
				rel, _ := filepath.Rel(studentDir, fp)
				refusal = fmt.Errorf("refused: %s is %s, over the %d MiB the report reads of one file", TerminalText(filepath.ToSlash(rel)), sizeOf(info.Size()), maxStudentFile>>20)
				return filepath.SkipAll
			}
			return nil
		})
		if refusal != nil {
			return refusal
		}
	}
	return nil
}

// sizeOf writes a file's size in MiB, or GiB from 1 GiB.
func sizeOf(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// ownFile reports whether p, a file of a level that is not Go code, may
// be the student's own: anything but the module files, which are the
// instructor's, and test data and specs, which only tests read.
func ownFile(p string) bool {
	_, role := levels.RoleOf(p)
	return role == levels.Doc || role == levels.OtherFile
}

// foreignCode reports whether a student's file brings code the go command
// would build other than Go: a Go file that imports "C" (cgo), or C,
// assembly or an object file. The report builds none of it: cgo is off,
// but for the race detector, which needs it for the runtime's own C.
func foreignCode(name string, data []byte) bool {
	switch path.Ext(name) {
	case ".go":
		ips, err := shipped.Imports(name, data)
		// A file that does not parse does not build either way.
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

// Grader grades students' checkouts for one class report.
type Grader struct {
	plan     *gradingPlan
	Tmp      string        // the report's temporary folder, with every sandbox
	cache    string        // the warm build cache each sandbox gets a copy of
	modProxy string        // the instructor's module download cache
	Jail     *sandbox.Jail // nil with --no-sandbox
	// redisServer is redis-server, when it is installed where a sandbox
	// sees it (under /usr): each go test run of a student's in a module
	// of redisModules then has one.
	redisServer  string
	redisModules map[string]bool
	Checker      *checker
}

// withRedisServer is a shell script that starts a redis-server on port
// 6379 of the sandbox's own loopback, without persistence, waits until it
// answers, and runs its arguments.
const withRedisServer = `redis-server --bind 127.0.0.1 --port 6379 --save '' --appendonly no --daemonize yes --dir "$TMPDIR" --logfile "$TMPDIR/redis.log" >/dev/null || exit 1
i=0
while [ $i -lt 100 ] && ! redis-cli -p 6379 ping >/dev/null 2>&1; do i=$((i+1)); sleep 0.05; done
exec "$@"`

// NewGrader reads the instructor's checkout and builds its tests once with
// the stubs as shipped, in a sandbox, into the build cache every student's
// sandbox starts from. cacheDir keeps that cache between reports; "" puts
// it in the report's temporary folder. j is the sandbox, nil for none.
// Seed is the seed of the checker's random timelines, 0 for a new one.
func NewGrader(ctx context.Context, root, cacheDir string, j *sandbox.Jail, seed uint64) (*Grader, error) {
	plan, err := newGradingPlan(root)
	if err != nil {
		return nil, err
	}
	modProxy, toolchain, err := instructorModProxy(root, plan.Levels)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "ladder-report-")
	if err != nil {
		return nil, err
	}
	g := &Grader{plan: plan, Tmp: tmp, cache: cacheDir, modProxy: modProxy, Jail: j, redisModules: map[string]bool{}}
	for _, l := range plan.Levels {
		for _, m := range l.Modules {
			// A module's run needs the server if one of its cases does.
			if needs, err := moduleNeeds(root, l, m); err == nil && slices.Contains(needs, "redis-server") {
				g.redisModules[m.Dir] = true
			}
		}
	}
	if p, err := exec.LookPath("redis-server"); err == nil && sandbox.Within(p, "/usr") {
		if _, err := exec.LookPath("redis-cli"); err == nil {
			g.redisServer = p
		}
	}
	if g.cache == "" {
		g.cache = filepath.Join(tmp, "cache")
	} else if g.cache, err = filepath.Abs(cacheDir); err != nil {
		g.Close()
		return nil, err
	}
	store := filepath.Join(g.cache, storeDir, plan.warmKey(toolchain))
	if g.Checker = keptChecker(store, tmp, seed); g.Checker != nil {
		return g, nil
	}
	sb, err := sandbox.New(tmp, "warm-up", modProxy, j)
	if err != nil {
		g.Close()
		return nil, err
	}
	defer sb.Remove()
	sb.GoCache = g.cache
	if err := os.MkdirAll(g.cache, 0o700); err != nil {
		g.Close()
		return nil, err
	}
	if _, err := plan.Build("", sb.Src); err != nil {
		g.Close()
		return nil, err
	}
	// go test -c builds every test binary a grading runs, and runs
	// nothing: this is the instructor's code, but no code needs to run.
	// It vets each package as go test does, too, with the facts of every
	// package it imports, so that a student's go test vets only the
	// packages the student changed (about 70 vet runs a student before).
	// Each module of the levels is built as the grading runs it: the
	// Levels that run under -race with it.
	warm := grade.Runner{
		Command: func(_ context.Context, dir string, args ...string) *exec.Cmd {
			return sb.Command(dir, grade.GoTool(), args...)
		},
		Run: func(ctx context.Context, cmd *exec.Cmd) error {
			_, err := sandbox.RunLimited(ctx, time.Hour, cmd)
			return err
		},
	}
	for i, r := range grade.LevelRuns(plan.Levels, "", nil) {
		modDir := filepath.Join(sb.Src, filepath.FromSlash(r.Module))
		var patterns []string
		for _, p := range r.Patterns {
			// A level this checkout does not have has nothing to build.
			if _, err := os.Stat(filepath.Join(modDir, strings.TrimSuffix(p, "/..."))); err == nil {
				patterns = append(patterns, p)
			}
		}
		if len(patterns) == 0 {
			continue
		}
		pkgs, err := grade.ListPackages(ctx, sb.Src, modDir, patterns, warm)
		if err != nil {
			g.Close()
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
		cmd := sb.Command(modDir, grade.GoTool(), args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		stopped, err := sandbox.RunLimited(ctx, time.Hour, cmd)
		if stopped || err != nil {
			g.Close()
			return nil, fmt.Errorf("building the tests of this checkout: %v%s\n%s", err, map[bool]string{true: " (interrupted)"}[stopped], grade.FirstLines(errOut.String()+out.String(), 20))
		}
	}
	if g.Checker, err = newChecker(ctx, sb, tmp, plan.Levels, seed, warm.Run); err != nil {
		g.Close()
		return nil, err
	}
	if cacheDir != "" {
		g.Checker.keep(store)
	}
	return g, nil
}

// Close deletes the report's temporary folder.
func (g *Grader) Close() { sandbox.RemoveAll(g.Tmp) }

// instructorModProxy makes sure the instructor's module cache holds every
// module the ladder needs, its nested modules' too (go mod download, in
// the instructor's own environment), and returns its download folder,
// which sandboxes use as their GOPROXY, and the toolchain's version and
// target.
func instructorModProxy(root string, lvs []levels.Level) (proxy, toolchain string, err error) {
	for _, dir := range moduleDirs(root, lvs) {
		cmd := exec.Command(grade.GoTool(), "mod", "download")
		cmd.Dir = filepath.Join(root, filepath.FromSlash(dir))
		cmd.Env = grade.LearnerEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("go mod download in %s: %v\n%s", dir, err, out)
		}
	}
	cmd := exec.Command(grade.GoTool(), "env", "GOMODCACHE", "GOVERSION", "GOOS", "GOARCH")
	cmd.Dir = root
	cmd.Env = grade.LearnerEnv()
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOMODCACHE: %v", err)
	}
	modCache, toolchain, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return filepath.Join(modCache, "cache", "download"), toolchain, nil
}

// moduleDirs lists the modules of the levels that root has, "." first.
func moduleDirs(root string, lvs []levels.Level) []string {
	dirs := []string{"."}
	for _, l := range lvs {
		for _, m := range l.Modules {
			if m.Dir == "." || slices.Contains(dirs, m.Dir) {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m.Dir), "go.mod")); err == nil {
				dirs = append(dirs, m.Dir)
			}
		}
	}
	return dirs
}

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
	notes, err = g.plan.Build(dir, sb.Src)
	if err != nil {
		notes = append(notes, err.Error())
		return res
	}
	var touched []levels.Level
	for _, l := range g.plan.Levels {
		if !shipped.Untouched(sb.Src, l) {
			touched = append(touched, l)
		}
	}
	// The student's builds read the warm cache through the sandbox's
	// cache layer, read-only, and write their own: no copy of it.
	sb.CacheBase, sb.CacheHidden = g.cache, []string{storeDir}
	var stopped atomic.Bool
	runner := grade.Runner{
		Command: func(_ context.Context, dir string, args ...string) *exec.Cmd {
			rel, _ := filepath.Rel(sb.Src, dir)
			if len(args) > 0 && args[0] == "test" && g.Jail != nil && g.redisServer != "" && g.redisModules[filepath.ToSlash(rel)] {
				// The cases of level 8's part 8 that need a real server,
				// as make test-level-8 REDIS=1 gives a learner: one of the
				// sandbox's own, on its own loopback, gone with it.
				cmd := sb.Command(dir, "sh", append([]string{"-c", withRedisServer, "sh", grade.GoTool()}, args...)...)
				cmd.Env = append(cmd.Env, "REDIS_ADDR=127.0.0.1:6379")
				return cmd
			}
			return sb.Command(dir, grade.GoTool(), args...)
		},
		Run: func(runCtx context.Context, cmd *exec.Cmd) error {
			s, err := sandbox.RunLimited(runCtx, limit, cmd)
			// A run started ahead and then not needed is stopped too:
			// that says nothing of the student.
			if s && !(runCtx.Err() != nil && ctx.Err() == nil) {
				stopped.Store(true)
			}
			return err
		},
		Ahead: true,
	}
	runner.Judge = func(ctx context.Context, root string, r grade.Run, own []*grade.Package) ([]*grade.Package, error) {
		if stopped.Load() {
			return own, nil // counts for nothing: see below
		}
		return g.Checker.judge(ctx, sb, runner.Run, root, r, own)
	}
	if err := g.Checker.buildChildren(ctx, sb, runner.Run, sb.Src, touched); err != nil && ctx.Err() == nil {
		notes = append(notes, "building the checker's children: "+err.Error())
		return res
	}
	grades, err := grade.LevelsWith(ctx, sb.Src, g.plan.Levels, runner)
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
	res.InProcess = g.Checker.inProcessLevels(sb.Src, grades)
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

// headCommit is the commit a student's checkout is on, read from its .git
// folder by hand: running git there would run what the student's git
// config says (a hook, an fsmonitor). "" where there is none.
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
