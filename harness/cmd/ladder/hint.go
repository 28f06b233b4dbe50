package main

import (
	"github.com/rateladder/rateladder/harness/levels"

	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var hintHeaderRE = regexp.MustCompile(`(?m)^##\s+Hint\b.*$`)

// readHints splits a level's HINTS.md at its "## Hint" headings.
func readHints(root string, l levels.Level) ([]string, error) {
	path := filepath.Join(root, l.Dir, "HINTS.md")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("level %d has no hints file: %w", l.Number, err)
	}
	text := string(data)
	locs := hintHeaderRE.FindAllStringIndex(text, -1)
	var hints []string
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		hints = append(hints, strings.TrimSpace(text[loc[0]:end]))
	}
	if len(hints) == 0 {
		return nil, fmt.Errorf("%s has no \"## Hint\" sections", path)
	}
	return hints, nil
}

// cmdHint shows the next hint the learner has not seen, and remembers it.
func cmdHint(root string, args []string, stdout, stderr io.Writer) int {
	l, hints, s, code := hintsFor("hint", root, args, stderr)
	if code != 0 {
		return code
	}
	key := strconv.Itoa(l.Number)
	seen := s.HintsSeen[key]
	// During a mock interview the hints start again from the first, and
	// each one counts in the interview's summary.
	iv := s.Interview
	interviewing := iv.running(l.Number, time.Now())
	if interviewing {
		seen = 0
		for _, n := range iv.Hints {
			seen += n
		}
	}
	if seen >= len(hints) {
		fmt.Fprintf(stdout, "You have seen all %d hints of level %d. make hints-%d shows them again; solutions/%s has the reference.\n",
			len(hints), l.Number, l.Number, filepath.Base(l.Dir))
		return 0
	}
	fmt.Fprintf(stdout, "Level %d, hint %d of %d\n\n%s\n", l.Number, seen+1, len(hints), hints[seen])
	s.HintsSeen[key] = max(s.HintsSeen[key], seen+1)
	if interviewing {
		if iv.Hints == nil {
			iv.Hints = map[string]int{}
		}
		iv.Hints[strconv.Itoa(iv.Part)]++
		fmt.Fprintf(stdout, "\nYou are in a mock interview of level %d: this hint counts in its summary.\n", l.Number)
	}
	if err := saveState(root, s); err != nil {
		fmt.Fprintln(stderr, "ladder hint: could not remember this hint:", err)
		return 1
	}
	if seen+1 < len(hints) {
		fmt.Fprintf(stdout, "\nStill stuck? make hint-%d shows the next one.\n", l.Number)
	}
	return 0
}

// cmdHints shows again every hint seen so far.
func cmdHints(root string, args []string, stdout, stderr io.Writer) int {
	l, hints, s, code := hintsFor("hints", root, args, stderr)
	if code != 0 {
		return code
	}
	seen := min(s.HintsSeen[strconv.Itoa(l.Number)], len(hints))
	if seen == 0 {
		fmt.Fprintf(stdout, "You have not asked for a hint on level %d yet. make hint-%d shows the first.\n", l.Number, l.Number)
		return 0
	}
	fmt.Fprintf(stdout, "Level %d: the %d of %d hints you have seen\n", l.Number, seen, len(hints))
	for _, h := range hints[:seen] {
		fmt.Fprintf(stdout, "\n%s\n", h)
	}
	return 0
}

func hintsFor(name, root string, args []string, stderr io.Writer) (levels.Level, []string, state, int) {
	l, ok := oneLevel(name, args, stderr)
	if !ok {
		return l, nil, state{}, 2
	}
	hints, err := readHints(root, l)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return l, nil, state{}, 1
	}
	s, err := loadState(root)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return l, nil, state{}, 1
	}
	return l, hints, s, 0
}
