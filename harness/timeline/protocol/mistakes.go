package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// A spec's mutants (its mutants_test.go) are the classic mistakes, each a
// whole implementation. Their failing cases are a fingerprint: a learner's
// code that fails exactly where a mutant fails most likely makes the same
// mistake. The mutants stay in _test.go files, so each spec keeps a table
// of what each one fails beside it, written by its own test and checked
// there the way golden files are, and the grader reads only the table.

// MistakesFile is where a spec keeps its table of known mistakes, relative
// to the spec's folder.
const MistakesFile = "testdata/mistakes.json"

// UpdateMistakesEnv set to 1 makes timeline.CheckMistakes rewrite a stale
// table instead of failing.
const UpdateMistakesEnv = "LADDER_UPDATE_MISTAKES"

// Mistakes is a spec's table of known mistakes.
type Mistakes struct {
	Mistakes []Mistake `json:"mistakes"`
	// Blind lists, by part, the cases that tell the mistakes nothing: in a
	// spec whose mutants share a simpler base than a whole answer (level
	// 8's Redis form counts every limit as a fixed window), the cases the
	// base fails whatever its mistake, those whose verdict on a wrong
	// implementation changes from run to run, and those the table's test
	// cannot play (a real redis-server). A learner's failing case there is
	// left out of the match.
	Blind map[int][]string `json:"blind,omitempty"`
}

// Mistake is one mutant and the cases it fails.
type Mistake struct {
	// Part is the first part whose cases catch it.
	Part int `json:"part"`
	// Name is the mutant's name, as the interviewer's guide cites it.
	Name string `json:"name"`
	// Why is the guide's line on the mistake, if it cites this mutant.
	Why string `json:"why,omitempty"`
	// Fails lists, for each part from 1 to Part, the spec cases the mutant
	// fails, in table order; a part it passes is left out.
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

// ReadMistakes reads and validates a spec's table of known mistakes.
func ReadMistakes(path string) (Mistakes, error) {
	m, err := readStrict[Mistakes](path)
	if err != nil {
		return Mistakes{}, err
	}
	if err := m.Validate(); err != nil {
		return Mistakes{}, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// Encode writes the table as MistakesFile holds it: one mistake a line,
// so that a diff shows which one moved.
func (m Mistakes) Encode() []byte {
	b := jsonLines("mistakes", m.Mistakes)
	if len(m.Blind) == 0 {
		return b
	}
	var out bytes.Buffer
	out.Write(bytes.TrimSuffix(b, []byte("]}\n")))
	out.WriteString("],\n\"blind\": {\n")
	parts := slices.Sorted(maps.Keys(m.Blind))
	for i, p := range parts {
		line, _ := json.Marshal(m.Blind[p])
		fmt.Fprintf(&out, "  \"%d\": %s", p, line)
		if i < len(parts)-1 {
			out.WriteString(",")
		}
		out.WriteString("\n")
	}
	out.WriteString("}}\n")
	return out.Bytes()
}

// The matching rule. A learner's code fails a set F of a part's cases; a
// known mistake fails a set S of them. Their overlap is |F∩S| / |F∪S|
// (Jaccard): 1 when the sets are equal, 0 when they share nothing.
// Mistakes that fail the very same set in the part cannot be told apart,
// and count as one candidate. The grader names the best candidate when
// its overlap is 1 and no other's is; or when its overlap is at least
// MatchAtLeast and beats the second best by MatchMargin. Anything else, a
// learner's code with two mistakes or with one the table does not know,
// most often, gets no name.
const (
	MatchAtLeast = 0.8
	MatchMargin  = 0.25
)

// Candidate is the mistakes that fail one same set of a part's cases, and
// that set's overlap with the learner's.
type Candidate struct {
	Mistakes []Mistake
	Overlap  float64
}

// Match is the candidates for a learner's failing cases of one part, best
// first, and the one the rule names, if any.
type Match struct {
	Candidates []Candidate
	// Best is the index in Candidates of the named one, or -1.
	Best int
}

// Named returns the names of the named candidate's mistakes, or nil.
func (m Match) Named() []string {
	if m.Best < 0 {
		return nil
	}
	var out []string
	for _, k := range m.Candidates[m.Best].Mistakes {
		out = append(out, k.Name)
	}
	return out
}

// Names says whether the named candidate holds the mistake called name.
func (m Match) Names(name string) bool { return slices.Contains(m.Named(), name) }

// Match compares the failing cases of one part, but the blind ones, with
// each known mistake that fails some case of that part.
func (m Mistakes) Match(part int, failing []string) Match {
	out := Match{Best: -1}
	failing = slices.DeleteFunc(slices.Clone(failing), func(c string) bool { return slices.Contains(m.Blind[part], c) })
	if len(failing) == 0 {
		return out
	}
	f := map[string]bool{}
	for _, c := range failing {
		f[c] = true
	}
	bySet := map[string]int{}
	for _, k := range m.Mistakes {
		s := k.Fails[part]
		if len(s) == 0 {
			continue
		}
		sorted := slices.Compact(slices.Sorted(slices.Values(s)))
		key := strings.Join(sorted, "\x00")
		if i, ok := bySet[key]; ok {
			out.Candidates[i].Mistakes = append(out.Candidates[i].Mistakes, k)
			continue
		}
		both := 0
		for _, c := range sorted {
			if f[c] {
				both++
			}
		}
		union := len(f) + len(sorted) - both
		if both == 0 {
			continue
		}
		bySet[key] = len(out.Candidates)
		out.Candidates = append(out.Candidates, Candidate{Mistakes: []Mistake{k}, Overlap: float64(both) / float64(union)})
	}
	sort.SliceStable(out.Candidates, func(i, j int) bool { return out.Candidates[i].Overlap > out.Candidates[j].Overlap })
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
