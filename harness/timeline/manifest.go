package timeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Manifest is the list of a spec's cases; the grader reads it with
// protocol.ReadManifest.
type Manifest = protocol.Manifest

// ManifestCase is one case a spec defines.
type ManifestCase = protocol.ManifestCase

// ManifestOf lists cases, each needing what needs says ("" for nothing).
func ManifestOf[T any](needs string, cases []Case[T]) Manifest {
	var m Manifest
	for _, c := range cases {
		mc := ManifestCase{Part: c.Part, Name: c.Name, Needs: needs, InProcess: c.InProcess}
		if c.InProcess != "" {
			mc.Steps = len(c.Steps) > 0
		}
		m.Cases = append(m.Cases, mc)
	}
	return m
}

// CheckManifest fails t unless protocol.ManifestFile holds m;
// LADDER_UPDATE_MANIFEST=1 writes it.
func CheckManifest(t *testing.T, m Manifest) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatalf("the spec's cases: %v", err)
	}
	checkGolden(t, protocol.ManifestFile, protocol.UpdateManifestEnv, m.Encode(), "the spec's cases changed")
}

// checkGolden fails t unless file holds want; with env=1 it writes it.
func checkGolden(t *testing.T, file, env string, want []byte, because string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run %s=1 go test -run '^%s$' . in this folder to write it", file, env, t.Name())
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: %s. Run %s=1 go test -run '^%s$' . in this folder to write it again, and commit it.", file, because, env, t.Name())
	}
}
