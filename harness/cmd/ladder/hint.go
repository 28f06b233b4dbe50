package main

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/levels"
)

// hintHeading heads one hint wherever it is shown.
func hintHeading(l levels.Level, p learner.HintPart, i int) string {
	return fmt.Sprintf("Level %d, part %d, hint %d of %d", l.Number, p.Number, i, len(p.Hints))
}

// cmdHint shows the next hint of the part the learner is on, or of the
// part --part names, and remembers it.
func cmdHint(root string, args []string, stdout, stderr io.Writer) int {
	var asked int
	l, ok := levelArg("hint", args, stderr, &asked, "a hint of this part, not of the part you are on", nil)
	if !ok {
		return 2
	}
	parts, s, code := hintsFor(root, l, stderr)
	if code != 0 {
		return code
	}
	// During a mock interview the hints start again from the first, and
	// each one counts in the interview's summary, in the part it is of.
	iv := s.Interview
	interviewing := iv.Running(l.Number, time.Now())
	if interviewing && interview.NameOfferedMistake(l, &s, asked, stdout) {
		return saveHints(root, s, stderr)
	}
	part := asked
	switch {
	case part != 0:
	case interviewing:
		part = iv.Part
	default:
		var ok bool
		if part, ok = partOn(root, l, &s, stdout, stderr); !ok {
			return 1
		}
	}
	if part == 0 {
		fmt.Fprintf(stdout, "Every part of level %d is done. make hint-%d PART=K shows part K's hints.\n", l.Number, l.Number)
		return saveHints(root, s, stderr)
	}
	p := parts[part-1]
	ownHints := len(p.Hints) // the hints of HINTS.md, which practice mode counts
	if interviewing {
		p = interview.WithGuidance(root, l, p)
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
		if hasReference(root, l) {
			next = fmt.Sprintf("%s has the reference, and make compare-level-%d shows it beside your code.", l.SolutionDir(), l.Number)
		}
		fmt.Fprintf(stdout, "You have seen all %s of level %d, part %d. make hints-%d shows them again; %s\n",
			grade.Plural(len(p.Hints), "hint"), l.Number, part, l.Number, next)
		return saveHints(root, s, stderr)
	}
	fmt.Fprintf(stdout, "%s\n\n%s\n", hintHeading(l, p, seen+1), p.Hints[seen])
	s.HintsSeen[key][pkey] = max(s.HintsSeen[key][pkey], min(seen+1, ownHints))
	if interviewing {
		iv.Hints[pkey]++
		fmt.Fprintf(stdout, "\nYou are in a mock interview of level %d: this hint counts in its summary.\n", l.Number)
	}
	if code := saveHints(root, s, stderr); code != 0 {
		return code
	}
	if seen+1 < len(p.Hints) {
		again := fmt.Sprintf("make hint-%d", l.Number)
		if asked != 0 {
			again += fmt.Sprintf(" PART=%d", part)
		}
		fmt.Fprintf(stdout, "\nStill stuck? %s shows the next one.\n", again)
	}
	return 0
}

func saveHints(root string, s learner.State, stderr io.Writer) int {
	if err := learner.Save(root, s); err != nil {
		return failed(stderr, "ladder hint: could not remember this hint:", err)
	}
	return 0
}

// partOn returns the part the learner is on: the first part of the level
// that is not done, 0 if every part is. Grading takes seconds, so the
// answer is kept in the state for the level's .go files as they are.
func partOn(root string, l levels.Level, s *learner.State, stdout, stderr io.Writer) (int, bool) {
	key := strconv.Itoa(l.Number)
	hash := filesHash(root, l)
	last, known := s.OnPart[key]
	if known && last.Files == hash {
		return last.Part, true
	}
	fmt.Fprintf(stdout, "Checking which part of level %d you are on…\n", l.Number)
	g, err := grade.TestLevel(root, l, 0)
	if err != nil {
		fmt.Fprintln(stderr, "ladder hint:", err)
		return 0, false
	}
	part := partInProgress(g)
	if g.BuildError != "" || len(g.Broken) > 0 || len(g.Unverified) > 0 {
		// The grade says nothing of the parts: keep to the last answer.
		if known && last.Part != 0 {
			part = last.Part
		}
		fmt.Fprintf(stdout, "Level %d: %s, so the part you are on is not known; these are the hints of part %d (make hint-%d PART=K for part K).\n\n", l.Number, g.Status(), part, l.Number)
		return part, true
	}
	s.OnPart[key] = learner.PartCache{Files: hash, Part: part}
	return part, true
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
func cmdHints(root string, args []string, stdout, stderr io.Writer) int {
	l, ok := levelArg("hints", args, stderr, nil, "", nil)
	if !ok {
		return 2
	}
	parts, s, code := hintsFor(root, l, stderr)
	if code != 0 {
		return code
	}
	seen := s.HintsSeen[strconv.Itoa(l.Number)]
	shown, total := 0, 0
	for _, p := range parts {
		shown += seen[strconv.Itoa(p.Number)]
		total += len(p.Hints)
	}
	if shown == 0 {
		fmt.Fprintf(stdout, "You have not asked for a hint on level %d yet. make hint-%d shows the first of the part you are on.\n", l.Number, l.Number)
		return 0
	}
	fmt.Fprintf(stdout, "Level %d: the %d of %d hints you have seen\n", l.Number, shown, total)
	for _, p := range parts {
		for i, h := range p.Hints[:seen[strconv.Itoa(p.Number)]] {
			fmt.Fprintf(stdout, "\n%s\n\n%s\n", hintHeading(l, p, i+1), h)
		}
	}
	return 0
}

// hintsFor reads a level's hints and the state, or says what is wrong.
func hintsFor(root string, l levels.Level, stderr io.Writer) ([]learner.HintPart, learner.State, int) {
	parts, err := learner.ReadHints(root, l)
	var s learner.State
	if err == nil {
		s, err = learner.Load(root)
	}
	if err != nil {
		return nil, s, failed(stderr, "", err)
	}
	return parts, s, 0
}

// filesHash is the cache key of the level's files as they are.
func filesHash(root string, l levels.Level) string {
	h := fnv.New128a() // a cache key needs no cryptographic hash
	io.WriteString(h, interview.Snapshot(filepath.Join(root, l.Dir)))
	return hex.EncodeToString(h.Sum(nil))
}
