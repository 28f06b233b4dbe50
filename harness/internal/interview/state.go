package interview

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/internal/markdown"
	"github.com/rateladder/rateladder/harness/levels"
)

// StateDir is the git-ignored folder where the ladder command keeps its
// state, interview summaries and reset's backups.
const StateDir = ".ladder"

const stateFile = StateDir + "/state.json" // as messages name it

// State is the learner's small memory, kept in .ladder/state.json.
type State struct {
	// HintsSeen maps a level number, then a part number, to how many of
	// that part's hints were shown.
	HintsSeen map[string]map[string]int `json:"hints_seen"`
	// OnPart is, per level, the part the learner was on when its files were
	// last graded, so that make hint-N grades again only after an edit.
	OnPart map[string]PartCache `json:"on_part,omitempty"`
	// Interview is the mock interview running now, if any.
	Interview *Record `json:"interview,omitempty"`
}

// MaxBudget is the longest a mock interview lasts; a record claiming more
// is stale.
const MaxBudget = 12 * time.Hour

// Record is the mock interview running now, kept in state.json so that
// make hint-N, in another process, can count its hints.
type Record struct {
	Level int       `json:"level"`
	Part  int       `json:"part"`
	Until time.Time `json:"until"` // when the time is up, even if the interview did not end cleanly
	PID   int       `json:"pid,omitempty"`
	// Hints counts the hints asked for, by part.
	Hints map[string]int `json:"hints,omitempty"`
	// Offer, Named and NamedLines are the known mistakes offered as hints.
	Offer      *MistakeOffer  `json:"offer,omitempty"`
	Named      map[string]int `json:"named,omitempty"`
	NamedLines []string       `json:"named_lines,omitempty"`
}

// MistakeOffer is a known mistake offered as a hint: the part whose
// failing cases match it, and the line that names it.
type MistakeOffer struct {
	Part int    `json:"part"`
	Line string `json:"line"`
}

// Running reports whether r is an interview of level n that is still on:
// its time is not up and its process (if it names one) is still there.
func (r *Record) Running(n int, now time.Time) bool {
	if r == nil || r.Level != n || !now.Before(r.Until) || r.Until.Sub(now) > MaxBudget || r.PID < 0 {
		return false
	}
	if r.PID == 0 {
		return true
	}
	p, err := os.FindProcess(r.PID)
	if err != nil {
		return false // Windows finds only processes that exist
	}
	defer p.Release()
	if runtime.GOOS == "windows" {
		return true
	}
	// Signal 0 checks without sending: EPERM is a process of another user.
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// PartCache is the part a level was on, for one version of its files.
type PartCache struct {
	Files string `json:"files"` // a hash of the level's files
	Part  int    `json:"part"`  // the first part not done; 0 when all were
}

func statePath(root string) string { return filepath.Join(root, StateDir, "state.json") }

// Load reads .ladder/state.json. A file that is not JSON is damaged; its
// entries of a level or part the ladder lacks are dropped, and hint counts
// clamped to the part's hints, so that none indexes the hints wrongly. An
// interview's record has its Hints and Named, for make hint-N to count in.
func Load(root string) (State, error) {
	s := State{HintsSeen: map[string]map[string]int{}, OnPart: map[string]PartCache{}}
	data, err := os.ReadFile(statePath(root))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	var raw State
	if err := json.Unmarshal(data, &raw); err != nil {
		return s, fmt.Errorf("%s is damaged (%v); delete %s to start the hints afresh", stateFile, err, stateFile)
	}
	for _, l := range levels.All {
		key := strconv.Itoa(l.Number)
		if c, ok := raw.OnPart[key]; ok {
			if _, ok := l.Part(c.Part); ok || c.Part == 0 {
				s.OnPart[key] = c
			}
		}
		seen, ok := raw.HintsSeen[key]
		if !ok {
			continue
		}
		parts, hintsErr := ReadHints(root, l)
		s.HintsSeen[key] = map[string]int{}
		for i, p := range l.Parts {
			pkey := strconv.Itoa(p.Number)
			if n, ok := seen[pkey]; ok {
				if hintsErr == nil {
					n = min(n, len(parts[i].Hints))
				}
				s.HintsSeen[key][pkey] = max(n, 0)
			}
		}
	}
	if r := raw.Interview; r != nil {
		l, _ := levels.Numbered(r.Level) // a level the ladder lacks has no part
		if _, ok := l.Part(r.Part); ok {
			if o := r.Offer; o != nil {
				if _, ok := l.Part(o.Part); !ok {
					r.Offer = nil
				}
			}
			for _, m := range []*map[string]int{&r.Hints, &r.Named} {
				if *m == nil { // make hint-N counts into them
					*m = map[string]int{}
				}
			}
			s.Interview = r
		}
	}
	return s, nil
}

// Save writes the state through a temporary file, so that a crash never
// leaves half of it.
func Save(root string, s State) error {
	if err := os.MkdirAll(filepath.Join(root, StateDir), 0o755); err != nil {
		return ReadOnly(err)
	}
	data, _ := json.MarshalIndent(s, "", "  ") // its one time is a deadline on the clock: it encodes
	tmp := statePath(root) + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return ReadOnly(err)
	}
	return ReadOnly(os.Rename(tmp, statePath(root)))
}

// ReadOnly explains an error of a write into a read-only checkout's
// .ladder/; any other error it returns as it is.
func ReadOnly(err error) error {
	if !errors.Is(err, syscall.EROFS) && !errors.Is(err, fs.ErrPermission) {
		return err
	}
	return fmt.Errorf("this checkout is read-only (%v): the ladder keeps your hints and interviews in %s/, and cannot write there. Copy the repository to a folder you can write (cp -r or git clone), and run it there", err, StateDir)
}

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
	heads := slices.DeleteFunc(markdown.Split(markdown.Lines(string(data)), 2)[1:], func(s markdown.Section) bool {
		_, _, ok := markdown.PartHeading(s.Heading)
		return !ok
	})
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
		for j, hint := range markdown.Split(h.Lines, 3)[1:] {
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
