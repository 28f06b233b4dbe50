package instructor

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/rateladder/rateladder/harness/guide"
	"github.com/rateladder/rateladder/harness/internal/grade"
)

// WriteDebrief shows a done level's classic mistakes, each with the wrong
// implementation the spec catches it with, and the table of approaches.
// For a level that is not done it reads nothing of the guide.
func WriteDebrief(w io.Writer, root string, g grade.Level, st grade.Style) error {
	l := g.Level
	if g.Status() != grade.Done {
		next := ""
		for _, p := range g.Parts {
			if !p.Done {
				next = fmt.Sprintf(" Next: part %d, %s.", p.Number, grade.Lower(p.Title))
				break
			}
		}
		fmt.Fprintf(w, "Level %d is not done yet: %d of %d parts pass (%s).%s\n", l.Number, g.PartsDone(), len(g.Parts), g.Status(), next)
		fmt.Fprintf(w, "The debrief shows the classic mistakes and the approaches once every part passes: before that, it would give the answer away. make test-level-%d shows where you are; make hint-%d gives a hint.\n", l.Number, l.Number)
		return nil
	}
	gd, err := guide.Load(filepath.Join(root, l.Dir, guide.FileName))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, st.Paint("1", fmt.Sprintf("Level %d: %s, the debrief", l.Number, l.Title)))
	fmt.Fprintf(w, "\nAll %d parts pass. This is what the interviewer watches for on this question.\n\n", len(g.Parts))
	fmt.Fprintln(w, st.Paint("1", "## Classic mistakes the spec checks for"))
	fmt.Fprintln(w)
	for _, m := range gd.Mistakes {
		fmt.Fprintf(w, "- %s\n  The spec checks this with %q.\n", m.Text, m.Mutant)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, st.Paint("1", "## "+guide.Approaches))
	fmt.Fprintln(w)
	approaches, _ := gd.Section(guide.Approaches)
	fmt.Fprintln(w, approaches)
	fmt.Fprintln(w)
	next := fmt.Sprintf("make compare-level-%d shows your code beside the reference. ", l.Number)
	if !g.HasReference {
		next = ""
	}
	fmt.Fprintf(w, "Next: %smake interview-level-%d asks the question again, on the clock, one part at a time.\n", next, l.Number)
	return nil
}
