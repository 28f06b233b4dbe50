package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	instr "github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// fullLadder is the instructor's whole checkout under git, as it is in the
// working tree, but the nested modules the report never reads.
func fullLadder(t *testing.T) string {
	t.Helper()
	needTools(t, "git")
	root := repoRoot(t)
	files, err := gitFiles(root, "--cached", "--others", "--exclude-standard")
	require.NoError(t, err)
	dir := t.TempDir()
	for _, p := range files {
		if strings.HasPrefix(p, "harness/plot/") || strings.HasPrefix(p, "solutions/peers/") || strings.HasPrefix(p, "solutions/plot/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			continue // deleted in the working tree
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), data, 0o644))
	}
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "the ladder")
	return dir
}

// studentOf is a student's copy of the instructor's checkout: everything
// but solutions/ and .git.
func studentOf(t *testing.T, instructor, dest string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dest, 0o755))
	for _, p := range []string{"go.mod", "go.sum", "Makefile", "harness", "ladder"} {
		if _, err := os.Stat(filepath.Join(instructor, p)); err == nil {
			copyTree(t, filepath.Join(instructor, p), filepath.Join(dest, p))
		}
	}
}

// forgedEvents are the lines a forger writes: every case of the level's
// list, started and passed, then the run's end.
func forgedEvents(t *testing.T, instructor string, l levels.Level) string {
	t.Helper()
	man, err := protocol.ReadManifest(filepath.Join(instructor, l.Dir, "spec", protocol.ManifestFile))
	require.NoError(t, err)
	var b strings.Builder
	for _, kind := range []string{"run-start"} {
		line, _ := json.Marshal(protocol.Event{Kind: kind, Test: "TestX"})
		b.Write(append(line, '\n'))
	}
	for _, c := range man.Cases {
		for _, kind := range []string{"case-start", "case-end"} {
			e := protocol.Event{Kind: kind, Test: "TestX", Name: c.Name, Part: c.Part}
			if kind == "case-end" {
				e.Verdict = "pass"
			}
			line, _ := json.Marshal(e)
			b.Write(append(line, '\n'))
		}
	}
	line, _ := json.Marshal(protocol.Event{Kind: "run-end", Test: "TestX"})
	b.Write(append(line, '\n'))
	return b.String()
}

// forgeFD3 is a student's file whose init writes passing events to the
// runner's descriptor, then points the descriptor at /dev/null, keeping a
// copy of it open so that the supervisor does not see the pipe end. It
// earns every part of make test-level-1 in process.
const forgeFD3 = `package PKG

import (
	"os"
	"syscall"
)

func init() {
	os.NewFile(3, "events").Write([]byte(EVENTS))
	syscall.Dup(3)
	if null, err := os.Open(os.DevNull); err == nil {
		syscall.Dup3(int(null.Fd()), 3, 0)
	}
}
`

// forgeSkip is a student's file whose init hides every test of its
// package.
const forgeSkip = `package PKG

import "os"

func init() { os.Args = append(os.Args, "-test.skip=.") }
`

// forgeCgo is a student's file whose C constructor runs before Go does,
// in every process built from the package, and writes a passing results
// file wherever the supervisor keeps them.
const forgeCgo = `package PKG

/*
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *events = EVENTS;

__attribute__((constructor)) static void forge(void) {
	const char *dir = getenv(RESULTS_ENV);
	char path[4096], cwd[2048];
	if (dir == NULL || getcwd(cwd, sizeof cwd) == NULL) return;
	snprintf(path, sizeof path, "%s/forged-%d.json", dir, (int)getpid());
	FILE *f = fopen(path, "w");
	if (f == NULL) return;
	fputs(events, f);
	fprintf(f, "{\"e\":\"exit\",\"dir\":\"%s\",\"complete\":true}\n", cwd);
	fclose(f);
}
*/
import "C"
`

// forgery writes one of the forgeries above into levels 1 and 2.
func forgery(t *testing.T, instructor, student, src, file string) {
	t.Helper()
	for _, l := range levels.All[:2] {
		pkg := map[int]string{1: "hitcounter", 2: "logger"}[l.Number]
		text := strings.ReplaceAll(src, "PKG", pkg)
		text = strings.ReplaceAll(text, "EVENTS", fmt.Sprintf("%q", forgedEvents(t, instructor, l)))
		text = strings.ReplaceAll(text, "RESULTS_ENV", `"LADDER_RESULTS"`) // the old results folder, unset now: the forgery writes nothing
		require.NoError(t, os.WriteFile(filepath.Join(student, l.Dir, file), []byte(text), 0o644))
	}
}

// TestClassReportVerdictsCannotBeForged grades a class of six: an
// untouched copy, one with every reference pasted in, three that forge
// their results from inside their test binaries, and one whose code
// imports the spec. Only the second earns anything.
func TestClassReportVerdictsCannotBeForged(t *testing.T) {
	skipSlow(t, "runs the class report on six copies of the whole ladder")
	if runtime.GOOS != "linux" {
		t.Skip("the forgeries use Linux system calls")
	}
	instructor := fullLadder(t)
	class := t.TempDir()
	names := []string{"untouched", "references", "fd3", "skip", "cgo", "model", "growskip"}
	var dirs []string
	for _, n := range names {
		dirs = append(dirs, filepath.Join(class, n))
		studentOf(t, instructor, dirs[len(dirs)-1])
	}
	require.True(t, pasteReferences(t, dirs[1], levels.All...), "no solutions/ here")
	forgery(t, instructor, dirs[2], forgeFD3, "forge.go")
	forgery(t, instructor, dirs[3], forgeSkip, "forge.go")
	forgery(t, instructor, dirs[4], forgeCgo, "forge.go")
	// model's level 1 links the spec, whose model would be an answer.
	require.NoError(t, os.WriteFile(filepath.Join(dirs[5], "ladder/01-hit-counter/model.go"),
		[]byte("package hitcounter\n\nimport _ \"github.com/rateladder/rateladder/ladder/01-hit-counter/spec\"\n"), 0o644))

	// growskip's level 1 is the reference with a ring that never shrinks,
	// which fails part 2's memory case, and an init that skips that case.
	pasteReferences(t, dirs[6], levels.All[0])
	edit(t, filepath.Join(dirs[6], "ladder/01-hit-counter/hitcounter.go"), "if len(c.ring) > minCapacity && c.n <= len(c.ring)/4 {", "if false {")
	require.NoError(t, os.WriteFile(filepath.Join(dirs[6], "ladder/01-hit-counter/skip.go"),
		[]byte("package hitcounter\n\nimport \"os\"\n\nfunc init() { os.Args = append(os.Args, \"-test.skip=/part_2/memory\") }\n"), 0o644))

	out, code := runLadder(t, instructor, append([]string{"class-report", "--cache", reportCache(), "--parallel", "2"}, dirs...)...)
	require.Equal(t, 0, code, out)
	rows := tableRows(out)
	t.Logf("the report:\n%s", out)
	for _, n := range []string{"untouched", "fd3", "skip", "cgo"} {
		row := rows[n]
		require.NotNil(t, row, "no row for %s", n)
		for i, l := range levels.All {
			if cell := row[1+i]; cell != "" && !strings.HasPrefix(cell, "0/") {
				t.Errorf("%s: level %d reads %q, want no part done", n, l.Number, cell)
			}
		}
	}
	require.Equal(t, "refused", rows["model"][1], "level 1 of a copy whose code imports the spec")
	require.Equal(t, "1/2", rows["growskip"][1], "level 1 of a grow-only ring that skips part 2's memory case")
	ref := rows["references"]
	require.NotNil(t, ref, "no row for the references")
	for i, l := range levels.All {
		want := fmt.Sprintf("%d/%d", len(l.Parts), len(l.Parts))
		if l.Number == 8 && !onPath("redis-server") {
			// A case of part 8 needs a redis-server, which the report
			// starts in each sandbox only when one is installed (make
			// test-e2e installs it).
			want = "7/8"
		}
		if cell := ref[1+i]; cell != want {
			t.Errorf("references: level %d reads %q, want %s", l.Number, ref[1+i], want)
		}
	}
}

// tableRows reads the class report's first Markdown table, by student:
// each row's cells, trimmed, with the mark of a part judged in process
// left off.
func tableRows(out string) map[string][]string {
	rows := map[string][]string{}
	table, _, _ := strings.Cut(out, "\n\n")
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		f := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		for i := range f {
			f[i] = strings.TrimSuffix(strings.TrimSpace(f[i]), `\`+instr.InProcessMark)
		}
		rows[f[0]] = f
	}
	return rows
}
