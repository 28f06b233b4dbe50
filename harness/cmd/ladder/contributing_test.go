package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// TestContributingWalkthrough follows CONTRIBUTING.md to the letter: it
// writes every file the page shows into a copy of the repository, adds the
// registry entry it shows, and checks that the new level works with every
// tool, first as a stub and then with its reference in place.
func TestContributingWalkthrough(t *testing.T) {
	slow(t, "builds a throwaway level in a copy of the repository")
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	require.NoError(t, err)
	dir := copyRepo(t, "ladder", "harness")

	files, registry := contributingBlocks(t, string(doc))
	require.NotEmpty(t, files, "CONTRIBUTING.md shows no file")
	for path, text := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755))
		addFile(t, dir, path, text)
	}
	levelsGo := filepath.Join(dir, "harness/levels/levels.go")
	data, err := os.ReadFile(levelsGo)
	require.NoError(t, err)
	src := string(data)
	start := strings.Index(src, "var All = []Level{")
	require.GreaterOrEqual(t, start, 0, "harness/levels/levels.go has no var All")
	end := start + strings.Index(src[start:], "\n}\n")
	src = src[:end+1] + registry + src[end+1:]
	require.NoError(t, os.WriteFile(levelsGo, []byte(src), 0o644))

	// The stub: every case waits for a method.
	out, code := runIn(t, dir, "make", "test-level-9")
	if code == 0 || !strings.Contains(out, "not implemented yet: New (ladder/09-last-call/lastcall.go:") || !strings.Contains(out, "0 of 4 cases pass") {
		t.Fatalf("make test-level-9 on the stub = exit %d, want all 4 cases, probes too, not implemented:\n%s", code, out)
	}
	// The repository's own checks of a level: registry, guide, spec, stub check.
	out, code = runIn(t, dir, grade.GoTool(), "test", "./harness/levels/", "./harness/guide/", "./ladder/09-last-call/spec/", "./solutions/09-last-call/")
	if code != 0 {
		t.Fatalf("the new level's own tests fail:\n%s", out)
	}
	// The learner finishes the level.
	ref, err := os.ReadFile(filepath.Join(dir, "solutions/09-last-call/lastcall.go"))
	require.NoError(t, err)
	addFile(t, dir, "ladder/09-last-call/lastcall.go", string(ref))
	out, code = runIn(t, dir, "make", "test-level-9")
	if code != 0 || !strings.Contains(out, "Level 9 is done.") {
		t.Fatalf("make test-level-9 with the reference = exit %d, want done:\n%s", code, out)
	}
	// Its fuzz target and its benchmark, as section 9 runs them.
	out, code = runIn(t, dir, "make", "fuzz-level-9", "FUZZTIME=1s")
	if code != 0 || !strings.Contains(out, "fuzzing FuzzLastCall") || !strings.Contains(out, "The fuzzer found nothing wrong") {
		t.Fatalf("make fuzz-level-9 with the reference = exit %d, want a clean run of FuzzLastCall:\n%s", code, out)
	}
	out, code = runIn(t, dir, "make", "bench-level-9")
	if code != 0 || !strings.Contains(out, "LastCall") || !strings.Contains(out, "sec/op") {
		t.Fatalf("make bench-level-9 = exit %d, want both sides of BenchmarkLastCall in a benchstat table:\n%s", code, out)
	}
	out, code = runIn(t, dir, "make", "progress")
	if code != 0 || !regexp.MustCompile(`9\s+Last call\s+1/1\s+done`).MatchString(out) {
		t.Fatalf("make progress = exit %d, want level 9 done:\n%s", code, out)
	}
}

// contributingBlocks returns the files CONTRIBUTING.md shows, each after
// a "<!-- file: PATH -->" line, and the registry entry, after "<!-- registry -->".
func contributingBlocks(t *testing.T, doc string) (map[string]string, string) {
	t.Helper()
	files := map[string]string{}
	registry := ""
	marker := ""
	var block []string
	inCode := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case !inCode && strings.HasPrefix(line, "```"):
			inCode, block = true, nil
		case inCode && line == "```":
			inCode = false
			text := strings.Join(block, "\n") + "\n"
			switch {
			case strings.HasPrefix(marker, "<!-- file: "):
				files[strings.TrimSuffix(strings.TrimPrefix(marker, "<!-- file: "), " -->")] = text
			case marker == "<!-- registry -->":
				registry = text
			}
			marker = ""
		case inCode:
			block = append(block, line)
		case strings.HasPrefix(line, "<!-- "):
			marker = line
		case strings.TrimSpace(line) != "":
			marker = ""
		}
	}
	require.NotEmpty(t, registry, "CONTRIBUTING.md shows no registry entry")
	return files, registry
}
