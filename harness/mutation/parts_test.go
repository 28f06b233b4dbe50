package mutation

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// A case that reaches Unwritten is "not implemented yet", as with a stub.
func TestUnwrittenPanicsAsAStubDoes(t *testing.T) {
	c := hitsCase("one hit", 1, false)
	c.Steps[1].Call.Do = func(*counter, time.Time) any { Unwritten("Counter.Count"); return nil }
	if o := timeline.Play(c); o.Verdict != protocol.NotImplemented || o.Missing != "Counter.Count" {
		t.Errorf("a case whose Count calls Unwritten(%q) ends as %v, missing %q, want %v, missing %q",
			"Counter.Count", o.Verdict, o.Missing, protocol.NotImplemented, "Counter.Count")
	}
}

func TestSeedCasesNamesEachSeed(t *testing.T) {
	got := toy.SeedCases(false)
	if len(got) != 2 || got[0].Name != "fuzz seed 1" || got[1].Name != "fuzz seed 2" || len(got[1].Steps) != 4 {
		t.Errorf("SeedCases gave %d cases, named %q, want 2, named fuzz seed 1 and 2, the second with 4 steps", len(got), names(got))
	}
}

func TestManifestRejectsABadSpec(t *testing.T) {
	good := protocol.ManifestCase{Part: 1, Name: "a"}
	for name, bad := range map[string]protocol.ManifestCase{
		"slash": {Part: 1, Name: "a/b"}, "no part": {Name: "b"}, "no name": {Part: 1}, "twice": good,
	} {
		if badCase(protocol.Manifest{Cases: []protocol.ManifestCase{good, bad}}) == "" {
			t.Errorf("badCase(a case with %s) = \"\", want it named", name)
		}
	}
	if got := badCase(protocol.Manifest{Cases: []protocol.ManifestCase{good}}); got != "" {
		t.Errorf("badCase(a good list) = %q, want \"\"", got)
	}
}

func names[T any](cases []timeline.Case[T]) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Name)
	}
	return out
}
