package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/instructor"
)

// TestClassReportNamesKnownMistakes grades three students of level 2 as the
// grader would see the boundary slip, and one with a mistake no table
// knows: the report names the slip for the three, in one line under the
// Markdown table and in a CSV column, and nothing for the fourth.
func TestClassReportNamesKnownMistakes(t *testing.T) {
	root, l, fails := boundarySlip(t)
	slip := grade.Report([]grade.Level{learnerFailing(t, root, l, 1, fails)}).Levels
	unknown := grade.Report([]grade.Level{learnerFailing(t, root, l, 1, fails[:1])}).Levels
	if got, want := instructor.StudentMistakes(slip), []instructor.PartMistake{{Level: 2, Part: 1, Names: []string{"inclusive boundary"}}}; !cmp.Equal(got, want) {
		t.Errorf("studentMistakes(the boundary slip) = %v, want %v", got, want)
	}
	if got := instructor.StudentMistakes(unknown); len(got) != 0 {
		t.Errorf("studentMistakes(one case of the slip's %d) = %v, want none", len(fails), got)
	}
	results := []instructor.Result{
		{Name: "alice", Levels: slip},
		{Name: "bob", Levels: slip},
		{Name: "carol", Levels: slip},
		{Name: "dave", Levels: unknown},
	}

	var md bytes.Buffer
	instructor.WriteMarkdown(&md, results)
	want := "\nKnown mistakes (a failing part whose cases fail the way a known mistake does), the most made first:\n\n" +
		"- level 2 part 1 \"inclusive boundary\": 3 students (alice, bob, carol)\n"
	if !strings.HasSuffix(md.String(), want) {
		t.Errorf("writeClassMarkdown does not end with\n%s\nit writes:\n%s", want, md.String())
	}
	// INSTRUCTORS.md shows this very output.
	guide, err := os.ReadFile(filepath.Join(root, "INSTRUCTORS.md"))
	if err != nil {
		t.Fatal(err)
	}
	if sample := strings.ReplaceAll(strings.TrimPrefix(want, "\n"), "\n-", "\n  -"); !strings.Contains(string(guide), "  "+sample) {
		t.Errorf("INSTRUCTORS.md does not show the known mistakes as the report writes them:\n%s", sample)
	}
	if strings.Contains(md.String(), "dave)") {
		t.Errorf("writeClassMarkdown names a mistake for dave, whose mistake no table knows:\n%s", md.String())
	}

	var c bytes.Buffer
	instructor.WriteCSV(&c, results)
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatalf("writeClassCSV wrote no CSV: %v\n%s", err, c.String())
	}
	var got []string
	for _, row := range rows {
		got = append(got, row[0]+"="+row[len(row)-1])
	}
	if diff := cmp.Diff([]string{"student=known_mistakes", "alice=L2.1 inclusive boundary", "bob=L2.1 inclusive boundary",
		"carol=L2.1 inclusive boundary", "dave="}, got); diff != "" {
		t.Errorf("writeClassCSV's student and known_mistakes columns (-want +got):\n%s", diff)
	}

	// A name with a "|" keeps the list one item.
	var odd bytes.Buffer
	instructor.WriteMistakes(&odd, []instructor.Result{{Name: "b|o*b", Levels: slip}})
	if want := "- level 2 part 1 \"inclusive boundary\": 1 student (b\\|o\\*b)\n"; !strings.HasSuffix(odd.String(), want) {
		t.Errorf("writeClassMistakes does not escape the name:\n%s\nwant it to end with\n%s", odd.String(), want)
	}

	var none bytes.Buffer
	instructor.WriteMarkdown(&none, results[3:])
	if strings.Contains(none.String(), "Known mistakes") {
		t.Errorf("writeClassMarkdown lists known mistakes when no student made one:\n%s", none.String())
	}
}
