package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A test binary reports the cases it ran, and a learner's code runs inside
// it: a flag in os.Args, GOFLAGS=-skip or a lost event can make a case
// vanish, and a part whose failing case vanished would read as done. So
// each spec keeps the list of its cases in a file beside it, written by
// the spec's own test and checked there the way golden files are, and the
// grader counts a part done only when every case of that list reported.

// ManifestFile is where a spec keeps its list of cases, relative to the
// spec's folder.
const ManifestFile = "testdata/cases.json"

// UpdateManifestEnv set to 1 makes CheckManifest rewrite a stale list
// instead of failing.
const UpdateManifestEnv = "LADDER_UPDATE_MANIFEST"

// Manifest is the list of a spec's cases.
type Manifest struct {
	Cases []ManifestCase `json:"cases"`
}

// ManifestCase is one case a spec defines.
type ManifestCase struct {
	Part int    `json:"part"`
	Name string `json:"name"`
	// Needs names what the case needs beyond Go, such as "redis-server";
	// without it the spec skips the case, and the grader says how to run
	// it.
	Needs string `json:"needs,omitempty"`
	// InProcess says why part of the case (its probe, or all of it when
	// it has no steps) is judged inside the implementation's own process:
	// see Case. The class report marks such parts.
	InProcess string `json:"inProcess,omitempty"`
	// Steps says an InProcess case has steps, which the checker plays;
	// one without steps is judged in process alone.
	Steps bool `json:"steps,omitempty"`
}

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

// Join adds the cases of other.
func (m Manifest) Join(other Manifest) Manifest {
	return Manifest{Cases: append(append([]ManifestCase(nil), m.Cases...), other.Cases...)}
}

// Validate checks that every case has a part and a name, and no name is
// listed twice in one part.
func (m Manifest) Validate() error {
	seen := map[ManifestCase]bool{}
	for i, c := range m.Cases {
		key := ManifestCase{Part: c.Part, Name: c.Name}
		switch {
		case c.Part < 1:
			return fmt.Errorf("case %d (%q) has part %d, want 1 or more", i, c.Name, c.Part)
		case c.Name == "":
			return fmt.Errorf("case %d of part %d has no name", i, c.Part)
		case seen[key]:
			return fmt.Errorf("case %q of part %d is listed twice", c.Name, c.Part)
		}
		seen[key] = true
	}
	return nil
}

// ReadManifest reads and validates a spec's list of cases.
func ReadManifest(path string) (Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, err
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%s: %v", path, err)
	}
	if len(m.Cases) == 0 {
		return Manifest{}, fmt.Errorf("%s lists no case", path)
	}
	if err := m.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

func (m Manifest) encode() []byte {
	var b bytes.Buffer
	b.WriteString("{\"cases\": [\n")
	for i, c := range m.Cases {
		line, _ := json.Marshal(c)
		b.WriteString("  ")
		b.Write(line)
		if i < len(m.Cases)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// CheckManifest fails t unless the spec's list of cases, ManifestFile in
// the test's folder, is m. With LADDER_UPDATE_MANIFEST=1 it writes m there
// instead.
func CheckManifest(t *testing.T, m Manifest) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatalf("the spec's cases: %v", err)
	}
	checkGolden(t, ManifestFile, UpdateManifestEnv, m.encode(), "the spec's cases changed")
}

// checkGolden fails t unless file, in the test's folder, holds want; with
// the environment variable env set to 1 it writes want there instead. A
// spec keeps its list of cases and its table of mistakes this way.
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
