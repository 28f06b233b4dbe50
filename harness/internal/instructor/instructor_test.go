package instructor

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/stretchr/testify/require"
)

func TestBinaryKind(t *testing.T) {
	pe := make([]byte, 0x100)
	copy(pe, "MZ")
	pe[0x3c] = 0x80
	copy(pe[0x80:], "PE\x00\x00")
	for _, tc := range []struct {
		name, data string
		binary     bool
	}{
		{"an ELF header", "\x7fELF\x02\x01\x01", true},
		{"a 64-bit Mach-O header", "\xcf\xfa\xed\xfe\x07\x00\x00\x01", true},
		{"a universal Mach-O header", "\xca\xfe\xba\xbe\x00\x00\x00\x02", true},
		{"a PE header", string(pe), true},
		{"a Go archive", "!<arch>\n__.PKGDEF       0           0     0     644     ", true},
		{"a WebAssembly module", "\x00asm\x01\x00\x00\x00", true},
		{"a text file with a NUL byte", "package main\n\x00\n", true},
		{"Go source", "package main\n\nfunc main() {}\n", false},
		{"Markdown that starts with MZ", "MZ is not a header here.\n" + strings.Repeat("x", 0x100), false},
		{"a PNG picture", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", false},
		{"an empty file", "", false},
	} {
		if got := BinaryKind([]byte(tc.data)); (got != "") != tc.binary {
			t.Errorf("binaryKind(%s) = %q, want a binary: %v", tc.name, got, tc.binary)
		}
	}
	// The test binary itself, whatever system it was built for.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if got := BinaryKind(data[:min(len(data), 4096)]); got == "" {
		t.Errorf("binaryKind(this test binary) = \"\", want the kind of binary it is")
	}
}

func TestMarkdownTextKeepsTheTable(t *testing.T) {
	for in, want := range map[string]string{
		"alice":          "alice",
		"a|b":            `a\|b`,
		"x_y*z`w`":       "x\\_y\\*z\\`w\\`",
		"line\nbreak":    `line\nbreak`,
		"\x1b[31mred":    `\x1b\[31mred`,
		`back\slash`:     `back\\slash`,
		"[link](http:x)": `\[link\](http:x)`,
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("markdownText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A known mistake is named up to its first ": ".
func TestStudentMistakesAreShort(t *testing.T) {
	for in, want := range map[string]string{
		"inclusive boundary: still refuses at exactly one interval": "inclusive boundary",
		"starts empty": "starts empty",
		"right answers, but Distinct counts every drink on each call: O(drinks)": "right answers, but Distinct counts every drink on each call",
	} {
		part := grade.PartReport{Number: 1, KnownMistake: []string{in}}
		if got := StudentMistakes([]grade.LevelReport{{Number: 2, Parts: []grade.PartReport{part}}}); len(got) != 1 || got[0].label() != want {
			t.Errorf("StudentMistakes(%q) = %v, want %q", in, got, want)
		}
	}
}

func TestClassTablesKeepANameInItsCell(t *testing.T) {
	results := []Result{
		{Name: forgedName, Err: "note | with\r\na pipe\x1b[31m, a backslash \\| and \u2028"},
		{Name: "=HYPERLINK(\"http://example.com\")", Err: "-1+1"},
	}
	var md bytes.Buffer
	WriteMarkdown(&md, results)
	table, rest, _ := strings.Cut(md.String(), "\n\n")
	want := "| student                                                                                   | L1  | L2  | L3  | L4  | L5  | L6  | L7  | L8  | parts | last level done | note |\n" +
		"| ----------------------------------------------------------------------------------------- | --- | --- | --- | --- | --- | --- | --- | --- | ----- | --------------- | --- |\n" +
		`| eve \| 0∕2 \|\n\| mallory \| 2∕2 \| 2∕2 \| 3∕3 \| 3∕3 \| 3∕3 \| 3∕3 \| 3∕3 \| 8∕8 \| 8 \| |     |     |     |     |     |     |     |     | 0/28  | -               | note \| with\r\na pipe\x1b\[31m, a backslash \\\| and \u2028 |` + "\n" +
		"| =HYPERLINK(\"http://example.com\")                                                          |     |     |     |     |     |     |     |     | 0/28  | -               | -1+1 |"
	_, of := Result{}.PartsDone()
	want = strings.ReplaceAll(want, "0/28", fmt.Sprintf("0/%d", of))
	if diff := cmp.Diff(want, table); diff != "" {
		t.Errorf("WriteMarkdown's table (-want +got):\n%s", diff)
	}
	// The why-lines under it keep each name and note on its line.
	if !strings.Contains(rest, "- =HYPERLINK(\"http://example.com\")\n  - -1+1\n") || strings.Count(rest, "\n- ") != 2 {
		t.Errorf("the why-lines under the table:\n%s\nwant one item a student, the note under it", rest)
	}
	// Each row has the header's cells: split at every "|" no backslash
	// escapes, as GitHub does.
	for _, row := range strings.Split(table, "\n") {
		cells := 0
		for i := 0; i < len(row); i++ {
			switch row[i] {
			case '\\':
				i++
			case '|':
				cells++
			}
		}
		if cells != 13 {
			t.Errorf("row %q has %d unescaped |, want 13", row, cells)
		}
	}

	var csvOut bytes.Buffer
	WriteCSV(&csvOut, results)
	records, err := csv.NewReader(&csvOut).ReadAll()
	require.NoError(t, err)
	require.Len(t, records, 3)
	for _, r := range records {
		require.Len(t, r, 24) // the student, 8 levels, total, max, 8 levels judged in process, commit, time, note, known mistakes, why
	}
	require.Equal(t, forgedName, records[1][0])
	// encoding/csv reads a line break in a field as "\n", whatever it was.
	require.Equal(t, strings.ReplaceAll(results[0].Err, "\r\n", "\n"), records[1][21])
	// A spreadsheet reads these as text, not formulas.
	require.Equal(t, `'=HYPERLINK("http://example.com")`, records[2][0])
	require.Equal(t, "'-1+1", records[2][21])
	require.Equal(t, []string{"0", fmt.Sprint(of)}, records[2][9:11], "total and max")
}

// forgedName is a student's folder name that would add a row of its own
// to a table that took it as Markdown.
const forgedName = "eve | 0∕2 |\n| mallory | 2∕2 | 2∕2 | 3∕3 | 3∕3 | 3∕3 | 3∕3 | 3∕3 | 8∕8 | 8 |"

// TestAStudentCopyRefusesAReferenceUnderAnyName puts level 1's reference
// in a NOTES.md of the level's folder, and in a .txt beside the README:
// the copy is refused, naming each. The specs' own tests (mutants, parts)
// stay out of the copy; the repository as it is passes.
func TestAStudentCopyRefusesAReferenceUnderAnyName(t *testing.T) {
	tree, err := shipped.GitTree("../../..", "HEAD")
	if err != nil {
		t.Skipf("no git history here: %v", err)
	}
	var ref []byte
	for _, e := range tree {
		if e.Path == "solutions/01-hit-counter/hitcounter.go" {
			ref = e.Data
		}
	}
	if ref == nil {
		t.Skip("no solutions/ here (a student copy)")
	}
	files, problems := StudentCopyFiles("github.com/rateladder/rateladder", tree)
	if len(problems) > 0 {
		t.Fatalf("the repository as it is: %q", problems)
	}
	for _, f := range files {
		if strings.HasPrefix(f.Path, "ladder/") && strings.Contains(f.Path, "/spec/") && strings.HasSuffix(f.Path, "_test.go") {
			t.Errorf("a student copy holds %s, a spec's own test", f.Path)
		}
	}
	notes := "# My notes\n\n```go\n" + string(ref) + "```\n"
	tree = append(tree, shipped.TreeEntry{Path: "ladder/01-hit-counter/NOTES.md", Mode: "100644", Data: []byte(notes)},
		shipped.TreeEntry{Path: "docs/answer.txt", Mode: "100644", Data: ref})
	_, problems = StudentCopyFiles("github.com/rateladder/rateladder", tree)
	want := []string{
		"ladder/01-hit-counter/NOTES.md carries lines of the reference solutions/01-hit-counter/hitcounter.go: a student copy hands out no answer, whatever the file's name",
		"docs/answer.txt carries lines of the reference solutions/01-hit-counter/hitcounter.go: a student copy hands out no answer, whatever the file's name",
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("StudentCopyFiles' problems (-want +got):\n%s", diff)
	}
}

// A student copy leaves out what would be an answer: the references, the
// specs' own tests, and a spec's oracle.go (level 8's fuzz model, a whole
// throttler). It keeps what the learner's tests need, level 6's fuzz
// model among them, which its spec's own test shows is no answer.
func TestTheStudentCopyLeavesOutTheAnswers(t *testing.T) {
	for path, want := range map[string]bool{
		"solutions/08-group-throttle/throttle.go":       false,
		"ladder/08-group-throttle/spec/mutants_test.go": false,
		"ladder/08-group-throttle/spec/oracle.go":       false,
		"ladder/08-group-throttle/spec/fuzz.go":         true,
		"ladder/08-group-throttle/throttle.go":          true,
		"ladder/06-chat-top-talker/spec/model.go":       true,
	} {
		if got := inStudentCopy(path); got != want {
			t.Errorf("inStudentCopy(%q) = %v, want %v", path, got, want)
		}
	}
}
