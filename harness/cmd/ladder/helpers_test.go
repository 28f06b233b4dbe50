package main

import (
	"strings"
	"testing"
)

// containsAll reports each of wants that out lacks, with out, in one
// message.
func containsAll(t *testing.T, out string, wants ...string) {
	t.Helper()
	var missing []string
	for _, want := range wants {
		if !strings.Contains(out, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the output lacks %q:\n%s", missing, out)
	}
}
