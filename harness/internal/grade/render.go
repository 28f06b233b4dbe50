package grade

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Write shows a level: the first part not done in full, the others as a
// line each, and a last line that sums up. With all set, every part not
// done is shown in full, with every failing case whole.
func Write(w io.Writer, g Level, only int, all bool) {
	l := g.Level
	fmt.Fprintf(w, "Level %d: %s\n\n", l.Number, l.Title)
	if g.BuildError != "" {
		fmt.Fprintf(w, "level %d does not compile:\n%s\n\n", l.Number, Indent(FirstLines(g.BuildError, 30), "  "))
		fmt.Fprintf(w, "level %d: does not compile\n", l.Number)
		return
	}
	notImpl := missingMethods(g)
	focus := 0
	afterBlock := false  // a part shown in full ends with a blank line
	var summary []string // "part 1 done (16/16)", "part 2 3/7", "part 3 waiting"
	summed := false      // a part not done is in it
	for _, p := range g.Parts {
		if only != 0 && p.Number != only {
			continue
		}
		switch {
		case p.Done:
			summary = append(summary, fmt.Sprintf("part %d done (%d/%d)", p.Number, p.Passed, p.Total))
		case summed && !all:
			summary = append(summary, fmt.Sprintf("part %d waiting", p.Number))
		default:
			summed = true
			summary = append(summary, fmt.Sprintf("part %d %d/%d", p.Number, p.Passed, p.Total))
		}
		afterBlock = false
		switch {
		case p.Done:
			fmt.Fprintf(w, "part %d, %s: done (%d/%d)\n", p.Number, Lower(p.Title), p.Passed, p.Total)
		case focus != 0 && !all && p.Total == 0:
			fmt.Fprintf(w, "part %d, %s: waits for part %d\n", p.Number, Lower(p.Title), focus)
		case focus != 0 && !all:
			fmt.Fprintf(w, "part %d, %s: waits for part %d (%s)\n", p.Number, Lower(p.Title), focus, Plural(p.Total, "case"))
		case !p.Ran && focus == 0 && only == 0 && firstNotDone(g, p.Number) != 0:
			fmt.Fprintf(w, "part %d, %s: waits for part %d\n", p.Number, Lower(p.Title), firstNotDone(g, p.Number))
		default:
			if focus == 0 {
				focus = p.Number
			}
			writePart(w, l.Number, p, notImpl, all, g.HideMistakes)
			afterBlock = true
		}
	}
	if !afterBlock {
		fmt.Fprintln(w)
	}
	if only == 0 && g.PartsDone() == len(g.Parts) {
		fmt.Fprintf(w, "Level %d is done. %s; make progress shows what comes next.\n", l.Number, AfterDone(g))
	}
	fmt.Fprintf(w, "level %d: %s\n", l.Number, strings.Join(summary, ", "))
}

// AfterDone is what to read once a level is done: the reference, or in a
// student copy the debrief.
func AfterDone(g Level) string {
	if g.HasReference {
		return fmt.Sprintf("make compare-level-%d shows your code beside the reference", g.Level.Number)
	}
	return fmt.Sprintf("make debrief-level-%d says what an interviewer looks for in it", g.Level.Number)
}

// firstNotDone is the first part before part n that is not done, or 0.
func firstNotDone(g Level, n int) int {
	for _, q := range g.Parts {
		if q.Number < n && !q.Done {
			return q.Number
		}
	}
	return 0
}

// missingMethods counts the spec cases that need each missing method.
func missingMethods(g Level) map[string]int {
	out := map[string]int{}
	for _, p := range g.Parts {
		for _, c := range p.Cases {
			if c.Verdict == protocol.NotImplemented && !c.Fuzz {
				out[missingKey(c)]++
			}
		}
	}
	return out
}

func missingKey(c Case) string {
	if c.Where == "" {
		return c.Missing
	}
	return fmt.Sprintf("%s (%s)", c.Missing, c.Where)
}

// maxOneLiners is how many failing cases after the first get a line each.
const maxOneLiners = 8

// writePart shows a part that is not done: what blocks it, the methods it
// needs, the cases that did not report, its first failing case and the
// known mistake it matches (unless hide), and a line for each other.
func writePart(w io.Writer, level int, p Part, notImpl map[string]int, all, hide bool) {
	switch {
	case len(p.Blocked) > 0:
		fmt.Fprintf(w, "part %d, %s: not done\n", p.Number, Lower(p.Title))
	case p.Ran && p.Reported < p.Total:
		fmt.Fprintf(w, "part %d, %s: not verified: %d of %s reported (%d %s)\n", p.Number, Lower(p.Title),
			p.Reported, Plural(p.Total, "case"), p.Passed, map[bool]string{true: "passes", false: "pass"}[p.Passed == 1])
	default:
		fmt.Fprintf(w, "part %d, %s: %s\n", p.Number, Lower(p.Title), PassCount(p.Passed, p.Total))
	}
	for _, b := range p.Blocked {
		fmt.Fprintf(w, "%s\n", Indent(b, "  "))
	}
	for i, r := range p.Races {
		if i == 0 {
			fmt.Fprintf(w, "  the race detector found a data race, so part %d is not done, whatever the answers. Two goroutines touched the same memory, at least one of them writing, without a lock between them:\n", p.Number)
		}
		if i < 1 || all {
			fmt.Fprintf(w, "%s\n", Indent(FirstLines(r, 16), "    "))
		}
	}
	if len(p.Races) > 1 && !all {
		fmt.Fprintf(w, "    (%s more; ALL=1 shows them)\n", Plural(len(p.Races)-1, "report"))
	}
	if p.Ran && p.Total == 0 && len(p.Blocked) == 0 {
		fmt.Fprintf(w, "  no case of part %d ran.\n", p.Number)
	}
	var missing []string
	for _, c := range p.Cases {
		if c.Verdict == protocol.NotImplemented {
			missing = append(missing, missingKey(c))
		}
	}
	slices.Sort(missing)
	for _, m := range slices.Compact(missing) {
		fmt.Fprintf(w, "  not implemented yet: %s, needed by %s\n", m, Plural(notImpl[m], "case"))
	}
	if p.Ran && len(p.Blocked) == 0 && p.Reported < p.Total {
		if n := len(p.NeedServer); n > 0 {
			fmt.Fprintf(w, "  %s a real redis-server: make test-level-%d REDIS=1\n", Plural(n, "case")+map[bool]string{true: " needs", false: " need"}[n == 1], level)
		}
		if n := len(p.Unreported); n > 0 {
			fmt.Fprintf(w, "  %s never reported, such as %q: was a case skipped (a -skip or -run flag, GOFLAGS, os.Args changed by your code), or did the test binary stop early?\n",
				Plural(n, "case"), p.Unreported[0])
		}
	}
	shown := 0
	var rest []Case
	for _, c := range p.Cases {
		if c.Verdict == protocol.Pass || c.Verdict == protocol.NotImplemented {
			continue
		}
		if shown == 0 || all {
			text := c.Report
			if !all && c.Brief != "" {
				text = c.Brief
			}
			fmt.Fprintf(w, "\n%s\n", Indent(strings.TrimRight(text, "\n"), "  "))
			if line := MistakeLine(p); shown == 0 && line != "" && !hide {
				fmt.Fprintf(w, "\n  %s\n", line)
			}
			shown++
			continue
		}
		rest = append(rest, c)
	}
	if len(rest) > 0 {
		fmt.Fprintf(w, "\n  %s also %s:\n", Plural(len(rest), "more case"), map[bool]string{true: "fails", false: "fail"}[len(rest) == 1])
		for i, c := range rest {
			if i == maxOneLiners {
				fmt.Fprintf(w, "    … and %d more; ALL=1 shows every case in full\n", len(rest)-i)
				break
			}
			fmt.Fprintf(w, "    %s\n", protocol.CutLine(oneLine(c), 160))
		}
	}
	if all && !hide && p.Match != nil && len(p.Match.Candidates) > 0 {
		fmt.Fprintf(w, "\n  Known mistakes that fail some of the same cases, by overlap (the cases both fail, over the cases either fails):\n")
		for _, c := range p.Match.Candidates {
			for _, k := range c.Mistakes {
				fmt.Fprintf(w, "    %3.0f%%  %s (fails %s of part %d)\n", 100*c.Overlap, k.Name, Plural(len(k.Fails[p.Number]), "case"), p.Number)
			}
		}
	}
	fmt.Fprintln(w)
}

// oneLine is a failing case in one line: its name and its first wrong call.
func oneLine(c Case) string {
	return fmt.Sprintf("case %q: %s", c.Name, c.Summary)
}

// PassCount is "3 of 5 cases pass", "1 of 1 case passes", "0 of 1 case passes".
func PassCount(passed, total int) string {
	if total == 1 {
		return fmt.Sprintf("%d of 1 case passes", passed)
	}
	return fmt.Sprintf("%d of %d cases pass", passed, total)
}

// Plural is "1 case" or "3 cases".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Lower starts s with a small letter.
func Lower(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
