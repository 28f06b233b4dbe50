// Package learner keeps what the ladder command remembers of a learner in
// .ladder/state.json, and reads a level's HINTS.md.
package learner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

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
	// InterviewRecord is the mock interview running now, kept unread for
	// package interview.
	InterviewRecord json.RawMessage `json:"interview,omitempty"`
}

// PartCache is the part a level was on, for one version of its files.
type PartCache struct {
	Files string `json:"files"` // a hash of the level's files
	Part  int    `json:"part"`  // the first part not done; 0 when all were
}

func statePath(root string) string { return filepath.Join(root, StateDir, "state.json") }

// Load reads .ladder/state.json and checks it: its numbers index the hints,
// so a damaged file is an error that says how to start afresh.
func Load(root string) (State, error) {
	s := State{HintsSeen: map[string]map[string]int{}, OnPart: map[string]PartCache{}}
	data, err := os.ReadFile(statePath(root))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	var unchecked State
	if err := json.Unmarshal(data, &unchecked); err != nil {
		return s, Damaged(err.Error())
	}
	for key, seen := range unchecked.HintsSeen {
		l, ok := LevelKey(key)
		if !ok {
			return s, Damaged(fmt.Sprintf("hints_seen names level %q, which the ladder does not have", key))
		}
		parts, err := ReadHints(root, l)
		if err := CheckCounts(l, "hints_seen of level "+key, seen, parts, err); err != nil {
			return s, err
		}
		s.HintsSeen[key] = seen
	}
	for key, c := range unchecked.OnPart {
		l, ok := LevelKey(key)
		if !ok {
			return s, Damaged(fmt.Sprintf("on_part names level %q, which the ladder does not have", key))
		}
		if _, ok := l.Part(c.Part); !ok && c.Part != 0 {
			return s, Damaged(fmt.Sprintf("on_part says level %d is on part %d, which it does not have", l.Number, c.Part))
		}
		s.OnPart[key] = c
	}
	s.InterviewRecord = unchecked.InterviewRecord
	return s, nil
}

// Damaged is the error of a bad state file, saying how to start afresh.
func Damaged(why string) error {
	return fmt.Errorf("%s is damaged (%s); delete %s to start the hints afresh", stateFile, why, stateFile)
}

// LevelKey returns the level a state key names, written as the ladder writes it: "3".
func LevelKey(key string) (levels.Level, bool) {
	l, err := levels.Find(key)
	return l, err == nil && strconv.Itoa(l.Number) == key
}

// CheckCounts checks hint counts by part key: each part the level's, each
// count from 0 to the part's hints (unchecked when hintsErr is not nil).
func CheckCounts(l levels.Level, what string, counts map[string]int, parts []HintPart, hintsErr error) error {
	for key, n := range counts {
		p, ok := LevelPart(l, key)
		if !ok {
			return Damaged(fmt.Sprintf("%s names part %q, which level %d does not have", what, key, l.Number))
		}
		if n < 0 {
			return Damaged(fmt.Sprintf("%s gives part %d %d hints, below 0", what, p, n))
		}
		if hintsErr == nil && n > len(parts[p-1].Hints) {
			return Damaged(fmt.Sprintf("%s gives part %d %d hints, and it has %d", what, p, n, len(parts[p-1].Hints)))
		}
	}
	return nil
}

// LevelPart returns the part a key names, written as the ladder writes it.
func LevelPart(l levels.Level, key string) (int, bool) {
	n, err := strconv.Atoi(key)
	if _, ok := l.Part(n); err != nil || !ok || strconv.Itoa(n) != key {
		return 0, false
	}
	return n, true
}

// Save writes the state through a temporary file, so that a crash never
// leaves half of it.
func Save(root string, s State) error {
	if err := os.MkdirAll(filepath.Join(root, StateDir), 0o755); err != nil {
		return ReadOnly(err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
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
