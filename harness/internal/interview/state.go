package interview

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

// StateDir is the git-ignored folder where the ladder command keeps what it
// must remember between runs: hints seen, and backups made by reset.
const StateDir = ".ladder"

// stateFile is the state's path from the repository's top folder, as
// messages name it.
const stateFile = StateDir + "/state.json"

// State is the learner's small memory, kept in .ladder/state.json.
type State struct {
	// HintsSeen maps a level number, then a part number, to how many of
	// that part's hints were shown.
	HintsSeen map[string]map[string]int `json:"hints_seen"`
	// OnPart remembers, per level, the part the learner was on when the
	// level's files were last graded, so that make hint-N grades again
	// only after an edit.
	OnPart map[string]PartCache `json:"on_part,omitempty"`
	// Interview is the mock interview running now, if any: the hints
	// asked for during it count in its summary.
	Interview *Record `json:"interview,omitempty"`
}

// PartCache is the part a level was on, for one version of its files.
type PartCache struct {
	// Files is learnerHash of the level's files when it was graded.
	Files string `json:"files"`
	// Part is the first part that was not done; 0 when every part was.
	Part int `json:"part"`
}

func statePath(root string) string { return filepath.Join(root, StateDir, "state.json") }

// LoadState reads .ladder/state.json. A file the ladder did not write, or
// that is cut short, is an error that says how to start afresh: the
// numbers in it index the hints, so none is used unchecked.
func LoadState(root string) (State, error) {
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
		return s, damaged(err.Error())
	}
	for key, seen := range unchecked.HintsSeen {
		l, ok := levelKey(key)
		if !ok {
			return s, damaged(fmt.Sprintf("hints_seen names level %q, which the ladder does not have", key))
		}
		if err := checkCounts(root, l, "hints_seen of level "+key, seen, false); err != nil {
			return s, err
		}
		s.HintsSeen[key] = seen
	}
	for key, c := range unchecked.OnPart {
		l, ok := levelKey(key)
		if !ok {
			return s, damaged(fmt.Sprintf("on_part names level %q, which the ladder does not have", key))
		}
		if _, ok := l.Part(c.Part); !ok && c.Part != 0 {
			return s, damaged(fmt.Sprintf("on_part says level %d is on part %d, which it does not have", l.Number, c.Part))
		}
		s.OnPart[key] = c
	}
	if iv := unchecked.Interview; iv != nil {
		l, ok := levelKey(strconv.Itoa(iv.Level))
		if !ok {
			return s, damaged(fmt.Sprintf("the interview is of level %d, which the ladder does not have", iv.Level))
		}
		if _, ok := l.Part(iv.Part); !ok {
			return s, damaged(fmt.Sprintf("the interview is on part %d of level %d, which it does not have", iv.Part, l.Number))
		}
		if err := checkNamed(l, iv); err != nil {
			return s, err
		}
		if err := checkCounts(root, l, "the interview's hints", iv.ownHints(), true); err != nil {
			return s, err
		}
		s.Interview = iv
	}
	return s, nil
}

// damaged is the one error a bad state file gives: which file, what is
// wrong, and how to start afresh.
func damaged(why string) error {
	return fmt.Errorf("%s is damaged (%s); delete %s to start the hints afresh", stateFile, why, stateFile)
}

// levelKey returns the level a key of the state names, written exactly
// as the ladder writes it: "3".
func levelKey(key string) (levels.Level, bool) {
	l, err := levels.Find(key)
	return l, err == nil && strconv.Itoa(l.Number) == key
}

// checkCounts checks a count per part: every part is one of the level's,
// and no count is below 0 or above the part's hints. Without a readable
// HINTS.md only the parts are checked. An interview's hints go on with
// the README's guidance.
func checkCounts(root string, l levels.Level, what string, counts map[string]int, inInterview bool) error {
	parts, hintsErr := ReadHints(root, l)
	if inInterview && hintsErr == nil {
		parts = WithGuidance(root, l, parts)
	}
	for key, n := range counts {
		p, ok := levelPart(l, key)
		if !ok {
			return damaged(fmt.Sprintf("%s names part %q, which level %d does not have", what, key, l.Number))
		}
		if n < 0 {
			return damaged(fmt.Sprintf("%s gives part %d %d hints, below 0", what, p, n))
		}
		if hintsErr == nil && n > len(parts[p-1].Hints) {
			return damaged(fmt.Sprintf("%s gives part %d %d hints, and it has %d", what, p, n, len(parts[p-1].Hints)))
		}
	}
	return nil
}

// levelPart returns the part a key names, written as the ladder writes it.
func levelPart(l levels.Level, key string) (int, bool) {
	n, err := strconv.Atoi(key)
	if _, ok := l.Part(n); err != nil || !ok || strconv.Itoa(n) != key {
		return 0, false
	}
	return n, true
}

// SaveState writes the state, through a temporary file, so that a crash
// never leaves half of it.
func SaveState(root string, s State) error {
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

// ReadOnly turns the error of a write into .ladder/ in a checkout the
// user cannot write into one that says so, and what to do; any other
// error it returns as it is.
func ReadOnly(err error) error {
	if !errors.Is(err, syscall.EROFS) && !errors.Is(err, fs.ErrPermission) {
		return err
	}
	return fmt.Errorf("this checkout is read-only (%v): the ladder keeps your hints and interviews in %s/, and cannot write there. Copy the repository to a folder you can write (cp -r or git clone), and run it there", err, StateDir)
}
