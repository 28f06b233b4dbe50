package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// hintHeading heads one hint wherever it is shown.
func hintHeading(l levels.Level, p interview.HintPart, i int) string {
	return fmt.Sprintf("Level %d, part %d, hint %d of %d", l.Number, p.Number, i, len(p.Hints))
}

// cmdHint shows the next hint of the part the learner is on, or of the
// part --part names, and remembers it.
func cmdHint(c *call) int {
	asked := c.fs.Int("part", 0, "a hint of this part, not of the part you are on")
	l := c.level(asked)
	parts, s := c.hints(l)
	save := func() int { c.check("ladder hint: could not remember this hint:", interview.Save(c.root, s)); return 0 }
	// During a mock interview the hints start again from the first, and
	// each one counts in the interview's summary, in the part it is of.
	iv := s.Interview
	interviewing := iv.Running(l.Number, time.Now())
	if interviewing && interview.NameOfferedMistake(l, &s, *asked, c.stdout) {
		return save()
	}
	part := *asked
	switch {
	case part != 0:
	case interviewing:
		part = iv.Part
	default:
		part = c.partOn(l, &s)
	}
	if part == 0 {
		fmt.Fprintf(c.stdout, "Every part of level %d is done. make hint-%d PART=K shows part K's hints.\n", l.Number, l.Number)
		return save()
	}
	p := parts[part-1]
	ownHints := len(p.Hints) // the hints of HINTS.md, which practice mode counts
	if interviewing {
		p = interview.WithGuidance(c.root, l, p)
	}
	key, pkey := strconv.Itoa(l.Number), strconv.Itoa(part)
	if s.HintsSeen[key] == nil {
		s.HintsSeen[key] = map[string]int{}
	}
	seen := s.HintsSeen[key][pkey]
	if interviewing {
		seen = max(0, iv.Hints[pkey]-iv.Named[pkey]) // a named mistake is no hint of HINTS.md
	}
	if seen >= len(p.Hints) {
		// The reference only where this copy has it (a student copy has none).
		next := fmt.Sprintf("read part %d of %s/README.md again, and make test-level-%d PART=%d shows the first case that fails.", part, l.Dir, l.Number, part)
		if hasReference(c.root, l) {
			next = fmt.Sprintf("%s has the reference, and make compare-level-%d shows it beside your code.", l.SolutionDir(), l.Number)
		}
		fmt.Fprintf(c.stdout, "You have seen all %s of level %d, part %d. make hints-%d shows them again; %s\n",
			grade.Plural(len(p.Hints), "hint"), l.Number, part, l.Number, next)
		return save()
	}
	fmt.Fprintf(c.stdout, "%s\n\n%s\n", hintHeading(l, p, seen+1), p.Hints[seen])
	s.HintsSeen[key][pkey] = max(s.HintsSeen[key][pkey], min(seen+1, ownHints))
	if interviewing {
		iv.Hints[pkey]++
		fmt.Fprintf(c.stdout, "\nYou are in a mock interview of level %d: this hint counts in its summary.\n", l.Number)
	}
	save()
	if seen+1 < len(p.Hints) {
		again := fmt.Sprintf("make hint-%d", l.Number)
		if *asked != 0 {
			again += fmt.Sprintf(" PART=%d", part)
		}
		fmt.Fprintf(c.stdout, "\nStill stuck? %s shows the next one.\n", again)
	}
	return 0
}

// partOn returns the part the learner is on: the first part of the level
// that is not done, 0 if every part is. Grading takes seconds, so the
// answer is kept in the state for the level's .go files as they are.
func (c *call) partOn(l levels.Level, s *interview.State) int {
	key := strconv.Itoa(l.Number)
	hash := filesHash(c.root, l)
	last, known := s.OnPart[key]
	if known && last.Files == hash {
		return last.Part
	}
	fmt.Fprintf(c.stdout, "Checking which part of level %d you are on…\n", l.Number)
	g, err := grade.TestLevel(c.root, l, 0)
	c.check("ladder hint:", err)
	part := partInProgress(g)
	if g.BuildError != "" || len(g.Broken) > 0 {
		// The grade says nothing of the parts: keep to the last answer.
		if known && last.Part != 0 {
			part = last.Part
		}
		fmt.Fprintf(c.stdout, "Level %d: %s, so the part you are on is not known; these are the hints of part %d (make hint-%d PART=K for part K).\n\n", l.Number, g.Status(), part, l.Number)
		return part
	}
	s.OnPart[key] = interview.PartCache{Files: hash, Part: part}
	return part
}

// partInProgress is the first part of a graded level that is not done, 0
// if every part is.
func partInProgress(g grade.Level) int {
	if i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return !p.Done }); i >= 0 {
		return g.Parts[i].Number
	}
	return 0
}

// cmdHints shows again every hint seen so far, part by part.
func cmdHints(c *call) int {
	l := c.level(nil)
	parts, s := c.hints(l)
	seen := s.HintsSeen[strconv.Itoa(l.Number)]
	shown, total := 0, 0
	for _, p := range parts {
		shown += seen[strconv.Itoa(p.Number)]
		total += len(p.Hints)
	}
	if shown == 0 {
		fmt.Fprintf(c.stdout, "You have not asked for a hint on level %d yet. make hint-%d shows the first of the part you are on.\n", l.Number, l.Number)
		return 0
	}
	fmt.Fprintf(c.stdout, "Level %d: the %d of %d hints you have seen\n", l.Number, shown, total)
	for _, p := range parts {
		for i, h := range p.Hints[:seen[strconv.Itoa(p.Number)]] {
			fmt.Fprintf(c.stdout, "\n%s\n\n%s\n", hintHeading(l, p, i+1), h)
		}
	}
	return 0
}

// hints reads a level's hints and the state.
func (c *call) hints(l levels.Level) ([]interview.HintPart, interview.State) {
	parts, err := interview.ReadHints(c.root, l)
	c.check("", err)
	s, err := interview.Load(c.root)
	c.check("", err)
	return parts, s
}

// filesHash is the cache key of the level's files as they are.
func filesHash(root string, l levels.Level) string {
	h := fnv.New128a() // a cache key needs no cryptographic hash
	io.WriteString(h, interview.Snapshot(filepath.Join(root, l.Dir)))
	return fmt.Sprintf("%x", h.Sum(nil))
}

// stdin is where questions are answered; tests replace it.
var stdin io.Reader = os.Stdin

// yes reads one answer and reports whether it was yes.
func yes() bool {
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	return slices.Contains([]string{"y", "yes"}, strings.ToLower(strings.TrimSpace(line)))
}

// cmdReset puts a level back as shipped.ResetPlan plans, moving the
// learner's versions, and the files that are not the level's, into a new
// backup folder.
func cmdReset(c *call) int {
	l := c.level(nil)
	plan, err := shipped.ResetPlan(c.root, l)
	c.check("", err)
	as, restore, move := plan.Shipped, plan.Restore, plan.Move
	short := as.Commit[:min(7, len(as.Commit))]
	if len(restore) == 0 && len(move) == 0 {
		fmt.Fprintf(c.stdout, "Level %d is already as shipped (commit %s); nothing to restore.\n", l.Number, short)
		return 0
	}
	fmt.Fprintf(c.stdout, "This puts level %d back as shipped (commit %s):\n", l.Number, short)
	for _, p := range restore {
		fmt.Fprintf(c.stdout, "  restores %s\n", p)
	}
	for _, p := range move {
		fmt.Fprintf(c.stdout, "  moves    %s (not part of the level as shipped)\n", p)
	}
	fmt.Fprintf(c.stdout, "Your files go to a new folder in %s/.\n", filepath.Join(interview.StateDir, "backups"))
	if os.Getenv("FORCE") != "1" {
		if fmt.Fprint(c.stdout, "Go ahead? [y/N] "); !yes() {
			fmt.Fprintln(c.stdout, "Nothing changed.")
			return 0
		}
	}
	backup, err := newBackupDir(c.root, l.Number, time.Now())
	c.check("could not make a backup folder, so nothing changed:", err)
	// Move first, write after: whatever fails, the learner's files are
	// already safe in the backup.
	for _, p := range append(slices.Clone(restore), move...) {
		src := filepath.Join(c.root, p)
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			continue // a stub the learner deleted
		}
		dst := filepath.Join(c.root, backup, p)
		c.check("could not move "+p+" into the backup:", cmp.Or(os.MkdirAll(filepath.Dir(dst), 0o755), os.Rename(src, dst)))
	}
	for _, p := range restore {
		dst := filepath.Join(c.root, p)
		c.check("", cmp.Or(os.MkdirAll(filepath.Dir(dst), 0o755), os.WriteFile(dst, as.Files[p], 0o644)))
		fmt.Fprintf(c.stdout, "restored %s\n", p)
	}
	for _, p := range move {
		fmt.Fprintf(c.stdout, "moved    %s\n", p)
	}
	removeEmptyDirs(filepath.Join(c.root, l.Dir))
	fmt.Fprintf(c.stdout, "Your files are in %s/.\nTo get them back: cp -R %s/. .\n", backup, backup)
	return 0
}

// newBackupDir makes a new backup folder, named after the time, with a
// counter added if that name is taken, and returns it relative to root.
func newBackupDir(root string, level int, now time.Time) (string, error) {
	parent := filepath.Join(interview.StateDir, "backups")
	if err := os.MkdirAll(filepath.Join(root, parent), 0o755); err != nil {
		return "", err
	}
	base := filepath.Join(parent, fmt.Sprintf("level-%d-%s", level, now.Format("20060102-150405.000000000")))
	dir := base
	for i := 2; ; i++ {
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// removeEmptyDirs removes the empty folders under dir, not dir itself, such
// as a learner's package folder whose files went into the backup.
func removeEmptyDirs(dir string) {
	var dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, d := range slices.Backward(dirs) {
		os.Remove(d) // fails, as it should, on a folder with files
	}
}

// cmdCompare shows the learner's files beside the reference, as a unified
// diff. Before the level is done it asks first: the reference is a
// spoiler.
func cmdCompare(c *call) int {
	l := c.level(nil)
	refDir := l.SolutionDir()
	if !hasReference(c.root, l) {
		fmt.Fprintf(c.stdout, "This copy has no reference for level %d (a workshop copy?): ask your instructor for it.\n", l.Number)
		return 0
	}
	fmt.Fprintf(c.stdout, "Checking level %d first...\n", l.Number)
	g, err := grade.TestLevel(c.root, l, 0)
	c.check("", err)
	if g.Status() != grade.Done {
		fmt.Fprintf(c.stdout, "The level is not done yet (%d of %d parts); show the reference anyway? [y/N] ", g.PartsDone(), len(g.Parts))
		if !yes() {
			fmt.Fprintf(c.stdout, "Not shown. make hint-%d may help instead.\n", l.Number)
			return 0
		}
	}
	// The level's code files as they are, and the reference's own, such
	// as level 3's exact.go: a side without the file diffs as empty.
	names := map[string]bool{}
	filepath.WalkDir(filepath.Join(c.root, l.Dir), func(p string, d fs.DirEntry, err error) error {
		if rel, _ := filepath.Rel(c.root, p); err == nil && l.HasRole(filepath.ToSlash(rel), levels.Code) {
			names[strings.TrimPrefix(filepath.ToSlash(rel), l.Dir+"/")] = true
		}
		return nil
	})
	refGo, _ := filepath.Glob(filepath.Join(c.root, refDir, "*.go"))
	for _, f := range refGo {
		if name := filepath.Base(f); !strings.HasSuffix(name, "_test.go") {
			names[name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		fmt.Fprintf(c.stdout, "\n=== %s/%s (-reference +yours)\n", l.Dir, name)
		sides := []string{refDir + "/" + name, l.Dir + "/" + name}
		for i, p := range sides {
			if _, err := os.Stat(filepath.Join(c.root, p)); err != nil {
				sides[i] = os.DevNull
			}
		}
		c.check("", unifiedDiff(c.root, sides[0], sides[1], c.stdout))
	}
	return 0
}

// hasReference says whether this copy has the level's reference (a
// student copy has none).
func hasReference(root string, l levels.Level) bool {
	_, err := os.Stat(filepath.Join(root, l.SolutionDir()))
	return err == nil
}

// unifiedDiff writes a unified diff of two files with git, or diff where
// git is missing. Files that differ are the expected case, not an error.
func unifiedDiff(root, a, b string, w io.Writer) error {
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--", a, b)
	if _, err := exec.LookPath("git"); err != nil {
		cmd = exec.Command("diff", "-u", a, b)
	}
	var stderr bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, w, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("diff %s %s: %v %s", a, b, err, stderr.String())
	}
	fmt.Fprintln(w, "(the same)")
	return nil
}

// cmdDebrief is ladder debrief N: once a level is done, what the
// interviewer's guide says about it; before, it shows nothing of the answer.
func cmdDebrief(c *call) int {
	l := c.level(nil)
	fmt.Fprintf(c.stdout, "Checking level %d first...\n\n", l.Number)
	g, err := grade.TestLevel(c.root, l, 0)
	if err == nil {
		err = instructor.WriteDebrief(c.stdout, c.root, g, grade.Style{Color: useColor(c.stdout)})
	}
	c.check("ladder debrief:", err)
	return 0
}
