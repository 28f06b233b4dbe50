package interview

import (
	"encoding/json"

	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/levels"
)

// State is the learner's state with the record of the interview under
// way, if any.
type State struct {
	learner.State
	Interview *Record
}

// LoadState reads the learner's state and its interview record, dropping
// a record of a level or part the ladder lacks.
func LoadState(root string) (State, error) {
	ls, err := learner.Load(root)
	s := State{State: ls}
	if err != nil || len(ls.InterviewRecord) == 0 {
		return s, err
	}
	var r Record
	if err := json.Unmarshal(ls.InterviewRecord, &r); err != nil {
		return s, learner.Damaged(err.Error())
	}
	l, ok := levels.Numbered(r.Level)
	if _, onPart := l.Part(r.Part); !ok || !onPart {
		return s, nil
	}
	if r.Offer != nil {
		if _, ok := l.Part(r.Offer.Part); !ok {
			r.Offer = nil
		}
	}
	s.Interview = &r
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
