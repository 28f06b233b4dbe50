package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Each spec keeps its list of cases and its table of known mistakes beside
// it, each checked by the spec's own test like a golden file: a part is
// done only when every listed case reported, so a case a flag or os.Args
// made vanish cannot read as done.

// Where a spec keeps its list of cases and its table of known mistakes,
// relative to the spec's folder; each variable set to 1 makes the
// spec's test rewrite its stale file instead of failing.
const (
	ManifestFile      = "testdata/cases.json"
	MistakesFile      = "testdata/mistakes.json"
	UpdateManifestEnv = "LADDER_UPDATE_MANIFEST"
	UpdateMistakesEnv = "LADDER_UPDATE_MISTAKES"
)

// Manifest is the list of a spec's cases.
type Manifest struct {
	Cases []ManifestCase `json:"cases"`
}

// ManifestCase is one case a spec defines.
type ManifestCase struct {
	Part int    `json:"part"`
	Name string `json:"name"`
	// Needs names what the case needs beyond Go, such as "redis-server".
	Needs string `json:"needs,omitempty"`
	// InProcess says why part of the case is judged inside the
	// implementation's own process (see timeline.Case).
	InProcess string `json:"inProcess,omitempty"`
	// Steps says an InProcess case has steps, which the checker plays.
	Steps bool `json:"steps,omitempty"`
}

// Validate checks that the list has a case, every case a part and a name,
// and no name is listed twice in one part.
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
	if len(m.Cases) == 0 {
		return fmt.Errorf("it lists no case")
	}
	return nil
}

// ReadManifest reads and validates a spec's list of cases.
func ReadManifest(path string) (Manifest, error) { return read[Manifest](path) }

// ReadMistakes reads and validates a spec's table of known mistakes.
func ReadMistakes(path string) (Mistakes, error) { return read[Mistakes](path) }

// read reads path as one JSON value, refusing unknown fields (they are a
// mistake to report, never to skip), and validates it.
func read[T interface{ Validate() error }](path string) (T, error) {
	var v, zero T
	data, err := os.ReadFile(path)
	if err != nil {
		return zero, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return zero, fmt.Errorf("%s: %v", path, err)
	}
	if err := v.Validate(); err != nil {
		return zero, fmt.Errorf("%s: %v", path, err)
	}
	return v, nil
}

// Encode writes the list as ManifestFile holds it: one case a line, so
// that a diff shows which one moved.
func (m Manifest) Encode() []byte {
	return jsonLines("cases", m.Cases)
}

// jsonLines writes {"key": [...]} with one item a line.
func jsonLines[T any](key string, items []T) []byte {
	b := fmt.Appendf(nil, "{%q: [\n", key)
	for i, it := range items {
		line, _ := json.Marshal(it)
		b = fmt.Appendf(b, "  %s%s\n", line, map[bool]string{true: ","}[i < len(items)-1])
	}
	return append(b, "]}\n"...)
}
