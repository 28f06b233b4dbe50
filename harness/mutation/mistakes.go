package mutation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rateladder/rateladder/harness/guide"
	"github.com/rateladder/rateladder/harness/timeline"
)

// CheckMistakes is timeline.CheckMistakes with each mistake's Why taken from
// the level's INTERVIEWER.md, one or two folders up.
func CheckMistakes(t *testing.T, m timeline.Mistakes) {
	t.Helper()
	whys := map[string]string{}
	for _, dir := range []string{"..", filepath.Join("..", "..")} {
		path := filepath.Join(dir, guide.FileName)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		g, err := guide.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range g.Mistakes {
			whys[k.Mutant] = k.Text
		}
		break
	}
	for i := range m.Mistakes {
		m.Mistakes[i].Why = whys[m.Mistakes[i].Name]
	}
	timeline.CheckMistakes(t, m)
}
