package learner

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/markdown"
)

// A level's HINTS.md has a "## Part N: title" section per part, with
// "### Hint K" headings in each.
var hintRE = regexp.MustCompile(`^Hint\s+(\d+)$`)

// HintPart is one part's section of HINTS.md.
type HintPart struct {
	Number int
	Title  string
	Hints  []string // each hint's text, without its heading
}

// ReadHints reads a level's HINTS.md and checks its parts and titles
// against the registry, and its hints' numbers.
func ReadHints(root string, l levels.Level) ([]HintPart, error) {
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
	var parts []HintPart
	for i, h := range heads {
		want := l.Parts[i]
		n, title, _ := markdown.PartHeading(h.Heading)
		if n != want.Number || title != want.Title {
			return nil, fmt.Errorf("%s: section %d is \"Part %d: %s\", want \"Part %d: %s\" as in harness/levels", rel, i+1, n, title, want.Number, want.Title)
		}
		p := HintPart{Number: n, Title: title}
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
