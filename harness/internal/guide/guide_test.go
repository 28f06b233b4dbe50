package guide

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/levels"
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

// TestEveryLevelHasAGuide checks every level's INTERVIEWER.md: it parses
// with every section, and Check finds nothing wrong in it. That every
// ladder/NN-name folder is a level of the registry is checked by levels'
// own tests. The spec's mutation tests fail when a mutant is not caught,
// so a mutant that exists is one the spec catches.
func TestEveryLevelHasAGuide(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		t.Run(filepath.Base(l.Dir), func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(root, l.Dir, FileName))
			if err != nil {
				t.Fatal(err)
			}
			g, sh, err := parseAll(src)
			if err != nil {
				t.Fatal(err)
			}
			if want := "Level " + strconv.Itoa(l.Number) + ":"; !strings.HasPrefix(sh.Title, want) {
				t.Errorf("title %q, want it to start with %q", sh.Title, want)
			}
			if approaches, _ := g.Section(Approaches); !strings.Contains(approaches, "\n|") {
				t.Errorf("section %q has no table", Approaches)
			}
			for _, err := range Check(root, l, g) {
				t.Error(err)
			}
		})
	}
}

// TestCheckCatchesLevel8sOldErrors puts back, one at a time, the four
// errors level 8's guide once had (and a wrong case count), and checks that
// Check finds each.
func TestCheckCatchesLevel8sOldErrors(t *testing.T) {
	root := repoRoot(t)
	l, err := levels.Find("8")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, l.Dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		add     string // appended to the Follow-ups' last part
		wantErr string
	}{
		{"the fleet's numbers", "The spec's check: 8 goroutines over 4 throttlers send 1,600 requests at a client allowed 1,000 a minute.", `quotes "1,600 requests" without a link`},
		{"the fleet's numbers, linked", "The spec sends [1,600 requests at a client allowed 1,000](redisthrottle/spec/cases.go \"fleetExact: goroutines * each; limit\").", "quotes 1600, 1000, and the spec says 400, 250"},
		{"a mutants file that is not there", "The mutants are in `spec/redis_mutants_test.go`.", "names spec/redis_mutants_test.go, which is neither"},
		{"a client setting the README does not ask for", "Done with go-redis, `ContextTimeoutEnabled: true`.", "quotes the setting `ContextTimeoutEnabled: true`"},
		{"a case count the spec does not have", "Part 3 has [10 cases of part 3](spec/testdata/cases.json).", "says 10 cases, and part 3 has 7"},
		{"four parts in 45 minutes", "Parts 1 to 4 fill a 45-minute coding interview.", `says "Parts 1 to 4 fill a 45-minute"`},
	}
	anchor := "\n## " + HintScript
	if !strings.Contains(string(src), anchor) {
		t.Fatalf("%s has no %q", FileName, anchor)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Parse([]byte(strings.Replace(string(src), anchor, "\n"+tt.add+"\n"+anchor, 1)))
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, err := range Check(root, l, g) {
				all = append(all, err.Error())
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.wantErr) {
				t.Errorf("Check() = %q, want an error containing %q", all, tt.wantErr)
			}
		})
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
	"## Time plan\n" +
	"\n" +
	"- **In scope, 30 minutes:** part 1.\n" +
	"- **Stretch:** part 2.\n" +
	"- **Take-home:** none.\n" +
	"\n" +
	"| phase | minutes |\n" +
	"|---|---|\n" +
	"| part 1 | 25 |\n" +
	"| wrap-up | 5 |\n" +
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
	"## Hint script\n" +
	"\n" +
	"### Part 1: First\n" +
	"\n" +
	"1. A question?\n" +
	"2. A nudge\n" +
	"   that wraps.\n" +
	"3. The near-answer.\n" +
	"\n" +
	"### Part 2: Second\n" +
	"\n" +
	"1. Q.\n" +
	"2. N.\n" +
	"3. A.\n" +
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
	"| | Strong no hire | No hire | Hire | Strong hire |\n" +
	"|---|---|---|---|---|\n" +
	"| **Problem solving** | a | b | c | d |\n" +
	"| **Code** | a | b | c | d |\n" +
	"| **Testing** | a | b | c | d |\n" +
	"| **Communication** | a | b | c | d |\n" +
	"| **Hints used** | a | b | c | d |\n" +
	"\n" +
	"## Notes\n" +
	"\n" +
	"An extra section is fine.\n"

func TestParse(t *testing.T) {
	g, sh, err := parseAll([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if sh.Title != "Level 9: Example" {
		t.Errorf("Title = %q, want %q", sh.Title, "Level 9: Example")
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
	approaches, _ := g.Section(Approaches)
	if want := "| approach | time |\n|---|---|\n| a queue | O(1) |"; approaches != want {
		t.Errorf("Section(%q) = %q, want %q", Approaches, approaches, want)
	}
	wantParts := []Part{{1, "First", "Move on when done."}, {2, "Second", "The end."}}
	if diff := cmp.Diff(wantParts, sh.Parts); diff != "" {
		t.Errorf("Parts (-want +got):\n%s", diff)
	}
	wantMistakes := []Mistake{
		{Text: "Counts the boundary.", Mutant: "inclusive boundary", Line: 63},
		{Text: "A mistake that wraps onto a second line.", Mutant: `a "quoted" name`, Line: 64},
	}
	if diff := cmp.Diff(wantMistakes, g.Mistakes); diff != "" {
		t.Errorf("Mistakes (-want +got):\n%s", diff)
	}
	wantScope := Scope{Minutes: 30, In: []int{1}, Stretch: []int{2}}
	if diff := cmp.Diff(wantScope, g.Scope); diff != "" {
		t.Errorf("Scope (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Phase{{"part 1", 25}, {"wrap-up", 5}}, sh.Plan); diff != "" {
		t.Errorf("Plan (-want +got):\n%s", diff)
	}
	wantHints := []PartHints{{1, "First", []string{"A question?", "A nudge that wraps.", "The near-answer."}}, {2, "Second", []string{"Q.", "N.", "A."}}}
	if diff := cmp.Diff(wantHints, sh.Hints); diff != "" {
		t.Errorf("Hints (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Strong no hire", "No hire", "Hire", "Strong hire"}, sh.Bands); diff != "" {
		t.Errorf("Bands (-want +got):\n%s", diff)
	}
	if got := sh.Cells["Testing"]; !cmp.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("Cells[Testing] = %q, want a, b, c, d", got)
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
		}, "line 63: mistake without a mutant tag"},
		{"a mutant name that is not a Go string", func(s string) string {
			return strings.Replace(s, `(mutant: "inclusive boundary")`, `(mutant: "bad \q escape")`, 1)
		}, "line 63: mutant name"},
		{"no scope", func(s string) string { return strings.Replace(s, "- **Stretch:** part 2.\n", "", 1) }, `no scope line "- **Stretch:** ..."`},
		{"a scope that is not a list of parts", func(s string) string { return strings.Replace(s, "** part 1.", "** the first part.", 1) }, `in scope: "the first part."`},
		{"minutes that are not a number", func(s string) string { return strings.Replace(s, "| 25 |", "| 25-30 |", 1) }, `the minutes of "part 1" are "25-30"`},
		{"two hints", func(s string) string { return strings.Replace(s, "3. A.\n", "", 1) }, `part 2: 2 numbered hints, want 3`},
		{"three bands", func(s string) string { return strings.ReplaceAll(s, " c | d |", " d |") }, "a table row with 4 cells, want at least 5"},
		{"bands out of order", func(s string) string { return strings.Replace(s, "| No hire | Hire |", "| Hire | No hire |", 1) }, `rubric band "No hire"`},
		{"a dimension missing", func(s string) string { return strings.Replace(s, "| **Testing** | a | b | c | d |\n", "", 1) }, "the rubric's rows are"},
		{"an empty cell", func(s string) string { return strings.Replace(s, "| **Code** | a |", "| **Code** |  |", 1) }, `row "Code" says nothing for "Strong no hire"`},
		{"no mistakes", func(s string) string {
			i, j := strings.Index(s, "- Counts"), strings.Index(s, "## Rubric")
			return s[:i] + s[j:]
		}, `lists no mistake`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := parseAll([]byte(tt.edit(good)))
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
