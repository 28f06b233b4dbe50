package instructor

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/rateladder/rateladder/harness/levels"
)

// Every level's proxy is read from its spec: the interface's methods, and
// those the spec asserts (level 8's Len), with its sentinels (level 5's),
// the spec's own types qualified for the checker's package (level 6's).
func TestProxiesAreReadFromTheSpecs(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range levels.All {
		sh, err := readShape(root, "github.com/rateladder/rateladder", l)
		if err != nil {
			t.Errorf("level %d: %v", l.Number, err)
			continue
		}
		var names []string
		for _, m := range sh.Methods {
			names = append(names, m.Name)
		}
		if len(names) == 0 {
			t.Errorf("level %d: a proxy of no method", l.Number)
		}
		switch l.Number {
		case 5:
			want := []string{"viewerr.ErrNegativeViews", "viewerr.ErrTimeOutOfRange", "viewerr.ErrTimeWentBackwards"}
			if got := slices.Sorted(slices.Values(sh.Sentinels)); !slices.Equal(got, want) {
				t.Errorf("level 5's sentinels = %q, want %q", got, want)
			}
		case 6:
			if i := slices.Index(names, "TopTalkers"); i < 0 || !slices.Equal(sh.Methods[i].Results, []string{"[]Talker"}) {
				t.Errorf("level 6's proxy: methods %q, want TopTalkers returning []Talker", names)
			}
		case 8:
			if !slices.Contains(names, "Len") || !slices.Equal(sh.Ctor.Params, []string{"clock.Clock", "limits.Config"}) || !slices.Equal(sh.Ctor.Results, []string{"Throttler", "error"}) {
				t.Errorf("level 8's proxy: methods %q, constructor %q %q, want Len among them, and New(clock.Clock, limits.Config) (Throttler, error)", names, sh.Ctor.Params, sh.Ctor.Results)
			}
		}
	}
}
