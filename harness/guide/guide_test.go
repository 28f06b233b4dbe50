package guide

import (
	"github.com/rateladder/rateladder/harness/levels"

	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repoRoot walks up from the test's folder to the module's go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

var levelDirRE = regexp.MustCompile(`^(\d\d)-`)

// TestEveryLevelHasAGuide checks every ladder/NN-name folder's
// INTERVIEWER.md: it parses with every section, its follow-ups are the
// README's parts in order, its rubric has the three verdicts, and every
// mistake cites a mutant of the level's spec. The spec's mutation tests fail
// when a mutant is not caught, so a mutant that exists is one the spec
// catches.
func TestEveryLevelHasAGuide(t *testing.T) {
	root := repoRoot(t)
	entries, err := os.ReadDir(filepath.Join(root, "ladder"))
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, e := range entries {
		m := levelDirRE.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		count++
		dir := filepath.Join(root, "ladder", e.Name())
		number, _ := strconv.Atoi(m[1])
		t.Run(e.Name(), func(t *testing.T) {
			g, err := Load(filepath.Join(dir, FileName))
			if err != nil {
				t.Fatal(err)
			}
			if want := "Level " + strconv.Itoa(number) + ":"; !strings.HasPrefix(g.Title, want) {
				t.Errorf("title %q, want it to start with %q", g.Title, want)
			}

			// The level's parts, as the registry lists them (the registry's
			// own test checks them against the READMEs).
			var want []Part
			if l, err := levels.Find(strconv.Itoa(number)); err == nil {
				for _, p := range l.Parts {
					want = append(want, Part{Number: p.Number, Title: p.Title})
				}
			}
			got := make([]Part, len(g.Parts))
			for i, p := range g.Parts {
				got[i] = Part{Number: p.Number, Title: p.Title}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("follow-ups differ from the level's parts (-registry +guide):\n%s", diff)
			}
			for _, p := range g.Parts {
				if p.Body == "" {
					t.Errorf("follow-up part %d has no text", p.Number)
				}
			}

			if !strings.Contains(g.Approaches(), "\n|") {
				t.Errorf("section %q has no table", Approaches)
			}
			rubric, _ := g.Section(Rubric)
			for _, verdict := range []string{"**Hire.**", "**Lean hire.**", "**No hire.**"} {
				if !strings.Contains(rubric, verdict) {
					t.Errorf("section %q has no %s", Rubric, verdict)
				}
			}

			// Every spec folder of the level: level 8's Redis form has
			// its own, in its nested module.
			names := map[string]bool{}
			specs, _ := filepath.Glob(filepath.Join(dir, "spec"))
			more, _ := filepath.Glob(filepath.Join(dir, "*", "spec"))
			for _, sd := range append(specs, more...) {
				found, err := MutantNames(sd)
				if err != nil {
					t.Fatal(err)
				}
				for n := range found {
					names[n] = true
				}
			}
			cited := map[string]int{}
			for _, mk := range g.Mistakes {
				if !names[mk.Mutant] {
					t.Errorf("%s:%d: mutant %q is not a name in spec/*mutants*_test.go", FileName, mk.Line, mk.Mutant)
				}
				if line, ok := cited[mk.Mutant]; ok {
					t.Errorf("%s:%d: mutant %q is cited again (first at line %d)", FileName, mk.Line, mk.Mutant, line)
				}
				cited[mk.Mutant] = mk.Line
			}
		})
	}
	if count == 0 {
		t.Fatalf("no ladder/NN-name folder under %s", root)
	}
}

const good = "# Level 9: Example\n" +
	"\n" +
	"For the interviewer only.\n" +
	"\n" +
	"## Pose the problem\n" +
	"\n" +
	"Say this.\n" +
	"\n" +
	"```\n" +
	"## Not a heading, inside a fence\n" +
	"```\n" +
	"\n" +
	"## Clarifying questions\n" +
	"\n" +
	"- Ask this.\n" +
	"\n" +
	"## Follow-ups\n" +
	"\n" +
	"### Part 1: First\n" +
	"\n" +
	"Move on when done.\n" +
	"\n" +
	"### Part 2: Second\n" +
	"\n" +
	"The end.\n" +
	"\n" +
	"## Approaches\n" +
	"\n" +
	"| approach | time |\n" +
	"|---|---|\n" +
	"| a queue | O(1) |\n" +
	"\n" +
	"## Classic mistakes\n" +
	"\n" +
	"Each names its mutant.\n" +
	"\n" +
	"- Counts the boundary. (mutant: \"inclusive boundary\")\n" +
	"- A mistake that wraps\n" +
	"  onto a second line. (mutant: \"a \\\"quoted\\\" name\")\n" +
	"\n" +
	"## Rubric\n" +
	"\n" +
	"- **Hire.** Yes.\n" +
	"\n" +
	"## Notes\n" +
	"\n" +
	"An extra section is fine.\n"

func TestParse(t *testing.T) {
	g, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if g.Title != "Level 9: Example" {
		t.Errorf("Title = %q, want %q", g.Title, "Level 9: Example")
	}
	var headings []string
	for _, s := range g.Sections {
		headings = append(headings, s.Heading)
	}
	if diff := cmp.Diff(append(append([]string{}, Sections...), "Notes"), headings); diff != "" {
		t.Errorf("section headings (-want +got):\n%s", diff)
	}
	pose, _ := g.Section(Pose)
	if want := "Say this.\n\n```\n## Not a heading, inside a fence\n```"; pose != want {
		t.Errorf("Section(%q) = %q, want %q", Pose, pose, want)
	}
	if want := "| approach | time |\n|---|---|\n| a queue | O(1) |"; g.Approaches() != want {
		t.Errorf("Approaches() = %q, want %q", g.Approaches(), want)
	}
	wantParts := []Part{{1, "First", "Move on when done."}, {2, "Second", "The end."}}
	if diff := cmp.Diff(wantParts, g.Parts); diff != "" {
		t.Errorf("Parts (-want +got):\n%s", diff)
	}
	wantMistakes := []Mistake{
		{Text: "Counts the boundary.", Mutant: "inclusive boundary", Line: 37},
		{Text: "A mistake that wraps onto a second line.", Mutant: `a "quoted" name`, Line: 38},
	}
	if diff := cmp.Diff(wantMistakes, g.Mistakes); diff != "" {
		t.Errorf("Mistakes (-want +got):\n%s", diff)
	}
	if _, ok := g.Section("Nowhere"); ok {
		t.Errorf("Section(%q) found, want not found", "Nowhere")
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(string) string
		wantErr string
	}{
		{"no title", func(s string) string { return strings.TrimPrefix(s, "# Level 9: Example\n") }, "no title"},
		{"a missing section", func(s string) string { return strings.Replace(s, "## Rubric", "## Verdicts", 1) }, `missing section "## Rubric"`},
		{"an empty section", func(s string) string { return strings.Replace(s, "- Ask this.\n", "", 1) }, `section "Clarifying questions" is empty`},
		{"sections out of order", func(s string) string {
			s = strings.Replace(s, "## Pose the problem", "## TEMP", 1)
			s = strings.Replace(s, "## Clarifying questions", "## Pose the problem", 1)
			return strings.Replace(s, "## TEMP", "## Clarifying questions", 1)
		}, `section "Pose the problem" comes after "Clarifying questions"`},
		{"a section twice", func(s string) string { return s + "\n## Rubric\n\nAgain.\n" }, `section "Rubric" again`},
		{"follow-ups without parts", func(s string) string { return strings.ReplaceAll(s, "### Part", "### Step") }, `has no "### Part N: title" heading`},
		{"a mistake without its mutant", func(s string) string {
			return strings.Replace(s, `Counts the boundary. (mutant: "inclusive boundary")`, "Counts the boundary.", 1)
		}, "line 37: mistake without a mutant tag"},
		{"a mutant name that is not a Go string", func(s string) string {
			return strings.Replace(s, `(mutant: "inclusive boundary")`, `(mutant: "bad \q escape")`, 1)
		}, "line 37: mutant name"},
		{"no mistakes", func(s string) string {
			i, j := strings.Index(s, "- Counts"), strings.Index(s, "## Rubric")
			return s[:i] + s[j:]
		}, `lists no mistake`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.edit(good)))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse() error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestMutantNames(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mutants_test.go", "package spec\n\nimport \"testing\"\n\n"+
		"var table = []struct{ name string }{{\"plain name\"}, {`raw: \"quoted\"`}, {\"tab\\there\"}}\n\n"+
		"func TestX(t *testing.T) { t.Log(table) }\n")
	write("redis_mutants_test.go", "package spec\n\nconst other = \"from the second file\"\n")
	write("spec.go", "package spec\n\nconst notAMutant = \"not in a mutants file\"\n")
	got, err := MutantNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"plain name": true, `raw: "quoted"`: true, "tab\there": true, "from the second file": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MutantNames (-want +got):\n%s", diff)
	}

	if _, err := MutantNames(t.TempDir()); err == nil {
		t.Error("MutantNames(empty folder) gave no error, want one")
	}
}
