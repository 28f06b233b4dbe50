package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/internal/sandbox"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// cmdStudentCopy writes the last commit (never the working tree) without
// solutions/, once instructor.StudentCopyFiles and the stub check pass.
func cmdStudentCopy(c *call) {
	dest, err := filepath.Abs(c.parse(1, 1)[0])
	c.check("", err)
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		c.fail(1, "%s exists and is not empty; name a new folder", dest)
	}
	head, err := shipped.Git(c.root, "rev-parse", "--verify", "HEAD")
	c.check("student-copy copies the last commit of a git checkout, and there is none here:", err)
	instructor.WarnUncommitted(c.root, head, c.stderr)
	tree, err := shipped.GitTree(c.root, "HEAD")
	modPath, merr := shipped.ModulePath(c.root)
	c.check("", cmp.Or(err, merr))
	files, problems := instructor.StudentCopyFiles(modPath, tree)
	if len(problems) == 0 {
		problems, err = instructor.CheckStubsOf(files, c.stderr)
		c.check("student-copy: the stub check could not run:", err)
	}
	if len(problems) > 0 {
		c.fail(1, "student-copy: refused, nothing written. In the last commit (%s):\n  %s", head[:7], strings.Join(problems, "\n  "))
	}
	c.check("", instructor.WriteEntries(dest, files))
	// A git history lets the student's make reset-level-N find the stubs.
	for _, a := range [][]string{{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=rateladder", "-c", "user.email=rateladder@localhost", "-c", "commit.gpgsign=false", "commit", "-qm", "rateladder: student copy"}} {
		cmd := exec.Command("git", a...)
		cmd.Dir, cmd.Env = dest, instructor.WithoutGitRepoEnv(os.Environ())
		if out, err := cmd.CombinedOutput(); err != nil {
			c.fail(1, "git %s in the copy: %v\n%s", a[0], err, strings.TrimSuffix(string(out), "\n"))
		}
	}
	fmt.Fprintf(c.stdout, "Wrote %d files to %s: the ladder without solutions/, from commit %s.\nHand it out as it is; make test there checks the stubs and the harness.\n", len(files), dest, head[:7])
}

const classReportHelp = `usage: ladder class-report [flags] DIR...   (make class-report DIRS="alice bob carol")

Grades the learner's files of each DIR with this checkout's tests, and
prints one table. THIS RUNS THE STUDENTS' CODE, in a sandbox (bubblewrap,
on Linux): INSTRUCTORS.md says which files and what the sandbox allows.
Without one (macOS, Windows, no bwrap, no user namespaces) the report
refuses to run, unless --no-sandbox: ` + sandbox.NoSandboxGivesUp + `

flags:
`

// cmdClassReport grades several student checkouts, a few at a time and
// each with a time limit, and writes one table for the class.
func cmdClassReport(c *call) {
	format := c.fs.String("format", "markdown", "markdown, csv, html, or parts (the parts done, one a line, which the Classroom workflow reads)")
	// A grading often waits, and takes a few hundred MiB.
	parallel := c.fs.Int("parallel", min(runtime.NumCPU()+1, 8), "checkouts graded at once")
	limit := c.fs.Duration("timeout", 5*time.Minute, "time allowed for one checkout's build and tests")
	noSandbox := c.fs.Bool("no-sandbox", false, "run the students' code without a sandbox, as your user (see above)")
	seed := c.fs.Uint64("seed", 0, "the seed of the checker's random timelines; 0 draws one, which the report prints (give it again to replay a report)")
	cache := c.fs.String("cache", filepath.Join(c.root, ".ladder", "class-report-cache"), "keep the build cache of this checkout's tests and checkers in `DIR`, so that the next report starts warm\n(students' code reads it, read-only, and never writes it); \"\" for a new one, deleted afterwards")
	clean := c.fs.Bool("clean", false, "delete the --cache folder first, and build everything again")
	c.fs.Usage = func() {
		fmt.Fprint(c.fs.Output(), classReportHelp)
		c.fs.PrintDefaults()
	}
	dirs, slots := c.parse(1, len(c.args)), max(1, *parallel)
	write, ok := map[string]func(io.Writer, []instructor.Result){
		"markdown": instructor.WriteMarkdown, "csv": instructor.WriteCSV,
		"html": instructor.WriteHTML, "parts": instructor.WriteDoneParts,
	}[*format]
	if !ok {
		c.fail(2, "class-report: FORMAT is %q; use markdown, csv, html or parts", *format)
	}
	// On an interrupt, stop the students' runs and delete their folders.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var j *sandbox.Jail
	var err error
	if *noSandbox {
		fmt.Fprintln(c.stderr, "class-report: --no-sandbox: the students' code runs as your user.\n"+sandbox.NoSandboxGivesUp)
	} else if j, err = sandbox.FindJail(); err != nil {
		c.fail(1, "class-report: refused, nothing run: %v\n\n--no-sandbox runs the students' code anyway. %s", err, sandbox.NoSandboxGivesUp)
	}
	if *clean && *cache != "" {
		c.check("class-report:", os.RemoveAll(*cache))
	}
	start := time.Now()
	fmt.Fprintf(c.stderr, "class-report: building this checkout's tests and checkers first (a few minutes the first time, seconds once %s holds them)\n", *cache)
	g, err := instructor.NewGrader(ctx, c.root, *cache, j, *seed)
	c.check("class-report:", err)
	defer g.Close()
	fmt.Fprintf(c.stderr, "class-report: built in %v; grading %s, %d at a time\n", time.Since(start).Round(time.Second), grade.Plural(len(dirs), "student"), slots)
	if err := sandbox.NoCgroups(); err != nil && runtime.GOOS == "linux" {
		// Never a reason not to grade: the rlimits and the time limit hold.
		fmt.Fprintf(c.stderr, "class-report: no cgroup limits here (%v): a student's memory and processes are limited per process only\n", err)
	}
	// In the order given, --parallel at a time.
	results, busy, graded := make([]instructor.Result, len(dirs)), make(chan struct{}, slots), make(chan int)
	for i := range dirs {
		busy <- struct{}{}
		go func() {
			results[i] = g.Grade(ctx, i, dirs[i], *limit)
			<-busy
			graded <- i
		}()
	}
	var unlucky []string
	for n := range len(dirs) {
		r := results[<-graded]
		done, of := r.PartsDone()
		note := strings.TrimSuffix(" ("+instructor.TerminalText(grade.FirstLines(r.Err, 1))+")", " ()")
		fmt.Fprintf(c.stderr, "class-report: %d of %d: %s, %d of %d parts done, in %v%s\n", n+1, len(dirs), instructor.TerminalText(r.Name), done, of, r.Took.Round(time.Second), note)
		if r.RandomFailed {
			unlucky = append(unlucky, r.Name)
		}
	}
	if ctx.Err() != nil {
		c.fail(1, "class-report: interrupted; the students' processes were stopped and their folders deleted")
	}
	write(c.stdout, results)
	if len(unlucky) > 0 {
		fmt.Fprintf(c.stderr, "class-report: a random timeline of the checker failed for %s; --seed %d plays the same timelines again\n", instructor.SomeNames(unlucky), g.Seed)
	}
}

// cmdClassroom writes the GitHub Classroom workflow.
func cmdClassroom(c *call) {
	force := c.fs.Bool("force", false, "write over an existing file")
	repo := c.fs.String("instructor-repo", "", "the GitHub repository (`owner/name`) whose harness grades; by default this checkout's origin")
	ref := c.fs.String("instructor-ref", "", "the `commit` of it that grades; by default this checkout's HEAD")
	root, shown := c.root, cmp.Or(strings.Join(c.parse(0, 1), ""), instructor.ClassroomFile)
	target := filepath.Join(root, shown)
	if filepath.IsAbs(shown) {
		target = shown
	}
	if *repo == "" {
		url, _ := shipped.Git(root, "remote", "get-url", "origin")
		m := gitHubURL.FindStringSubmatch(strings.TrimSpace(url))
		if m == nil {
			c.fail(2, "ladder classroom: this checkout's origin is not a GitHub repository; name the one that grades with --instructor-repo owner/name (make classroom INSTRUCTOR_REPO=owner/name)")
		}
		*repo = m[1]
	}
	if *ref == "" {
		head, err := shipped.Git(root, "rev-parse", "--verify", "HEAD")
		if *ref = strings.TrimSpace(head); err != nil {
			c.fail(2, "ladder classroom: this checkout has no commit; name the one that grades with --instructor-ref (make classroom INSTRUCTOR_REF=commit)")
		}
	}
	plan, err := instructor.PlanClassroom(root, *repo, *ref, levels.All)
	c.check("ladder classroom:", err)
	if _, err := os.Stat(target); err == nil && !*force {
		c.fail(1, "ladder classroom: %s exists, and is left as it is. --force (make classroom FORCE=1) writes over it.", shown)
	}
	var b strings.Builder
	c.check("ladder classroom:", instructor.WriteClassroom(&b, plan))
	c.check("ladder classroom:", cmp.Or(os.MkdirAll(filepath.Dir(target), 0o755), os.WriteFile(target, []byte(b.String()), 0o644)))
	fmt.Fprintf(c.stdout, "wrote %s: %s, one for each part of levels %d to %d, worth %s each.\nCommit it to the assignment's template repository; INSTRUCTORS.md says how to set up the assignment.\n",
		shown, grade.Plural(len(plan.Steps), "graded step"), levels.All[0].Number, levels.All[len(levels.All)-1].Number, grade.Plural(instructor.PartPoints, "point"))
}

// gitHubURL is a GitHub remote's URL, https or ssh, with owner/name.
var gitHubURL = regexp.MustCompile(`^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([^/]+/[^/]+?)(?:\.git)?/?$`)
