package main

import (
	"strings"
	"testing"
)

// Every ladder command's usage line comes from the one usage text.
func TestEveryCommandHasAUsageLine(t *testing.T) {
	n := 0
	for _, g := range commands {
		for _, c := range g.commands {
			name, _, _ := strings.Cut(c.ladder, " ")
			if name == "" {
				continue
			}
			n++
			if got, want := usageLine(name), "usage: ladder "+c.ladder; !strings.HasPrefix(got, want) {
				t.Errorf("usageLine(%q) = %q, want it to start with %q", name, got, want)
			}
		}
	}
	if n < 12 {
		t.Errorf("the usage text has %d ladder commands, want every one (at least 12)", n)
	}
	for _, args := range [][]string{{"compare"}, {"reset", "1", "2"}, {"hint"}} {
		var stderr strings.Builder
		if code := run(args, &strings.Builder{}, &stderr); code != 2 || !strings.Contains(stderr.String(), usageLine(args[0])) {
			t.Errorf("ladder %s = exit %d, %q; want exit 2 and the line %q", strings.Join(args, " "), code, stderr.String(), usageLine(args[0]))
		}
	}
}

// Flags may come before or after the level, and each command checks them
// before it runs anything.
func TestFlagsGoOnEitherSideOfTheLevel(t *testing.T) {
	for _, args := range [][]string{{"test", "1", "--part", "9"}, {"test", "--part", "9", "1"}, {"test", "--part=9", "1"}} {
		var stderr strings.Builder
		code := run(args, &strings.Builder{}, &stderr)
		if want := "level 1 has no part 9"; code != 2 || !strings.Contains(stderr.String(), want) {
			t.Errorf("ladder %s = exit %d, %q; want exit 2 and %q", strings.Join(args, " "), code, stderr.String(), want)
		}
	}
	var stderr strings.Builder
	if code := run([]string{"test", "1", "2"}, &strings.Builder{}, &stderr); code != 2 || !strings.Contains(stderr.String(), usageLine("test")) {
		t.Errorf("ladder test 1 2 = exit %d, %q; want exit 2 and the usage line", code, stderr.String())
	}
}
