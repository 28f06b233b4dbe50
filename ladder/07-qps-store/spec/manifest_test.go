package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/mutation"
)

// TestManifestListsEveryCase keeps testdata/cases.json, the list of cases
// the grader counts each part's cases against, in step with the table.
func TestManifestListsEveryCase(t *testing.T) {
	mutation.CheckManifest(t, cases(nil))
}
