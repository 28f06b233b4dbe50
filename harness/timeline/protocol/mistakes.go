package protocol

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A spec's mutants are the classic mistakes; the cases each fails are its
// fingerprint, kept in a table beside the spec (MistakesFile).

// Mistakes is a spec's table of known mistakes.
type Mistakes struct {
	Mistakes []Mistake `json:"mistakes"`
	// Blind lists, by part, the cases that tell the mistakes nothing (the
	// mutants' shared base fails them, their verdict varies, or the table's
	// test cannot play them); the match leaves them out.
	Blind map[int][]string `json:"blind,omitempty"`
}

// Mistake is one mutant and the cases it fails.
type Mistake struct {
	Part int    `json:"part"` // the first part whose cases catch it
	Name string `json:"name"` // as the interviewer's guide cites it
	Why  string `json:"why,omitempty"`
	// Fails lists, by part up to Part, the spec cases the mutant fails.
	Fails map[int][]string `json:"fails"`
}

// Validate checks that every mistake has a name, and fails some case of
// its part.
func (m Mistakes) Validate() error {
	seen := map[string]bool{}
	for i, k := range m.Mistakes {
		switch {
		case k.Name == "":
			return fmt.Errorf("mistake %d has no name", i)
		case seen[k.Name]:
			return fmt.Errorf("mistake %q is listed twice", k.Name)
		case k.Part < 1:
			return fmt.Errorf("mistake %q has part %d, want 1 or more", k.Name, k.Part)
		case len(k.Fails[k.Part]) == 0:
			return fmt.Errorf("mistake %q fails no case of its part %d", k.Name, k.Part)
		}
		seen[k.Name] = true
	}
	return nil
}

// Encode writes the table as MistakesFile holds it: one mistake a line,
// so that a diff shows which one moved.
func (m Mistakes) Encode() []byte {
	b := jsonLines("mistakes", m.Mistakes)
	if len(m.Blind) == 0 {
		return b
	}
	var blind []string
	for _, p := range slices.Sorted(maps.Keys(m.Blind)) {
		line, _ := json.Marshal(m.Blind[p])
		blind = append(blind, fmt.Sprintf("  \"%d\": %s", p, line))
	}
	return fmt.Appendf(b[:len(b)-len("]}\n")], "],\n\"blind\": {\n%s\n}}\n", strings.Join(blind, ",\n"))
}

// The matching rule: the overlap of the learner's failing cases F and a
// mistake's S is |F∩S| / |F∪S|; mistakes that fail the same set are one
// candidate. The best is named when its overlap is 1 and no other's is, or
// when it is at least MatchAtLeast and beats the second by MatchMargin.
const (
	MatchAtLeast = 0.8
	MatchMargin  = 0.25
)

// Candidate is the mistakes that fail one same set of a part's cases, and
// its overlap with the learner's.
type Candidate struct {
	Mistakes []Mistake
	Overlap  float64
}

// Match is the candidates for a learner's failing cases of one part, best
// first, and the one the rule names, if any.
type Match struct {
	Candidates []Candidate
	Best       int // the index of the named one, or -1
}

// Named returns the names of the named candidate's mistakes, or nil.
func (m Match) Named() []string {
	var out []string
	for i := 0; m.Best >= 0 && i < len(m.Candidates[m.Best].Mistakes); i++ {
		out = append(out, m.Candidates[m.Best].Mistakes[i].Name)
	}
	return out
}

// Names says whether the named candidate holds the mistake called name.
func (m Match) Names(name string) bool { return slices.Contains(m.Named(), name) }

// Match compares the failing cases of one part, but the blind ones, with
// each known mistake that fails some case of that part.
func (m Mistakes) Match(part int, failing []string) Match {
	out := Match{Best: -1}
	set := func(cases []string) []string { return slices.Compact(slices.Sorted(slices.Values(cases))) }
	failing = set(slices.DeleteFunc(slices.Clone(failing), func(c string) bool { return slices.Contains(m.Blind[part], c) }))
	bySet := map[string]int{}
	for _, k := range m.Mistakes {
		s := set(k.Fails[part])
		both := len(slices.DeleteFunc(slices.Clone(s), func(c string) bool { return !slices.Contains(failing, c) }))
		if i, ok := bySet[strings.Join(s, "\x00")]; ok {
			out.Candidates[i].Mistakes = append(out.Candidates[i].Mistakes, k)
		} else if both > 0 {
			bySet[strings.Join(s, "\x00")] = len(out.Candidates)
			out.Candidates = append(out.Candidates, Candidate{[]Mistake{k}, float64(both) / float64(len(failing)+len(s)-both)})
		}
	}
	slices.SortStableFunc(out.Candidates, func(a, b Candidate) int { return cmp.Compare(b.Overlap, a.Overlap) })
	if len(out.Candidates) == 0 {
		return out
	}
	best, second := out.Candidates[0].Overlap, 0.0
	if len(out.Candidates) > 1 {
		second = out.Candidates[1].Overlap
	}
	if (best == 1 && second < 1) || (best >= MatchAtLeast && best-second >= MatchMargin) {
		out.Best = 0
	}
	return out
}
