package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
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
// part --part names, and remembers it. During a mock interview the hints
// start again from the first, with the README's guidance after HINTS.md's,
// and each counts in the interview's summary, in the part it is of.
func cmdHint(c *call) int {
	asked := c.fs.Int("part", 0, "a hint of this part, not of the part you are on")
	l := c.level(asked)
	parts, s := c.hints(l)
	defer func() { c.check("ladder hint: could not remember this hint:", interview.Save(c.root, s)) }()
	iv := s.Interview
	interviewing := iv.Running(l.Number, time.Now())
	if interviewing && interview.NameOfferedMistake(l, &s, *asked, c.stdout) {
		return 0
	}
	part := *asked
	if part == 0 && interviewing {
		part = iv.Part
	} else if part == 0 {
		part = c.partOn(l, &s)
	}
	if part == 0 {
		fmt.Fprintf(c.stdout, "Every part of level %d is done. make hint-%d PART=K shows part K's hints.\n", l.Number, l.Number)
		return 0
	}
	p, key, pkey := parts[part-1], strconv.Itoa(l.Number), strconv.Itoa(part)
	seen := s.HintsSeen[key][pkey]
	if interviewing {
		p = interview.WithGuidance(c.root, l, p)
		seen = max(0, iv.Hints[pkey]-iv.Named[pkey]) // a named mistake is no hint of HINTS.md
	}
	if seen >= len(p.Hints) {
		next := fmt.Sprintf("read part %d of %s/README.md again, and make test-level-%d PART=%d shows the first case that fails.", part, l.Dir, l.Number, part)
		if hasReference(c.root, l) { // a student copy has none
			next = l.SolutionDir() + " has the reference, to read beside your code."
		}
		fmt.Fprintf(c.stdout, "You have seen all %s of level %d, part %d. make hints-%d shows them again; %s\n",
			grade.Plural(len(p.Hints), "hint"), l.Number, part, l.Number, next)
		return 0
	}
	fmt.Fprintf(c.stdout, "%s\n\n%s\n", hintHeading(l, p, seen+1), p.Hints[seen])
	if s.HintsSeen[key] == nil {
		s.HintsSeen[key] = map[string]int{}
	}
	// Practice mode counts the hints of HINTS.md alone.
	s.HintsSeen[key][pkey] = max(s.HintsSeen[key][pkey], min(seen+1, len(parts[part-1].Hints)))
	if interviewing {
		iv.Hints[pkey]++
		fmt.Fprintf(c.stdout, "\nYou are in a mock interview of level %d: this hint counts in its summary.\n", l.Number)
	}
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
	key, h := strconv.Itoa(l.Number), fnv.New128a() // a cache key needs no cryptographic hash
	io.WriteString(h, interview.Snapshot(filepath.Join(c.root, l.Dir)))
	last, hash := s.OnPart[key], fmt.Sprintf("%x", h.Sum(nil))
	if last.Files == hash {
		return last.Part
	}
	fmt.Fprintf(c.stdout, "Checking which part of level %d you are on…\n", l.Number)
	g, err := grade.TestLevel(c.root, l, 0)
	c.check("ladder hint:", err)
	part := partInProgress(g)
	if g.BuildError != "" || len(g.Broken) > 0 || len(g.Unverified) > 0 {
		// The grade says nothing of the parts: keep to the last answer.
		part = cmp.Or(last.Part, part)
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
	var shown, total int
	for _, p := range parts {
		shown, total = shown+seen[strconv.Itoa(p.Number)], total+len(p.Hints)
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

// stdin is where questions are answered; tests replace it.
var stdin io.Reader = os.Stdin

// cmdReset puts a level back as shipped.ResetPlan plans, moving the
// learner's versions, and the files that are not the level's, into a new
// backup folder.
func cmdReset(c *call) int {
	l := c.level(nil)
	plan, err := shipped.ResetPlan(c.root, l)
	c.check("", err)
	short := plan.Shipped.Commit[:min(7, len(plan.Shipped.Commit))]
	if len(plan.Restore) == 0 && len(plan.Move) == 0 {
		fmt.Fprintf(c.stdout, "Level %d is already as shipped (commit %s); nothing to restore.\n", l.Number, short)
		return 0
	}
	fmt.Fprintf(c.stdout, "This puts level %d back as shipped (commit %s):\n", l.Number, short)
	for _, p := range plan.Restore {
		fmt.Fprintf(c.stdout, "  restores %s\n", p)
	}
	for _, p := range plan.Move {
		fmt.Fprintf(c.stdout, "  moves    %s (not part of the level as shipped)\n", p)
	}
	backups := filepath.Join(interview.StateDir, "backups")
	fmt.Fprintf(c.stdout, "Your files go to a new folder in %s/.\n", backups)
	if os.Getenv("FORCE") != "1" {
		fmt.Fprint(c.stdout, "Go ahead? [y/N] ")
		if line, _ := bufio.NewReader(stdin).ReadString('\n'); !slices.Contains([]string{"y", "yes"}, strings.ToLower(strings.TrimSpace(line))) {
			fmt.Fprintln(c.stdout, "Nothing changed.")
			return 0
		}
	}
	// A new folder named after the time, and unique within it.
	c.check("could not make a backup folder, so nothing changed:", os.MkdirAll(filepath.Join(c.root, backups), 0o755))
	backup, err := os.MkdirTemp(filepath.Join(c.root, backups), fmt.Sprintf("level-%d-%s-*", l.Number, time.Now().Format("20060102-150405")))
	c.check("could not make a backup folder, so nothing changed:", err)
	backup, _ = filepath.Rel(c.root, backup)
	// Move first, write after: whatever fails, the learner's files are
	// already safe in the backup.
	for _, p := range append(slices.Clone(plan.Restore), plan.Move...) {
		if _, err := os.Lstat(filepath.Join(c.root, p)); errors.Is(err, fs.ErrNotExist) {
			continue // a stub the learner deleted
		}
		dst := filepath.Join(c.root, backup, p)
		c.check("could not move "+p+" into the backup:", cmp.Or(os.MkdirAll(filepath.Dir(dst), 0o755), os.Rename(filepath.Join(c.root, p), dst)))
		for d := filepath.Dir(p); len(d) > len(l.Dir); d = filepath.Dir(d) {
			os.Remove(filepath.Join(c.root, d)) // fails, as it should, on a folder with files
		}
	}
	for _, p := range plan.Restore {
		dst := filepath.Join(c.root, p)
		c.check("", cmp.Or(os.MkdirAll(filepath.Dir(dst), 0o755), os.WriteFile(dst, plan.Shipped.Files[p], 0o644)))
		fmt.Fprintf(c.stdout, "restored %s\n", p)
	}
	for _, p := range plan.Move {
		fmt.Fprintf(c.stdout, "moved    %s\n", p)
	}
	fmt.Fprintf(c.stdout, "Your files are in %s/.\nTo get them back: cp -R %s/. .\n", backup, backup)
	return 0
}

// hasReference says whether this copy has the level's reference (a
// student copy has none).
func hasReference(root string, l levels.Level) bool {
	_, err := os.Stat(filepath.Join(root, l.SolutionDir()))
	return err == nil
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
