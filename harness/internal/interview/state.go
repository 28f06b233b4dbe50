package interview

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/internal/markdown"
	"github.com/rateladder/rateladder/harness/levels"
)

// StateDir is the git-ignored folder of the ladder's state, summaries and backups.
const StateDir = ".ladder"

const stateFile = StateDir + "/state.json"

// MaxBudget is the longest a mock interview lasts; a record claiming more is stale.
const MaxBudget = 12 * time.Hour

// State is the learner's memory in .ladder/state.json, keyed by level, then part number.
type State struct {
	HintsSeen map[string]map[string]int `json:"hints_seen"` // how many of a part's hints were shown
	// OnPart is the part a level was on when last graded: make hint-N grades again only after an edit.
	OnPart    map[string]PartCache `json:"on_part,omitempty"`
	Interview *Record              `json:"interview,omitempty"` // the mock interview running now
}

// PartCache is the part a level was on, for one version of its files.
type PartCache struct {
	Files string `json:"files"` // a hash of the level's files
	Part  int    `json:"part"`  // the first part not done; 0 when all were
}

// Record is the interview running now, for make hint-N, in another process, to count hints.
type Record struct {
	Level int            `json:"level"`
	Part  int            `json:"part"`
	Until time.Time      `json:"until"` // when the time is up, even if the interview did not end cleanly
	PID   int            `json:"pid,omitempty"`
	Hints map[string]int `json:"hints,omitempty"`
	Named map[string]int `json:"named,omitempty"` // the hints that named a known mistake
	// Offer is the mistake the next hint names; NamedLines, those named, are not offered again.
	Offer      *MistakeOffer `json:"offer,omitempty"`
	NamedLines []string      `json:"named_lines,omitempty"`
}

// MistakeOffer is a known mistake offered as a hint of the part whose cases match it.
type MistakeOffer struct {
	Part int    `json:"part"`
	Line string `json:"line"`
}

// Running reports whether r is an interview of level n still on: in time, its process alive.
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
	defer p.Release() // a pidfd on Linux, held until released
	if runtime.GOOS == "windows" {
		return true
	}
	// Signal 0 checks without sending: EPERM is a process of another user.
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Load reads .ladder/state.json, dropping entries of a level or part the
// ladder lacks and clamping hint counts, so that none indexes the hints wrongly.
func Load(root string) (State, error) {
	var raw State
	data, err := os.ReadFile(filepath.Join(root, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		data, err = []byte("{}"), nil
	}
	if err != nil {
		return State{}, err
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return State{}, fmt.Errorf("%s is damaged (%v); delete %s to start the hints afresh", stateFile, err, stateFile)
	}
	s := State{HintsSeen: map[string]map[string]int{}, OnPart: map[string]PartCache{}}
	for _, l := range levels.All {
		key := strconv.Itoa(l.Number)
		if c, ok := raw.OnPart[key]; ok && (c.Part == 0 || hasPart(l, c.Part)) {
			s.OnPart[key] = c
		}
		if seen, ok := raw.HintsSeen[key]; ok {
			hints, err := ReadHints(root, l)
			s.HintsSeen[key] = map[string]int{}
			for i, p := range l.Parts {
				if n, ok := seen[strconv.Itoa(p.Number)]; ok {
					if err == nil {
						n = min(n, len(hints[i].Hints))
					}
					s.HintsSeen[key][strconv.Itoa(p.Number)] = max(0, n)
				}
			}
		}
	}
	if r := raw.Interview; r != nil {
		l, _ := levels.Numbered(r.Level) // a level the ladder lacks has no part
		if r.Offer != nil && !hasPart(l, r.Offer.Part) {
			r.Offer = nil
		}
		if hasPart(l, r.Part) {
			s.Interview = r
			for _, m := range []*map[string]int{&r.Hints, &r.Named} {
				if *m == nil { // make hint-N counts into them
					*m = map[string]int{}
				}
			}
		}
	}
	return s, nil
}

// hasPart reports whether l has a part numbered n.
func hasPart(l levels.Level, n int) bool {
	_, ok := l.Part(n)
	return ok
}

// Save writes the state into .ladder/state.json.
func Save(root string, s State) error { return writeJSON(root, stateFile, s) }

// writeJSON writes v to root/rel through a temporary file: a crash never leaves half of it.
func writeJSON(root, rel string, v any) error {
	path := filepath.Join(root, rel)
	data, _ := json.MarshalIndent(v, "", "  ") // its times are the clock's: it encodes
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = os.WriteFile(path+".tmp", append(data, '\n'), 0o644)
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	return ReadOnly(err)
}

// ReadOnly explains an error of a write into a read-only checkout's .ladder/.
func ReadOnly(err error) error {
	if !errors.Is(err, syscall.EROFS) && !errors.Is(err, fs.ErrPermission) {
		return err
	}
	return fmt.Errorf("this checkout is read-only (%v): the ladder keeps your hints and interviews in %s/, and cannot write there. Copy the repository to a folder you can write (cp -r or git clone), and run it there", err, StateDir)
}

// HintPart is one part's section of HINTS.md.
type HintPart struct {
	Number int
	Title  string
	Hints  []string // each hint's text, without its heading
}

// ReadHints reads a level's HINTS.md, checked against the registry.
func ReadHints(root string, l levels.Level) ([]HintPart, error) {
	rel := l.Dir + "/HINTS.md"
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, fmt.Errorf("level %d has no hints file: %w", l.Number, err)
	}
	var parts []HintPart
	for i, h := range markdown.Split(markdown.Lines(string(data)), 2)[1:] {
		n, title, _ := markdown.PartHeading(h.Heading)
		p := HintPart{Number: n, Title: title}
		for j, hint := range markdown.Split(h.Lines, 3)[1:] {
			if hint.Heading != "Hint "+strconv.Itoa(j+1) {
				return nil, fmt.Errorf("%s:%d: part %d's hint %d is headed %q", rel, hint.Line, n, j+1, hint.Heading)
			}
			p.Hints = append(p.Hints, hint.Body())
		}
		if i >= len(l.Parts) || n != l.Parts[i].Number || title != l.Parts[i].Title || len(p.Hints) == 0 {
			return nil, fmt.Errorf("%s:%d: %q with %d hints; want a section per part, as in harness/levels, headed \"## Part N: title\" with \"### Hint 1\" and on", rel, h.Line, h.Heading, len(p.Hints))
		}
		parts = append(parts, p)
	}
	if len(parts) < len(l.Parts) {
		return nil, fmt.Errorf("%s has %d \"## Part N: title\" sections; level %d has %d parts", rel, len(parts), l.Number, len(l.Parts))
	}
	return parts, nil
}
