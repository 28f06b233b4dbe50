package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// The grader must never say "done" for a part that did not run to its end,
// whatever the learner's code does. Each case here is a learner's edit that
// once fooled it, applied in a temporary copy of the ladder and checked
// two ways: make test-level-N and ladder progress --json.

// ladderBin builds the ladder command once per test binary.
var ladderBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ladder-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "ladder")
	out, err := exec.Command(grade.GoTool(), "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// useReference puts a level's reference in place of its stub, when this
// checkout has solutions/.
func useReference(t *testing.T, dir, level string) {
	t.Helper()
	ref := filepath.Join(repoRoot(t), "solutions", level)
	if _, err := os.Stat(ref); err != nil {
		t.Skip("no solutions/ here (a workshop copy)")
	}
	entries, err := os.ReadDir(ref)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			copyTree(t, filepath.Join(ref, e.Name()), filepath.Join(dir, "ladder", level, e.Name()))
		}
	}
}

// plantTrap puts the level's reference in a copy, adds trap.go with the
// given source to its package, and makes the method that starts with
// signature call it first: file is relative to ladder/.
func plantTrap(t *testing.T, dir, file, signature, call, source string) {
	t.Helper()
	level := path.Dir(file)
	useReference(t, dir, level)
	code := filepath.Join(dir, "ladder", filepath.FromSlash(file))
	data, err := os.ReadFile(code)
	require.NoError(t, err)
	pkg := regexp.MustCompile(`(?m)^package (\w+)`).FindSubmatch(data)
	require.NotNil(t, pkg, "%s has no package clause", file)
	addFile(t, dir, "ladder/"+level+"/trap.go", "package "+string(pkg[1])+"\n"+source+"\n")
	edit(t, code, signature+"\n", signature+"\n\t"+call+"\n")
}

func TestTheGraderCannotBeFooled(t *testing.T) {
	slow(t, "runs make and go test in copies of the ladder", "make")
	bin, err := ladderBin()
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		level int
		dir   string
		setup func(t *testing.T, dir string)
		want  string // in make test-level-N's output
		// done lists the parts that may still count as done: those that
		// ran to their end before the trouble.
		done []int
	}{
		{
			name: "syscall.Exit(0) after the 50th call", level: 1, dir: "01-hit-counter",
			setup: func(t *testing.T, dir string) {
				plantTrap(t, dir, "01-hit-counter/hitcounter.go", ") Count(now time.Time) int {", "trap()", `
import "syscall"

var calls int

func trap() {
	if calls++; calls == 50 {
		syscall.Exit(0)
	}
}`)
			},
			want: "the test binary exited during case",
		},
		{
			name: "syscall.Exit(0) in a method only part 3 calls", level: 7, dir: "07-qps-store",
			setup: func(t *testing.T, dir string) {
				// Only part 3's probe uses keys named key-N.
				plantTrap(t, dir, "07-qps-store/qpsstore.go", ") Put(key, value string) {", "trap(key)", `
import (
	"strings"
	"syscall"
)

func trap(key string) {
	if strings.HasPrefix(key, "key-") {
		syscall.Exit(0)
	}
}`)
			},
			want: "of part 3: does your code call os.Exit or syscall.Exit?",
			// Part 3 runs in a test binary of its own, once parts 1 and 2
			// pass in theirs: the exit costs part 3 only.
			done: []int{1, 2},
		},
		{
			name: "runtime.Goexit() after the 1,000th call", level: 1, dir: "01-hit-counter",
			setup: func(t *testing.T, dir string) {
				plantTrap(t, dir, "01-hit-counter/hitcounter.go", ") Hit(now time.Time) {", "trap()", `
import "runtime"

var calls int

func trap() {
	if calls++; calls > 1000 {
		runtime.Goexit()
	}
}`)
			},
			want: "without returning or panicking: does your code call runtime.Goexit",
			done: []int{1},
		},
		{
			name: "an init that exits, in the stub", level: 1, dir: "01-hit-counter",
			setup: func(t *testing.T, dir string) {
				edit(t, filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go"),
					"import \"time\"\n", "import (\n\t\"os\"\n\t\"time\"\n)\n\nfunc init() { os.Exit(0) }\n")
			},
			want: "the test binary ran no test: does an init function in your code call os.Exit?",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyRepo(t, "ladder/"+tc.dir)
			tc.setup(t, dir)

			out, code := runIn(t, dir, "make", fmt.Sprintf("test-level-%d", tc.level), "LADDER="+bin)
			if code == 0 || !strings.Contains(out, tc.want) {
				t.Errorf("make test-level-%d = exit %d, want a failure saying %q:\n%s", tc.level, code, tc.want, out)
			}
			// Plain go test is Go's own: a test binary that exits with
			// status 0 in the middle reads "ok" there. The ladder's
			// grade below does not.
			out, code = runIn(t, dir, bin, "progress", "--json")
			require.Equal(t, 0, code, out)
			var rep grade.Ladder
			require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
			for _, p := range rep.Levels[tc.level-1].Parts {
				if p.Done && !slices.Contains(tc.done, p.Number) {
					t.Errorf("progress counts level %d part %d done, though it did not run to its end", tc.level, p.Number)
				}
			}
		})
	}
}

func TestAnUntouchedStubGetsAShortAnswer(t *testing.T) {
	slow(t, "tests copies of levels 1 and 8")
	dir := copyRepo(t, "ladder/01-hit-counter", "ladder/08-group-throttle")
	for _, tc := range []struct {
		level    string
		maxLines int
	}{{"1", 15}, {"8", 40}} {
		out, code := runLadder(t, dir, "test", tc.level)
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code == 0 || len(lines) > tc.maxLines {
			t.Errorf("test %s on the untouched stub = exit %d, %d lines; want a failure in at most %d lines:\n%s", tc.level, code, len(lines), tc.maxLines, out)
		}
		seen := map[string]bool{}
		for _, l := range lines {
			if strings.Contains(l, "not implemented yet:") {
				if seen[l] {
					t.Errorf("test %s names a method twice: %q", tc.level, l)
				}
				seen[l] = true
			}
		}
		if len(seen) == 0 {
			t.Errorf("test %s names no method to write:\n%s", tc.level, out)
		}
		t.Logf("ladder test %s on the untouched stub: %d lines", tc.level, len(lines))
	}
}
