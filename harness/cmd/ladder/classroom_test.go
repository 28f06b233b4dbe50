package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// The workflow as GitHub Actions reads it: only the keys these tests
// check.
type workflowFile struct {
	Name        string                 `yaml:"name"`
	On          []string               `yaml:"on"`
	Permissions map[string]string      `yaml:"permissions"`
	Jobs        map[string]workflowJob `yaml:"jobs"`
}

type workflowJob struct {
	RunsOn string         `yaml:"runs-on"`
	If     string         `yaml:"if"`
	Steps  []workflowStep `yaml:"steps"`
}

type workflowStep struct {
	Name            string            `yaml:"name"`
	ID              string            `yaml:"id"`
	Uses            string            `yaml:"uses"`
	Run             string            `yaml:"run"`
	ContinueOnError bool              `yaml:"continue-on-error"`
	With            map[string]string `yaml:"with"`
	Env             map[string]string `yaml:"env"`
}

// classroomWorkflow writes the workflow of the repository at root with
// ladder classroom, and reads it back as YAML.
func classroomWorkflow(t *testing.T, root string) workflowJob {
	t.Helper()
	path := filepath.Join(t.TempDir(), "classroom.yml")
	var stdout, stderr strings.Builder
	if code := cmdClassroom(root, []string{path}, &stdout, &stderr); code != 0 {
		t.Fatalf("ladder classroom %s = exit %d, want 0:\n%s%s", path, code, stdout.String(), stderr.String())
	}
	return readWorkflow(t, path)
}

// readWorkflow reads a workflow file as YAML and checks its frame: a name,
// a run on every push, and one job on GitHub's Ubuntu runner.
func readWorkflow(t *testing.T, path string) workflowJob {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var wf workflowFile
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("the workflow is not YAML that Actions can read: %v\n%s", err, data)
	}
	if wf.Name == "" || !strings.Contains(strings.Join(wf.On, " "), "push") || wf.Permissions["contents"] != "read" {
		t.Errorf("workflow: name %q, on %q, permissions %v; want a name, a run on every push, and contents: read", wf.Name, wf.On, wf.Permissions)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("the workflow has %d jobs, want 1:\n%s", len(wf.Jobs), data)
	}
	for _, job := range wf.Jobs {
		if job.RunsOn != "ubuntu-latest" {
			t.Errorf("runs-on: %q, want ubuntu-latest, where Classroom's graders run", job.RunsOn)
		}
		return job
	}
	panic("unreachable")
}

// isGrader says whether a step is one of Classroom's graded steps.
func isGrader(s workflowStep) bool {
	return strings.HasPrefix(s.Uses, "classroom-resources/autograding-command-grader@")
}

// needsRedis says whether the spec of the module that holds a part lists a
// case that needs a real redis-server.
func needsRedis(t *testing.T, root string, l levels.Level, part int) bool {
	t.Helper()
	man, err := protocol.ReadManifest(filepath.Join(root, l.SpecDir(l.ModuleOf(part)), protocol.ManifestFile))
	require.NoError(t, err)
	for _, c := range man.Cases {
		if c.Needs == "redis-server" {
			return true
		}
	}
	return false
}

// The workflow has one graded step for each part of the registry, in its
// order, each running the make target that grades that part alone and
// worth one point, and a reporter that reads every one of them.
func TestClassroomWorkflowGradesEveryPart(t *testing.T) {
	root := repoRoot(t)
	job := classroomWorkflow(t, root)
	var graded []workflowStep
	firstGrader, redisInstall := -1, -1
	for i, s := range job.Steps {
		switch {
		case isGrader(s):
			graded = append(graded, s)
			if firstGrader < 0 {
				firstGrader = i
			}
		case strings.Contains(s.Run, "redis-server"):
			redisInstall = i
		}
	}
	if len(job.Steps) < 3 || !strings.HasPrefix(job.Steps[0].Uses, "actions/checkout@") || !strings.HasPrefix(job.Steps[1].Uses, "actions/setup-go@") {
		t.Errorf("the first steps are %+v, want a checkout, then setup-go", job.Steps[:min(2, len(job.Steps))])
	}

	commandRE := regexp.MustCompile(`^make test-level-(\d+) PART=(\d+)( REDIS=1)?$`)
	idRE := regexp.MustCompile(`^[a-zA-Z0-9]+$`) // the reporter's own check of its runners
	var ids []string
	points, parts, redis := 0, 0, false
	for _, l := range levels.All {
		for _, p := range l.Parts {
			parts++
			if len(graded) < parts {
				t.Errorf("no graded step for level %d, part %d", l.Number, p.Number)
				continue
			}
			s := graded[parts-1]
			ids = append(ids, s.ID)
			if !idRE.MatchString(s.ID) || slices.Contains(ids[:len(ids)-1], s.ID) {
				t.Errorf("step %q: id %q, want letters and digits, and no other step's", s.Name, s.ID)
			}
			if want := fmt.Sprintf("Level %d, part %d: %s", l.Number, p.Number, p.Title); s.With["test-name"] != want || s.Name != want {
				t.Errorf("step %q: test-name %q, want %q", s.Name, s.With["test-name"], want)
			}
			m := commandRE.FindStringSubmatch(s.With["command"])
			if m == nil || m[1] != strconv.Itoa(l.Number) || m[2] != strconv.Itoa(p.Number) {
				t.Errorf("step %q: command %q, want make test-level-%d PART=%d", s.Name, s.With["command"], l.Number, p.Number)
			} else if got, want := m[3] != "", needsRedis(t, root, l, p.Number); got != want {
				t.Errorf("step %q: command %q; REDIS=1 is %v, want %v (does the spec list a case that needs a redis-server?)", s.Name, s.With["command"], got, want)
			} else if got {
				redis = true
			}
			score, err := strconv.Atoi(s.With["max-score"])
			if err != nil || score != 1 {
				t.Errorf("step %q: max-score %q, want 1: every part is worth one point", s.Name, s.With["max-score"])
			}
			points += score
			if timeout, err := strconv.Atoi(s.With["timeout"]); err != nil || timeout < 1 || timeout > 60 {
				t.Errorf("step %q: timeout %q, want 1 to 60 minutes", s.Name, s.With["timeout"])
			}
		}
	}
	if len(graded) != parts || points != parts {
		t.Errorf("%d graded steps worth %d points, want %d and %d: one step, one point, for each part of the registry", len(graded), points, parts, parts)
	}
	switch {
	case redis && (redisInstall < 0 || redisInstall > firstGrader || !job.Steps[redisInstall].ContinueOnError):
		t.Errorf("some parts run with REDIS=1, and the step that installs redis-server is step %d (the first graded step is %d); want it before, with continue-on-error, so that a failed install costs those parts only", redisInstall, firstGrader)
	case !redis && redisInstall >= 0:
		t.Errorf("step %d installs redis-server, and no part needs it", redisInstall)
	}

	last := job.Steps[len(job.Steps)-1]
	if !strings.HasPrefix(last.Uses, "classroom-resources/autograding-grading-reporter@") {
		t.Fatalf("the last step uses %q, want Classroom's grading reporter", last.Uses)
	}
	if got, want := last.With["runners"], strings.Join(ids, ","); got != want {
		t.Errorf("reporter: runners %q, want %q", got, want)
	}
	for _, id := range ids {
		key := strings.ToUpper(id) + "_RESULTS"
		if got, want := last.Env[key], "${{ steps."+id+".outputs.result }}"; got != want {
			t.Errorf("reporter: %s = %q, want %q", key, got, want)
		}
	}
	if len(last.Env) != len(ids) {
		t.Errorf("reporter: %d variables for %d graded steps", len(last.Env), len(ids))
	}
}

// ladder classroom writes .github/workflows/classroom.yml by default, or
// the file it is given, and writes over a file only with --force.
func TestClassroomRefusesToWriteOverAFile(t *testing.T) {
	// A root with the registry's specs' lists of cases and nothing else:
	// all that the workflow is made from.
	root := t.TempDir()
	for _, l := range levels.All {
		for _, m := range l.Modules {
			rel := filepath.Join(l.SpecDir(m), protocol.ManifestFile)
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755))
			copyTree(t, filepath.Join(repoRoot(t), rel), filepath.Join(root, rel))
		}
	}
	run := func(args ...string) (string, int) {
		var stdout, stderr strings.Builder
		code := cmdClassroom(root, args, &stdout, &stderr)
		return stdout.String() + stderr.String(), code
	}
	out, code := run()
	def := filepath.Join(root, ".github", "workflows", "classroom.yml")
	first, err := os.ReadFile(def)
	if code != 0 || err != nil || !strings.Contains(out, "wrote .github/workflows/classroom.yml") {
		t.Fatalf("ladder classroom = exit %d, %q (file: %v); want exit 0 and the file written", code, out, err)
	}
	require.NoError(t, os.WriteFile(def, []byte("an instructor's own workflow\n"), 0o644))
	out, code = run()
	kept, _ := os.ReadFile(def)
	if code != 1 || !strings.Contains(out, "--force") || string(kept) != "an instructor's own workflow\n" {
		t.Errorf("ladder classroom over a file = exit %d, %q, file %q; want exit 1, a message naming --force, and the file untouched", code, out, kept)
	}
	out, code = run("--force")
	again, _ := os.ReadFile(def)
	if code != 0 || string(again) != string(first) {
		t.Errorf("ladder classroom --force = exit %d, %q; want exit 0 and the workflow written again", code, out)
	}
	other := filepath.Join(root, "elsewhere.yml")
	if out, code = run(other, "--force"); code != 0 {
		t.Errorf("ladder classroom %s --force = exit %d, %q; want exit 0", other, code, out)
	} else if data, _ := os.ReadFile(other); string(data) != string(first) {
		t.Errorf("ladder classroom %s wrote %d bytes, want the same workflow as the default path", other, len(data))
	}
	if _, code = run("a.yml", "b.yml"); code != 2 {
		t.Errorf("ladder classroom a.yml b.yml = exit %d, want 2 and the usage line", code)
	}
}

// pasteReferences puts the levels' references in place of their stubs in
// a copy of the repository, the nested modules' too (with the Lua script
// the Redis form embeds), with its imports of a reference turned into the
// learner's own package: the copy is a student who finished the ladder.
// It reports false when this repository has no references (a student
// copy).
func pasteReferences(t *testing.T, dir string, lvs ...levels.Level) bool {
	t.Helper()
	root := repoRoot(t)
	for _, l := range lvs {
		for _, m := range l.Modules {
			to := m.Dir
			if to == "." {
				to = l.Dir
			}
			from := l.SolutionDir() + strings.TrimPrefix(to, l.Dir)
			entries, err := os.ReadDir(filepath.Join(root, from))
			if err != nil {
				return false
			}
			for _, e := range entries {
				name := e.Name()
				if e.IsDir() || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".md") || name == "go.mod" || name == "go.sum" {
					continue
				}
				data, err := os.ReadFile(filepath.Join(root, from, name))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, to, name), []byte(asLearners(t, string(data))), 0o644))
			}
		}
	}
	return true
}

// asLearners turns a reference's imports of another reference (the Redis
// form imports its level's package) into imports of the learner's own
// package, as the code reads once pasted over a stub. The path is built
// from go.mod, so that no file under harness/ names solutions/'s packages.
func asLearners(t *testing.T, src string) string {
	t.Helper()
	mod, err := shipped.ModulePath(repoRoot(t))
	require.NoError(t, err)
	return strings.ReplaceAll(src, `"`+mod+"/solutions/", `"`+mod+"/ladder/")
}

// runAsGrader runs a command of the workflow as Classroom's command
// grader does: through the shell, in the repository's top folder, with
// PATH and HOME and the grader's few variables alone. The test's GO
// variables stay, as setup-go's defaults under HOME do on a runner, so
// that the copy builds from this machine's caches.
func runAsGrader(t *testing.T, dir, command string) (string, int) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"FORCE_COLOR=true", "DOTNET_CLI_HOME=/tmp", "DOTNET_NOLOGO=true"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GO") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s:\n%s", command, out)
		return string(out), exit.ExitCode()
	}
	return string(out), 0
}

// Every command the workflow names, run as Classroom runs it, exits 0 on a
// copy with every reference pasted in, and fails on the untouched stubs:
// each graded step grants its points for a finished part only.
func TestClassroomCommandsPassOnTheReferenceAndFailOnTheStub(t *testing.T) {
	slow(t, "runs every step of the Classroom workflow on two copies of the ladder", "make")
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "solutions")); err != nil {
		t.Skip("no solutions/ here (a workshop copy)")
	}
	reference, stub := copyRepo(t, "ladder"), copyRepo(t, "ladder")
	pasteReferences(t, reference, levels.All...)

	// The make target writes the file where Classroom looks for it, and
	// leaves it as it is the second time unless FORCE=1.
	for _, c := range []struct {
		args []string
		code int
	}{{[]string{"classroom"}, 0}, {[]string{"classroom"}, 2}, {[]string{"classroom", "FORCE=1"}, 0}} {
		if out, code := runIn(t, reference, "make", c.args...); code != c.code {
			t.Fatalf("make %s = exit %d, want %d:\n%s", strings.Join(c.args, " "), code, c.code, out)
		}
	}
	job := readWorkflow(t, filepath.Join(reference, ".github", "workflows", "classroom.yml"))
	var runs, graded []workflowStep
	for _, s := range job.Steps {
		switch {
		case s.Run != "":
			runs = append(runs, s)
		case isGrader(s):
			graded = append(graded, s)
		}
	}
	for _, s := range graded {
		if strings.Contains(s.With["command"], "REDIS=1") {
			if !onPath("redis-server") {
				t.Fatalf("step %q runs with REDIS=1, and redis-server is not on the PATH: make test-e2e installs it", s.Name)
			}
		}
	}
	// A part earns its point whether the parts before it pass or not:
	// level 8's token bucket (part 3) beside a fixed window (part 1) that
	// charges each request twice.
	t.Run("an earlier part fails", func(t *testing.T) {
		t.Parallel()
		l, err := levels.Find("8")
		require.NoError(t, err)
		dir := copyRepo(t, l.Dir)
		pasteReferences(t, dir, l)
		edit(t, filepath.Join(dir, l.Dir, "fixed.go"), "w.used += n", "w.used += 2 * n")
		for _, c := range []struct {
			id   string
			pass bool
		}{{"level8part1", false}, {"level8part3", true}} {
			i := slices.IndexFunc(graded, func(s workflowStep) bool { return s.ID == c.id })
			require.GreaterOrEqual(t, i, 0, "no step %s", c.id)
			command := graded[i].With["command"]
			if out, code := runAsGrader(t, dir, command); (code == 0) != c.pass {
				t.Errorf("%s with a wrong fixed window and the reference's token bucket = exit %d, want a pass %v:\n%s", command, code, c.pass, out)
			}
		}
	})
	for _, c := range []struct {
		name string
		dir  string
		pass bool
	}{{"reference", reference, true}, {"stub", stub, false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, s := range runs {
				if out, code := runAsGrader(t, c.dir, s.Run); code != 0 {
					t.Fatalf("step %q: %s = exit %d, want 0:\n%s", s.Name, s.Run, code, out)
				}
			}
			for _, s := range graded {
				command := s.With["command"]
				out, code := runAsGrader(t, c.dir, command)
				switch {
				case c.pass && code != 0:
					t.Errorf("step %q on the reference: %s = exit %d, want 0:\n%s", s.Name, command, code, out)
				case !c.pass && code == 0:
					t.Errorf("step %q on the untouched stub: %s = exit 0, want a failure:\n%s", s.Name, command, out)
				case !c.pass && !strings.Contains(out, "not implemented yet"):
					t.Errorf("step %q on the untouched stub: %s = exit %d, want it to fail on a method not implemented yet:\n%s", s.Name, command, code, out)
				}
			}
		})
	}
}
