package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// TestManifestListsEveryCase keeps testdata/cases.json, the list of cases
// the grader counts each part's cases against, in step with the tables.
// The cases on miniredis need nothing; the grader asks for a real
// redis-server for the others.
func TestManifestListsEveryCase(t *testing.T) {
	timeline.CheckManifest(t, timeline.ManifestOf("", redisCases(nil, &backend{name: "miniredis"})))
}
