package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// TestManifestListsEveryCase keeps testdata/cases.json, the list of cases
// the grader counts each part's cases against, in step with the table.
func TestManifestListsEveryCase(t *testing.T) {
	timeline.CheckManifest(t, timeline.ManifestOf("", cases(nil)))
}
