package interview

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/levels"
)

// In a mock interview a known mistake that a run matches is not named under
// its failing case, as an interviewer would not: the status line offers it,
// and the next make hint-N names it, as one hint of the part. A mistake
// named once is not offered again.

// offerMistake keeps in the running record the known mistake that the
// run's first part not done matches, or clears the offer.
func (iv *Interview) offerMistake(g grade.Level) {
	var offer *learner.MistakeOffer
	for _, p := range g.Parts {
		if p.Done {
			continue
		}
		if line := grade.MistakeLine(p); line != "" {
			offer = &learner.MistakeOffer{Part: p.Number, Line: line}
		}
		break
	}
	err := iv.editState(func(s *learner.State) bool {
		r := s.Interview
		if !r.Running(iv.Level.Number, iv.Clock.Now()) {
			offer = nil
			return false
		}
		if offer != nil && slices.Contains(r.NamedLines, offer.Line) {
			offer = nil
		}
		changed := r.Offer != nil || offer != nil
		r.Offer = offer
		return changed
	})
	iv.mistakeOffered = err == nil && offer != nil // an error recordRunning told: hints are not counted
}

// NameOfferedMistake is make hint-N in an interview that offers a known
// mistake: it names it, counts one hint of its part, and reports whether it
// did. A hint of another part (PART=K) leaves the offer for later.
func NameOfferedMistake(l levels.Level, s *learner.State, asked int, stdout io.Writer) bool {
	r := s.Interview
	o := r.Offer
	if o == nil || (asked != 0 && asked != o.Part) {
		return false
	}
	key := strconv.Itoa(o.Part)
	if r.Hints == nil {
		r.Hints = map[string]int{}
	}
	if r.Named == nil {
		r.Named = map[string]int{}
	}
	r.Hints[key]++
	r.Named[key]++
	r.NamedLines = append(r.NamedLines, o.Line)
	r.Offer = nil
	fmt.Fprintf(stdout, "Level %d, part %d: the known mistake your failing cases match\n\n%s\n", l.Number, o.Part, o.Line)
	fmt.Fprintf(stdout, "\nYou are in a mock interview of level %d: this hint counts in its summary. make hint-%d gives the part's own hints.\n", l.Number, l.Number)
	return true
}
