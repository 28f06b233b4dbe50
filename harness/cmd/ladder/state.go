package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// stateDir is the git-ignored folder where the ladder command keeps what it
// must remember between runs: hints seen, and backups made by reset.
const stateDir = ".ladder"

// state is the learner's small memory, kept in .ladder/state.json.
type state struct {
	// HintsSeen maps a level number to how many of its hints were shown.
	HintsSeen map[string]int `json:"hints_seen"`
	// Interview is the mock interview running now, if any: the hints
	// asked for during it count in its summary.
	Interview *interviewRun `json:"interview,omitempty"`
}

func statePath(root string) string { return filepath.Join(root, stateDir, "state.json") }

func loadState(root string) (state, error) {
	s := state{HintsSeen: map[string]int{}}
	data, err := os.ReadFile(statePath(root))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s is damaged (%v); delete it to start afresh", statePath(root), err)
	}
	if s.HintsSeen == nil {
		s.HintsSeen = map[string]int{}
	}
	return s, nil
}

func saveState(root string, s state) error {
	if err := os.MkdirAll(filepath.Join(root, stateDir), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(root) + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(root))
}
