package grade

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// When a part fails, the grader compares its failing spec cases with each
// known mistake's (protocol.MistakesFile) and names the one that matches
// clearly. Fuzz cases are left out: their names change with each timeline.

// KnownMistakes reads the tables of every spec of the level, as one.
func KnownMistakes(root string, l levels.Level) protocol.Mistakes {
	out := protocol.Mistakes{Blind: map[int][]string{}}
	for _, m := range l.Modules {
		t, _ := protocol.ReadMistakes(filepath.Join(root, filepath.FromSlash(l.SpecDir(m)), protocol.MistakesFile))
		out.Mistakes = append(out.Mistakes, t.Mistakes...)
		for part, cases := range t.Blind {
			out.Blind[part] = append(out.Blind[part], cases...)
		}
	}
	return out
}

// comparable returns the spec cases a part that is not done fails, and
// whether they say all there is to say: every case reported (but those
// that need a real redis-server, which the table is blind to), none is
// still to write, nothing blocked it.
func comparable(p Part) ([]string, bool) {
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
	for i := 0; len(table.Mistakes) > 0 && i < len(g.Parts); i++ {
		p := &g.Parts[i]
		p.Match = nil
		if failing, ok := comparable(*p); ok {
			m := table.Match(p.Number, failing)
			p.Match = &m
		}
	}
}

// MistakeLine is the line under a part's first failing case when its
// failing cases match a known mistake clearly, or "".
func MistakeLine(p Part) string {
	switch names := MistakeNames(p); len(names) {
	case 0:
		return ""
	case 1:
		return strings.TrimSpace("This is how a known mistake fails: " + names[0] + ". " + p.Match.Candidates[p.Match.Best].Mistakes[0].Why)
	default: // mistakes that fail the same cases cannot be told apart: name them all
		return fmt.Sprintf("This is how %d known mistakes fail, each the same way: %s.", len(names), strings.Join(names, "; or "))
	}
}

// MistakeNames are the names of the known mistakes p's failing cases
// match clearly; none when no match is clear.
func MistakeNames(p Part) []string {
	if p.Match == nil {
		return nil
	}
	return p.Match.Named()
}
