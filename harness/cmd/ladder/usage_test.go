package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/levels"
)

// Every ladder command's usage line comes from the one usage text.
func TestEveryCommandHasAUsageLine(t *testing.T) {
	n := 0
	for _, c := range commands {
		name, _, _ := strings.Cut(c.ladder, " ")
		if name == "" {
			continue
		}
		n++
		if c.run == nil {
			t.Errorf("the usage text names ladder %s, which runs nothing", name)
		}
		if got, want := usageLine(name), "usage: ladder "+c.ladder; !strings.HasPrefix(got, want) {
			t.Errorf("usageLine(%q) = %q, want it to start with %q", name, got, want)
		}
	}
	if n < 12 {
		t.Errorf("the usage text has %d ladder commands, want every one (at least 12)", n)
	}
	for _, args := range [][]string{{"debrief"}, {"reset", "1", "2"}, {"hint"}} {
		var stderr strings.Builder
		if code := runAt(".", args, &strings.Builder{}, &stderr); code != 2 || !strings.Contains(stderr.String(), usageLine(args[0])) {
			t.Errorf("ladder %s = exit %d, %q; want exit 2 and the line %q", strings.Join(args, " "), code, stderr.String(), usageLine(args[0]))
		}
	}
}

// usageLine is the line ladder name prints when its arguments are wrong.
func usageLine(name string) string {
	_, line := find(name)
	return line
}

// Flags may come before or after the level, and each command checks them
// before it runs anything.
func TestFlagsGoOnEitherSideOfTheLevel(t *testing.T) {
	for _, args := range [][]string{{"test", "1", "--part", "9"}, {"test", "--part", "9", "1"}, {"test", "--part=9", "1"}} {
		var stderr strings.Builder
		code := runAt(".", args, &strings.Builder{}, &stderr)
		if want := "level 1 has no part 9"; code != 2 || !strings.Contains(stderr.String(), want) {
			t.Errorf("ladder %s = exit %d, %q; want exit 2 and %q", strings.Join(args, " "), code, stderr.String(), want)
		}
	}
	var stderr strings.Builder
	if code := runAt(".", []string{"test", "1", "2"}, &strings.Builder{}, &stderr); code != 2 || !strings.Contains(stderr.String(), usageLine("test")) {
		t.Errorf("ladder test 1 2 = exit %d, %q; want exit 2 and the usage line", code, stderr.String())
	}
}

// TestMakeHelpListsTheTargets checks the usage text against the
// Makefile, which make itself reads: every make target the text names
// exists, and .ci/run runs make test and make ci, whose rule is the one
// list of the rest.
func TestMakeHelpListsTheTargets(t *testing.T) {
	needTools(t, "make")
	root := repoRoot(t)
	dir := t.TempDir()
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), makefile, 0o644))

	listed := map[string]bool{}
	var targets []string
	for _, c := range commands {
		if c.make != "" {
			target := strings.Fields(c.make)[1]
			listed[target] = true
			targets = append(targets, strings.Replace(target, "N", "1", 1))
		}
	}
	// make -n prints a rule's commands without running them, and fails
	// on a target it has no rule for; one make for all, and one per
	// target only to name the one that fails.
	if _, code := runIn(t, dir, "make", append([]string{"-n"}, targets...)...); code != 0 {
		for _, target := range targets {
			if out, code := runIn(t, dir, "make", "-n", target); code != 0 {
				t.Errorf("make help lists %s, and make -n %s fails:\n%s", target, target, out)
			}
		}
	}

	ci, err := os.ReadFile(filepath.Join(root, ".ci/run"))
	require.NoError(t, err)
	ran := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(?:GOTOOLCHAIN=\S+ )?make (\S+)`).FindAllStringSubmatch(string(ci), -1) {
		ran[m[1]] = true
	}
	require.Equal(t, map[string]bool{"test": true, "ci": true}, ran, ".ci/run runs make test and make ci, and nothing else")
	for target := range ran {
		require.True(t, listed[target], ".ci/run runs make %s, which make help does not list", target)
	}

	var out strings.Builder
	writeUsage(&out, true)
	last := levels.All[len(levels.All)-1].Number
	for _, want := range []string{
		fmt.Sprintf("rateladder: %d katas on", len(levels.All)),
		fmt.Sprintf("For learners (N is a level, 1 to %d):", last),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("make help lacks %q:\n%s", want, out.String())
		}
	}
}

// TestMakeHelpPrintsTheUsageText: make help prints the usage text, the
// one list of the make targets (TestMakeHelpListsTheTargets checks it
// against the Makefile).
func TestMakeHelpPrintsTheUsageText(t *testing.T) {
	slow(t, "builds the ladder command through make", "make")
	out, code := runIn(t, repoRoot(t), "make", "help")
	var want strings.Builder
	writeUsage(&want, true)
	if code != 0 || !strings.Contains(out, want.String()) {
		t.Fatalf("make help = exit %d:\n%s\nwant the usage text:\n%s", code, out, want.String())
	}
}
