package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	instr "github.com/rateladder/rateladder/harness/internal/instructor"
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
	WorkingDir      string            `yaml:"working-directory"`
	With            map[string]string `yaml:"with"`
	Env             map[string]string `yaml:"env"`
}

// testInstructor names the instructor's repository and commit, which a
// copy without a GitHub origin has no default for.
var testInstructor = []string{"--instructor-repo", "teacher/ladder", "--instructor-ref", strings.Repeat("c0ffee", 6) + "c0ff"}

// classroomWorkflow writes the workflow of the repository at root with
// ladder classroom, and reads it back as YAML.
func classroomWorkflow(t *testing.T, root string) workflowJob {
	t.Helper()
	path := filepath.Join(t.TempDir(), "classroom.yml")
	var stdout, stderr strings.Builder
	if code := runAt(root, append([]string{"classroom"}, append(testInstructor, path)...), &stdout, &stderr); code != 0 {
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

// The workflow checks out the student's code and the instructor's pinned
// commit, neither keeping the token; grades the student once with the
// class report from the instructor's checkout; then has one graded step
// for each part of the registry, in its order, that reads the results
// file, worth one point, and a reporter that reads every one of them.
func TestClassroomWorkflowGradesEveryPart(t *testing.T) {
	root := repoRoot(t)
	job := classroomWorkflow(t, root)
	var graded, checkouts []workflowStep
	firstGrader, redisInstall, bwrapInstall, grading := -1, -1, -1, -1
	for i, s := range job.Steps {
		switch {
		case isGrader(s):
			graded = append(graded, s)
			if firstGrader < 0 {
				firstGrader = i
			}
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			checkouts = append(checkouts, s)
		case strings.Contains(s.Run, "install -y redis-server"):
			redisInstall = i
		case strings.Contains(s.Run, "install -y bubblewrap"):
			bwrapInstall = i
		case strings.Contains(s.Run, "class-report"):
			grading = i
		}
	}
	if len(checkouts) != 2 || checkouts[0].With["path"] != instr.StudentDir || checkouts[1].With["path"] != instr.InstructorDir ||
		checkouts[1].With["repository"] != "teacher/ladder" || checkouts[1].With["ref"] != testInstructor[3] {
		t.Errorf("checkouts %+v, want the student's in %s, then teacher/ladder at the pinned commit in %s", checkouts, instr.StudentDir, instr.InstructorDir)
	}
	for _, c := range checkouts {
		if c.With["persist-credentials"] != "false" {
			t.Errorf("checkout %q keeps the job's token in .git/config, where the student's code runs", c.Name)
		}
	}
	if grading < 0 || bwrapInstall < 0 || bwrapInstall > grading || grading > firstGrader || job.Steps[grading].WorkingDir != instr.InstructorDir ||
		job.Steps[grading].Run != instr.ClassroomGradeCommand {
		t.Errorf("bubblewrap installed at step %d, graded at step %d, first graded step %d; want bubblewrap, then the class report run from %s, then the graded steps", bwrapInstall, grading, firstGrader, instr.InstructorDir)
	}

	idRE := regexp.MustCompile(`^[a-zA-Z0-9]+$`) // the reporter's own check of its runners
	var ids []string
	points, parts, redis := 0, 0, false
	for _, l := range levels.All {
		for _, p := range l.Parts {
			parts++
			redis = redis || needsRedis(t, root, l, p.Number)
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
			if want := fmt.Sprintf("grep -qx %s %s", instr.PartID(l.Number, p.Number), instr.DonePartsFile); s.With["command"] != want {
				t.Errorf("step %q: command %q, want %q", s.Name, s.With["command"], want)
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
	case redis && (redisInstall < 0 || redisInstall > grading || !job.Steps[redisInstall].ContinueOnError):
		t.Errorf("some parts need a redis-server, and the step that installs it is step %d (grading is step %d); want it before, with continue-on-error, so that a failed install costs those parts only", redisInstall, grading)
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

// actionlintVersion is the actionlint that checks the workflow.
const actionlintVersion = "v1.7.12"

// The workflow passes actionlint, which knows the actions' inputs and
// runs shellcheck on the run: steps where shellcheck is installed.
func TestClassroomWorkflowPassesActionlint(t *testing.T) {
	slow(t, "downloads and builds actionlint")
	path := filepath.Join(t.TempDir(), "classroom.yml")
	var stdout, stderr strings.Builder
	if code := runAt(repoRoot(t), append([]string{"classroom"}, append(testInstructor, path)...), &stdout, &stderr); code != 0 {
		t.Fatalf("ladder classroom = exit %d:\n%s", code, stderr.String())
	}
	dl := exec.Command("go", "mod", "download", "github.com/rhysd/actionlint@"+actionlintVersion)
	dl.Dir = t.TempDir()
	if out, err := dl.CombinedOutput(); err != nil {
		t.Skipf("actionlint %s could not be downloaded (is the module proxy reachable?): %v\n%s", actionlintVersion, err, out)
	}
	cmd := exec.Command("go", "run", "github.com/rhysd/actionlint/cmd/actionlint@"+actionlintVersion, "-no-color", path)
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint %s: %v\n%s", path, err, out)
	}
}

// gitHubURL reads owner/name from GitHub remotes only.
func TestClassroomInstructorRepoFromOrigin(t *testing.T) {
	for url, want := range map[string]string{
		"https://github.com/teacher/ladder.git":   "teacher/ladder",
		"https://github.com/teacher/ladder":       "teacher/ladder",
		"git@github.com:teacher/ladder.git":       "teacher/ladder",
		"ssh://git@github.com/teacher/ladder.git": "teacher/ladder",
		"https://gitlab.com/teacher/ladder.git":   "",
		"https://github.com/teacher/ladder/x":     "",
		"/home/teacher/ladder":                    "",
	} {
		got := ""
		if m := gitHubURL.FindStringSubmatch(url); m != nil {
			got = m[1]
		}
		if got != want {
			t.Errorf("gitHubURL finds %q in %q, want %q", got, url, want)
		}
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
		code := runAt(root, append(append([]string{"classroom"}, testInstructor...), args...), &stdout, &stderr)
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
// grader does: through the shell, in the workspace's top folder, with
// PATH and HOME and the grader's few variables alone. The test's GO
// variables stay, as setup-go's defaults under HOME do on a runner.
func runAsGrader(t *testing.T, dir, command string) (string, int) {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"FORCE_COLOR=true", "DOTNET_CLI_HOME=/tmp", "DOTNET_NOLOGO=true"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GO") {
			env = append(env, kv)
		}
	}
	return runShell(t, dir, command, env)
}

// runShell runs command with bash in dir, as a run: step does.
func runShell(t *testing.T, dir, command string, env []string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-eo", "pipefail", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s:\n%s", command, out)
		return string(out), exit.ExitCode()
	}
	return string(out), 0
}

// TestClassroomWorkflowGradesAsTheClassReport plays the workflow's steps
// on this machine: the instructor's checkout and a student's side by
// side, as the two checkouts leave them, then the grading step and every
// graded step. A student who forges results from an init, or who edits a
// test, earns no part the checker decides; a student with every reference
// pasted in earns every part. The installs are left to make test-e2e, and
// the grading step shares the class report tests' --cache.
func TestClassroomWorkflowGradesAsTheClassReport(t *testing.T) {
	skipSlow(t, "plays the Classroom workflow on three copies of the whole ladder")
	needJail(t)
	if runtime.GOOS != "linux" {
		t.Skip("the forgery uses Linux system calls")
	}
	job := classroomWorkflow(t, repoRoot(t))
	for _, c := range []struct {
		name    string
		prepare func(t *testing.T, instructor, student string)
		all     bool
	}{
		{"fd3", func(t *testing.T, instructor, student string) { forgery(t, instructor, student, forgeFD3, "forge.go") }, false},
		{"edited test", func(t *testing.T, instructor, student string) {
			for _, l := range levels.All[:2] {
				matches, err := filepath.Glob(filepath.Join(student, l.Dir, "*_test.go"))
				require.NoError(t, err)
				for _, m := range matches {
					pkg := map[int]string{1: "hitcounter", 2: "logger"}[l.Number]
					require.NoError(t, os.WriteFile(m, []byte("package "+pkg+"\n\nimport \"testing\"\n\nfunc TestPasses(t *testing.T) {}\n"), 0o644))
				}
			}
		}, false},
		{"references", func(t *testing.T, _, student string) {
			require.True(t, pasteReferences(t, student, levels.All...), "no solutions/ here")
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			workspace := t.TempDir()
			instructor := fullLadder(t)
			require.NoError(t, os.Rename(instructor, filepath.Join(workspace, instr.InstructorDir)))
			instructor = filepath.Join(workspace, instr.InstructorDir)
			student := filepath.Join(workspace, instr.StudentDir)
			studentOf(t, instructor, student)
			c.prepare(t, instructor, student)
			for _, s := range job.Steps {
				switch {
				case strings.Contains(s.Run, "class-report"):
					// The report tests' cache, so that the ladder is built once.
					run := strings.Replace(s.Run, "class-report ", "class-report --cache "+reportCache()+" ", 1)
					out, code := runShell(t, filepath.Join(workspace, s.WorkingDir), run, os.Environ())
					require.Equal(t, 0, code, "step %q: %s\n%s", s.Name, run, out)
					t.Logf("step %q:\n%s", s.Name, out)
				case isGrader(s):
					_, code := runAsGrader(t, workspace, s.With["command"])
					level, part := 0, 0
					fmt.Sscanf(s.ID, "level%dpart%d", &level, &part)
					// Part 8 of level 8 needs a redis-server (make test-e2e installs it).
					redisOnly := level == 8 && part == 8 && !onPath("redis-server")
					switch {
					case c.all && code != 0 && !redisOnly:
						t.Errorf("step %q: %s = exit %d, want 0 for a finished ladder", s.Name, s.With["command"], code)
					case !c.all && code == 0:
						t.Errorf("step %q: %s = exit 0, want no point for a copy that forges or edits its tests", s.Name, s.With["command"])
					}
				}
			}
		})
	}
}

// make classroom passes the instructor's repository and commit on, takes
// the commit from HEAD by default, refuses a checkout whose origin is not
// on GitHub unless it is named, and leaves a written file as it is unless
// FORCE=1.
func TestMakeClassroomPinsTheInstructor(t *testing.T) {
	slow(t, "runs make classroom in a copy of the ladder", "make", "git")
	dir := copyRepo(t, "ladder")
	gitCommitAll(t, dir)
	head := strings.TrimSpace(gitIn(t, dir, "rev-parse", "HEAD"))
	if out, code := runIn(t, dir, "make", "classroom"); code == 0 || !strings.Contains(out, "--instructor-repo") {
		t.Errorf("make classroom without an origin on GitHub = exit %d, want a failure naming --instructor-repo:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
	}{{[]string{"classroom", "INSTRUCTOR_REPO=teacher/ladder"}, 0}, {[]string{"classroom", "INSTRUCTOR_REPO=teacher/ladder"}, 2}, {[]string{"classroom", "INSTRUCTOR_REPO=teacher/ladder", "FORCE=1"}, 0}} {
		if out, code := runIn(t, dir, "make", c.args...); code != c.code {
			t.Fatalf("make %s = exit %d, want %d:\n%s", strings.Join(c.args, " "), code, c.code, out)
		}
	}
	job := readWorkflow(t, filepath.Join(dir, ".github", "workflows", "classroom.yml"))
	i := slices.IndexFunc(job.Steps, func(s workflowStep) bool { return s.With["path"] == instr.InstructorDir })
	if i < 0 || job.Steps[i].With["repository"] != "teacher/ladder" || job.Steps[i].With["ref"] != head {
		t.Errorf("the instructor's checkout is step %d, %+v; want teacher/ladder at HEAD, %s", i, job.Steps[max(i, 0)], head)
	}
}

// Where bwrap cannot make a sandbox, as on a runner whose user namespaces
// are refused, the grading step says so and fails, and writes no part.
func TestClassroomGradingRefusesWithoutASandbox(t *testing.T) {
	slow(t, "runs the workflow's grading step with a bwrap that fails", "bash", "git")
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	job := classroomWorkflow(t, repoRoot(t))
	workspace := t.TempDir()
	require.NoError(t, os.Rename(fullLadder(t), filepath.Join(workspace, instr.InstructorDir)))
	studentOf(t, filepath.Join(workspace, instr.InstructorDir), filepath.Join(workspace, instr.StudentDir))
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "bwrap"), []byte("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"), 0o755))
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	i := slices.IndexFunc(job.Steps, func(s workflowStep) bool { return strings.Contains(s.Run, "class-report") })
	require.GreaterOrEqual(t, i, 0, "no grading step")
	s := job.Steps[i]
	out, code := runShell(t, filepath.Join(workspace, s.WorkingDir), s.Run, env)
	if code == 0 || !strings.Contains(out, "cannot make a sandbox") {
		t.Errorf("step %q with a failing bwrap = exit %d, want a failure that says there is no sandbox:\n%s", s.Name, code, out)
	}
	if data, _ := os.ReadFile(filepath.Join(workspace, instr.DonePartsFile)); len(data) > 0 {
		t.Errorf("%s after a refusal holds %q, want no part", instr.DonePartsFile, data)
	}
}
