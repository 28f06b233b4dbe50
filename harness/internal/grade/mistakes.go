package grade

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Naming the mistake. Each spec keeps a table of its mutants, the classic
// mistakes, and the cases each one fails (protocol.MistakesFile). When a
// part fails, the grader compares the learner's failing cases of that
// part with each mutant's, by timeline's rule, and names the one that
// matches clearly, in one line under the first failing case.
//
// The comparison counts only a part whose every case of the spec's list
// reported and ran to an end: a case not implemented yet, or one that
// never reported, would make the learner's set look smaller than it is.
// Fuzz cases are left out: their names change with each random timeline.

// KnownMistakes reads the tables of every spec of the level, as one. A
// spec without one adds nothing.
func KnownMistakes(root string, l levels.Level) protocol.Mistakes {
	var out protocol.Mistakes
	for _, m := range l.Modules {
		t, err := protocol.ReadMistakes(filepath.Join(root, filepath.FromSlash(l.SpecDir(m)), protocol.MistakesFile))
		if err != nil {
			continue
		}
		out.Mistakes = append(out.Mistakes, t.Mistakes...)
		for part, cases := range t.Blind { // each module has parts of its own
			if out.Blind == nil {
				out.Blind = map[int][]string{}
			}
			out.Blind[part] = append(out.Blind[part], cases...)
		}
	}
	return out
}

// comparable returns the spec cases of a part that is not done that the
// learner's code fails, and whether they say all there is to say: every
// case of the part reported but those that need a real redis-server,
// none is still to write, nothing blocked it.
func comparable(p Part) ([]string, bool) {
	// A case that waits for a real redis-server is one the table does not
	// know either (it is blind there): its absence changes nothing.
	if p.Done || !p.Ran || len(p.Blocked) > 0 || p.Reported+len(p.NeedServer) < p.Total {
		return nil, false
	}
	var failing []string
	for _, c := range p.Cases {
		switch {
		case c.Fuzz || c.Verdict == protocol.Pass:
		case c.Verdict == protocol.NotImplemented:
			return nil, false
		default:
			failing = append(failing, c.Name)
		}
	}
	return failing, len(failing) > 0
}

// MatchMistakes sets the Match of each part that is not done, from the
// Level's table.
func MatchMistakes(root string, g *Level) {
	table := KnownMistakes(root, g.Level)
	if len(table.Mistakes) == 0 {
		return
	}
	for i := range g.Parts {
		p := &g.Parts[i]
		p.Match = nil
		if failing, ok := comparable(*p); ok {
			m := table.Match(p.Number, failing)
			p.Match = &m
		}
	}
}

// MistakeLine is the one line the grader writes under a part's first
// failing case when its failing cases match a known mistake clearly, or ""
// when they do not. Interview mode withholds it (levelGrade.HideMistakes)
// and offers it as a hint instead (package interview).
func MistakeLine(p Part) string {
	if p.Match == nil || p.Match.Best < 0 {
		return ""
	}
	ks := p.Match.Candidates[p.Match.Best].Mistakes
	if len(ks) == 1 {
		return "This is how a known mistake fails: " + describe(ks[0])
	}
	// Mistakes that fail the same cases cannot be told apart here: name
	// them all, without the guide's lines, to keep to one line.
	var each []string
	for _, k := range ks {
		each = append(each, k.Name)
	}
	return fmt.Sprintf("This is how %d known mistakes fail, each the same way: %s.", len(ks), strings.Join(each, "; or "))
}

// MistakeNames are the names of the known mistakes p's failing cases
// match, as MistakeLine names them; none when no match is clear.
func MistakeNames(p Part) []string {
	if p.Match == nil || p.Match.Best < 0 {
		return nil
	}
	var names []string
	for _, k := range p.Match.Candidates[p.Match.Best].Mistakes {
		names = append(names, k.Name)
	}
	return names
}

// describe is a mistake in words: its name, and the guide's line on it.
func describe(k protocol.Mistake) string {
	s := k.Name + "."
	if k.Why != "" {
		s += " " + k.Why
	}
	return s
}

// closeMatches lists, for --all, every known mistake that fails some of
// the same cases, with its overlap, best first.
func closeMatches(p Part) []string {
	if p.Match == nil {
		return nil
	}
	var out []string
	for _, c := range p.Match.Candidates {
		for _, k := range c.Mistakes {
			out = append(out, fmt.Sprintf("%3.0f%%  %s (fails %s of part %d)", 100*c.Overlap, k.Name, Plural(len(k.Fails[p.Number]), "case"), p.Number))
		}
	}
	return out
}

// named is the names of the known mistakes the part's failing cases match
// clearly, or nil.
func (p Part) named() []string {
	if p.Match == nil {
		return nil
	}
	return p.Match.Named()
}
