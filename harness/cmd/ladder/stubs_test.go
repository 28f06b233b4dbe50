package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// The stub check reads the stubs as well as running them: an answer kept
// in a var fails no case, and must fail the check.
func TestStubCheckReadsPackageLevelValues(t *testing.T) {
	dir := copyRepo(t, "ladder/01-hit-counter", "ladder/05-page-views")
	problems, err := grade.CheckStubSources(dir)
	require.NoError(t, err)
	if len(problems) != 0 {
		t.Fatalf("checkStubSources(the shipped stubs) = %q, want none", problems)
	}
	stub := filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go")
	data, err := os.ReadFile(stub)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(stub, append(data, varReference...), 0o644))
	problems, err = grade.CheckStubSources(dir)
	require.NoError(t, err)
	want := []string{"ladder/01-hit-counter/hitcounter.go is not the stub as shipped: var reference holds a value other than a name, a constant or a literal"}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("checkStubSources(a stub with a var reference) mismatch (-want +got):\n%s", diff)
	}
}
