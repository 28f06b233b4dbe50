package instructor

import (
	_ "embed"
	"io"
	"path/filepath"
	"text/template"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/guide"
)

//go:embed templates/debrief.txt
var debriefText string

// WriteDebrief shows a done level's classic mistakes, each with the wrong
// implementation the spec catches it with, and the table of approaches.
// For a level that is not done it reads nothing of the guide.
func WriteDebrief(w io.Writer, root string, g grade.Level, st grade.Style) error {
	data := map[string]any{"G": g, "Done": g.Status() == grade.Done, "Heading": guide.Approaches, "Next": nil}
	for _, p := range g.Parts {
		if !p.Done {
			data["Next"] = p
			break
		}
	}
	if g.Status() == grade.Done {
		gd, err := guide.Load(filepath.Join(root, g.Level.Dir, guide.FileName))
		if err != nil {
			return err
		}
		data["Guide"] = gd
		data["Approaches"], _ = gd.Section(guide.Approaches)
	}
	bold := func(s string) string { return st.Paint("1", s) }
	return template.Must(template.New("").Funcs(template.FuncMap{"bold": bold, "lower": grade.Lower}).Parse(debriefText)).Execute(w, data)
}
