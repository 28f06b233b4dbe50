package main

import (
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/markdown"

	"encoding/hex"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"
)

// A level's HINTS.md has one section per part, headed as the README heads
// the part, and numbered hints in each:
//
//	## Part 2: Distinct drinks
//
//	### Hint 1
//
// A learner stuck on part 6 then reads part 6's hints, not the first five
// parts' first.
var hintRE = regexp.MustCompile(`^Hint\s+(\d+)$`)

// hintPart is one part's section of HINTS.md.
type hintPart struct {
	Number int
	Title  string
	Hints  []string // each hint's text, without its heading
}

// readHints reads a level's HINTS.md and checks it against the registry:
// one section per part, in order, with the registry's titles, and hints
// numbered from 1 in each.
func readHints(root string, l levels.Level) ([]hintPart, error) {
	path := filepath.Join(root, l.Dir, "HINTS.md")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("level %d has no hints file: %w", l.Number, err)
	}
	rel := l.Dir + "/HINTS.md"
	var heads []markdown.Section
	for _, s := range markdown.Split(string(data), 2)[1:] {
		if _, _, ok := markdown.PartHeading(s.Heading); ok {
			heads = append(heads, s)
		}
	}
	if len(heads) != len(l.Parts) {
		return nil, fmt.Errorf("%s has %d \"## Part N: title\" sections; level %d has %d parts", rel, len(heads), l.Number, len(l.Parts))
	}
	var parts []hintPart
	for i, h := range heads {
		want := l.Parts[i]
		n, title, _ := markdown.PartHeading(h.Heading)
		if n != want.Number || title != want.Title {
			return nil, fmt.Errorf("%s: section %d is \"Part %d: %s\", want \"Part %d: %s\" as in harness/levels", rel, i+1, n, title, want.Number, want.Title)
		}
		p := hintPart{Number: n, Title: title}
		for j, hint := range markdown.SplitLines(h.Lines, 3)[1:] {
			m := hintRE.FindStringSubmatch(hint.Heading)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: part %d has a heading %q; its hints are headed \"### Hint N\"", rel, hint.Line, n, hint.Heading)
			}
			if k, _ := strconv.Atoi(m[1]); k != j+1 {
				return nil, fmt.Errorf("%s: part %d's hint %d is headed \"Hint %d\"", rel, n, j+1, k)
			}
			p.Hints = append(p.Hints, hint.Body())
		}
		if len(p.Hints) == 0 {
			return nil, fmt.Errorf("%s: part %d has no \"### Hint 1\"", rel, n)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// withGuidance adds to each part's hints the README's guidance of the
// part, which interview mode keeps from the question: in an interview it
// comes as the last hints. A README that cannot be read adds none.
func withGuidance(root string, l levels.Level, parts []hintPart) []hintPart {
	r, err := readmeParts(root, l)
	if err != nil {
		return parts
	}
	out := make([]hintPart, len(parts))
	for i, p := range parts {
		p.Hints = append([]string(nil), p.Hints...)
		for _, g := range r.guidance[p.Number] {
			p.Hints = append(p.Hints, "From the README:\n\n"+g)
		}
		out[i] = p
	}
	return out
}

// hintHeading heads one hint wherever it is shown.
func hintHeading(l levels.Level, p hintPart, i int) string {
	return fmt.Sprintf("Level %d, part %d, hint %d of %d", l.Number, p.Number, i, len(p.Hints))
}

// cmdHint shows the next hint of the part the learner is on, or of the
// part --part names, and remembers it.
func cmdHint(root string, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("hint", flag.ContinueOnError)
	flags.SetOutput(stderr)
	asked := flags.Int("part", 0, "a hint of this part, not of the part you are on")
	l, ok := levelArg("hint", flags, args, stderr)
	if !ok {
		return 2
	}
	if *asked != 0 {
		if _, ok := l.Part(*asked); !ok {
			fmt.Fprintf(stderr, "level %d has no part %d; its parts are 1 to %d\n", l.Number, *asked, len(l.Parts))
			return 2
		}
	}
	parts, s, code := hintsFor(root, l, stderr)
	if code != 0 {
		return code
	}
	// During a mock interview the hints start again from the first, and
	// each one counts in the interview's summary, in the part it is of.
	iv := s.Interview
	interviewing := iv.running(l.Number, time.Now())
	if interviewing && nameOfferedMistake(l, &s, *asked, stdout) {
		return saveHints(root, s, stderr)
	}
	part := *asked
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
		p = withGuidance(root, l, parts)[part-1]
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
		fmt.Fprintf(stdout, "You have seen all %s of level %d, part %d. make hints-%d shows them again; %s\n",
			plural(len(p.Hints), "hint"), l.Number, part, l.Number, afterHints(root, l, part))
		return saveHints(root, s, stderr)
	}
	fmt.Fprintf(stdout, "%s\n\n%s\n", hintHeading(l, p, seen+1), p.Hints[seen])
	s.HintsSeen[key][pkey] = max(s.HintsSeen[key][pkey], min(seen+1, ownHints))
	if interviewing {
		if iv.Hints == nil {
			iv.Hints = map[string]int{}
		}
		iv.Hints[pkey]++
		fmt.Fprintf(stdout, "\nYou are in a mock interview of level %d: this hint counts in its summary.\n", l.Number)
	}
	if code := saveHints(root, s, stderr); code != 0 {
		return code
	}
	if seen+1 < len(p.Hints) {
		again := fmt.Sprintf("make hint-%d", l.Number)
		if *asked != 0 {
			again += fmt.Sprintf(" PART=%d", part)
		}
		fmt.Fprintf(stdout, "\nStill stuck? %s shows the next one.\n", again)
	}
	return 0
}

// afterHints says where to go once a part's hints are all seen: the
// reference only where this copy has it (a student copy has none).
func afterHints(root string, l levels.Level, part int) string {
	if _, err := os.Stat(filepath.Join(root, l.SolutionDir())); err == nil {
		return fmt.Sprintf("%s has the reference, and make compare-level-%d shows it beside your code.", l.SolutionDir(), l.Number)
	}
	return fmt.Sprintf("read part %d of %s/README.md again, and make test-level-%d PART=%d shows the first case that fails.", part, l.Dir, l.Number, part)
}

func saveHints(root string, s state, stderr io.Writer) int {
	if err := saveState(root, s); err != nil {
		fmt.Fprintln(stderr, "ladder hint: could not remember this hint:", err)
		return 1
	}
	return 0
}

// partOn returns the part the learner is on: the first part of the level
// that is not done, 0 if every part is. Grading takes seconds, so the
// answer is kept in the state for the level's files as they are.
func partOn(root string, l levels.Level, s *state, stdout, stderr io.Writer) (int, bool) {
	key := strconv.Itoa(l.Number)
	hash, hashErr := learnerHash(root, l)
	last, known := s.OnPart[key]
	if hashErr == nil && known && last.Files == hash {
		return last.Part, true
	}
	fmt.Fprintf(stdout, "Checking which part of level %d you are on…\n", l.Number)
	g, err := testLevel(root, l, 0)
	if err != nil {
		fmt.Fprintln(stderr, "ladder hint:", err)
		return 0, false
	}
	part := 0
	for _, p := range g.Parts {
		if !p.Done {
			part = p.Number
			break
		}
	}
	if g.BuildError != "" || len(g.Broken) > 0 || len(g.Unverified) > 0 {
		// The grade says nothing of the parts: keep to the last answer.
		if known && last.Part != 0 {
			part = last.Part
		}
		fmt.Fprintf(stdout, "Level %d: %s, so the part you are on is not known; these are the hints of part %d (make hint-%d PART=K for part K).\n\n", l.Number, g.status(), part, l.Number)
		return part, true
	}
	if hashErr == nil {
		s.OnPart[key] = partCache{Files: hash, Part: part}
	}
	return part, true
}

// learnerHash is a hash of the level's files that the learner writes, its
// code and its tests (see levels.Code and levels.Test), with their paths.
func learnerHash(root string, l levels.Level) (string, error) {
	dir := filepath.Join(root, filepath.FromSlash(l.Dir))
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch _, role := levels.RoleOf(filepath.ToSlash(rel)); {
		case d.IsDir() && (role == levels.Spec || role == levels.Testdata):
			return filepath.SkipDir
		case !d.IsDir() && (role == levels.Code || role == levels.Test):
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	// A cache key needs no cryptographic hash: FNV-128 is as good at
	// telling two versions apart, and unlike crypto/sha256 adds nothing
	// to the command's first build.
	h := fnv.New128a()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(dir, f)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cmdHints shows again every hint seen so far, part by part.
func cmdHints(root string, args []string, stdout, stderr io.Writer) int {
	l, ok := oneLevel("hints", args, stderr)
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
func hintsFor(root string, l levels.Level, stderr io.Writer) ([]hintPart, state, int) {
	parts, err := readHints(root, l)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, state{}, 1
	}
	s, err := loadState(root)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, state{}, 1
	}
	return parts, s, 0
}
