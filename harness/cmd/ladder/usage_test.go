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

// makefileRule is a rule of the Makefile: its prerequisites and its
// recipe, with the conditional lines inside it.
type makefileRule struct {
	prereqs []string
	recipe  string
}

// readMakefile reads the rules of a Makefile, by target ("test-level-%").
func readMakefile(text string) map[string]*makefileRule {
	rules := map[string]*makefileRule{}
	ruleRE := regexp.MustCompile(`^([A-Za-z0-9_%.-]+(?: [A-Za-z0-9_%.-]+)*) *:([^=].*)?$`)
	var cur []*makefileRule
	for _, line := range strings.Split(text, "\n") {
		if m := ruleRE.FindStringSubmatch(line); m != nil {
			deps := m[2]
			cur = nil
			for _, target := range strings.Fields(m[1]) {
				r := rules[target]
				if r == nil {
					r = &makefileRule{}
					rules[target] = r
				}
				r.prereqs = append(r.prereqs, strings.Fields(deps)...)
				cur = append(cur, r)
			}
			continue
		}
		if strings.HasPrefix(line, "\t") || regexp.MustCompile(`^(ifeq|ifneq|else|endif)\b`).MatchString(line) {
			for _, r := range cur {
				r.recipe += line + "\n"
			}
			continue
		}
		cur = nil
	}
	return rules
}

// makeVars reads the variables a Makefile sets, with their values.
func makeVars(text string) map[string]string {
	vars := map[string]string{}
	text = strings.ReplaceAll(text, "\\\n", " ")
	re := regexp.MustCompile(`(?m)^(?:export )?([A-Za-z_][A-Za-z0-9_]*) *(?::=|\?=|=) *(.*)$`)
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		vars[m[1]] = m[2]
	}
	return vars
}

// expand replaces the variables of a recipe with their values, as far as
// a few levels of nesting go: $(GO) is go, $(call with_redis,...) is the
// shell text of with_redis.
func expand(recipe string, vars map[string]string) string {
	for range 3 {
		for name, value := range vars {
			recipe = strings.ReplaceAll(recipe, "$("+name+")", value)
			recipe = strings.ReplaceAll(recipe, "$(call "+name+",", value+" ")
		}
	}
	return recipe
}

// subMakeRE finds the targets a recipe's $(MAKE) runs.
var subMakeRE = regexp.MustCompile(`\$\(MAKE\)((?: +[^ \n;&|]+)+)`)

// reached returns the targets that make target runs, itself included:
// its prerequisites and the targets its recipe runs through $(MAKE).
func reached(rules map[string]*makefileRule, target string, seen map[string]bool) map[string]bool {
	if seen == nil {
		seen = map[string]bool{}
	}
	if seen[target] {
		return seen
	}
	seen[target] = true
	r := rules[target]
	if r == nil {
		return seen
	}
	next := append([]string{}, r.prereqs...)
	for _, m := range subMakeRE.FindAllStringSubmatch(r.recipe, -1) {
		for _, w := range strings.Fields(m[1]) {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				next = append(next, w)
			}
		}
	}
	for _, n := range next {
		reached(rules, n, seen)
	}
	return seen
}

// TestMakeHelpIsTrueOfTheMakefile checks every line make help prints
// against the Makefile: the target exists, each VAR=value it names is
// read by the recipe, each tool its words name is run, and "part of make
// test" is said of exactly the listed targets make test runs. .ci/run
// runs make test and make ci, whose rule is the one list of the rest.
// The counts come from the registry.
func TestMakeHelpIsTrueOfTheMakefile(t *testing.T) {
	root := repoRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	ci, err := os.ReadFile(filepath.Join(root, ".ci/run"))
	require.NoError(t, err)
	rules := readMakefile(string(makefile))
	vars := makeVars(string(makefile))
	inTest := reached(rules, "test", nil)
	delete(inTest, "test")
	inCI := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(?:GOTOOLCHAIN=\S+ )?make (\S+)`).FindAllStringSubmatch(string(ci), -1) {
		inCI[m[1]] = true
	}
	require.Equal(t, map[string]bool{"test": true, "ci": true}, inCI, ".ci/run runs make test and make ci, and nothing else")

	listed := map[string]bool{}
	for _, g := range commands {
		for _, c := range g.commands {
			if c.make == "" {
				continue
			}
			f := strings.Fields(c.make)
			target := f[1]
			listed[target] = true
			rule := rules[strings.Replace(target, "N", "%", 1)]
			if rule == nil {
				t.Errorf("make help lists %q, and the Makefile has no rule %s", c.make, target)
				continue
			}
			// The recipe, with what it runs through prerequisites and $(MAKE).
			var recipe strings.Builder
			for dep := range reached(rules, strings.Replace(target, "N", "%", 1), nil) {
				if r := rules[dep]; r != nil {
					recipe.WriteString(expand(r.recipe, vars))
				}
			}
			for _, m := range regexp.MustCompile(`\b([A-Z]+)=`).FindAllStringSubmatch(c.make, -1) {
				if !strings.Contains(rule.recipe, "$("+m[1]+")") {
					t.Errorf("make help says %q, and the recipe of %s never reads $(%s)", c.make, target, m[1])
				}
			}
			for _, tool := range c.runs {
				if !strings.Contains(recipe.String(), tool) {
					t.Errorf("make help says of %s %q, and its recipe does not run %s", target, c.what, tool)
				}
			}
			if c.inTest != inTest[target] {
				t.Errorf("make help says %s is part of make test: %v; the Makefile: %v", target, c.inTest, inTest[target])
			}
		}
	}
	for target := range inCI {
		if !listed[target] {
			t.Errorf(".ci/run runs make %s, which make help does not list", target)
		}
	}

	var out strings.Builder
	writeUsage(&out, true)
	last := levels.All[len(levels.All)-1].Number
	for _, want := range []string{
		fmt.Sprintf("rateladder: %s on", katas()),
		fmt.Sprintf("For learners (N is a level, 1 to %d):", last),
		`(?m)^  make test-go +the harness's quick tests, and each spec's own mutation checks \[part of make test\]$`,
	} {
		if !strings.Contains(out.String(), want) && !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("make help lacks %q:\n%s", want, out.String())
		}
	}
	if len(levels.All) == 8 && !strings.Contains(out.String(), "eight katas") {
		t.Errorf("make help does not say eight katas for the 8 levels:\n%s", out.String())
	}
}
