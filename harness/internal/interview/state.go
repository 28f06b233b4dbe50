package interview

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/levels"
)

// State is the learner's state with the record of the interview under
// way, if any, read and checked.
type State struct {
	learner.State
	Interview *Record
}

// LoadState reads the learner's state and checks its interview record.
func LoadState(root string) (State, error) {
	ls, err := learner.Load(root)
	s := State{State: ls}
	if err != nil || len(ls.InterviewRecord) == 0 {
		return s, err
	}
	var iv Record
	if err := json.Unmarshal(ls.InterviewRecord, &iv); err != nil {
		return s, learner.Damaged(err.Error())
	}
	l, ok := learner.LevelKey(strconv.Itoa(iv.Level))
	if !ok {
		return s, learner.Damaged(fmt.Sprintf("the interview is of level %d, which the ladder does not have", iv.Level))
	}
	if _, ok := l.Part(iv.Part); !ok {
		return s, learner.Damaged(fmt.Sprintf("the interview is on part %d of level %d, which it does not have", iv.Part, l.Number))
	}
	if err := checkNamed(l, &iv); err != nil {
		return s, err
	}
	// An interview's hints go on with the README's guidance.
	parts, hintsErr := learner.ReadHints(root, l)
	if hintsErr == nil {
		parts = WithGuidance(root, l, parts)
	}
	if err := learner.CheckCounts(l, "the interview's hints", iv.ownHints(), parts, hintsErr); err != nil {
		return s, err
	}
	s.Interview = &iv
	return s, nil
}

// SaveState writes the learner's state with its interview record.
func SaveState(root string, s State) error {
	ls := s.State
	ls.InterviewRecord = nil
	if s.Interview != nil {
		data, err := json.Marshal(s.Interview)
		if err != nil {
			return err
		}
		ls.InterviewRecord = data
	}
	return learner.Save(root, ls)
}

// WithGuidance adds the README's guidance of each part, which interview
// mode keeps from the question, to its hints, last.
func WithGuidance(root string, l levels.Level, parts []learner.HintPart) []learner.HintPart {
	r, err := ReadmeParts(root, l)
	if err != nil {
		return parts
	}
	out := make([]learner.HintPart, len(parts))
	for i, p := range parts {
		p.Hints = append([]string(nil), p.Hints...)
		for _, g := range r.Guidance[p.Number] {
			p.Hints = append(p.Hints, "From the README:\n\n"+g)
		}
		out[i] = p
	}
	return out
}
