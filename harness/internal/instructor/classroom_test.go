package instructor

import (
	"strings"
	"testing"
)

// The results file names, for each student of the class, exactly the
// parts the report counts done.
func TestClassroomDonePartsAreTheReportsParts(t *testing.T) {
	for _, r := range fakeClass() {
		var b strings.Builder
		WriteDoneParts(&b, []Result{r})
		lines := strings.Fields(b.String())
		if done, _ := r.PartsDone(); len(lines) != done {
			t.Errorf("%s: %d parts in the results file, %d done in the report:\n%s", r.Name, len(lines), done, b.String())
		}
		for _, l := range r.Levels {
			for _, p := range l.Parts {
				if listed := strings.Contains("\n"+b.String(), "\n"+PartID(l.Number, p.Number)+"\n"); listed != p.Done {
					t.Errorf("%s: level %d, part %d listed %v, done %v", r.Name, l.Number, p.Number, listed, p.Done)
				}
			}
		}
	}
}

// The workflow pins a repository and a commit; a branch or a name with
// anything else in it is refused before a file is written.
func TestClassroomRefusesAnUnpinnedInstructor(t *testing.T) {
	commit := strings.Repeat("a", 40)
	for _, c := range []struct{ repo, ref string }{
		{"teacher/ladder", "main"},
		{"teacher/ladder", commit[:7]},
		{"teacher", commit},
		{"teacher/ladder\n- run: x", commit},
	} {
		if _, err := PlanClassroom(t.TempDir(), c.repo, c.ref, nil); err == nil {
			t.Errorf("PlanClassroom(%q, %q) = no error, want a refusal", c.repo, c.ref)
		}
	}
	if _, err := PlanClassroom(t.TempDir(), "teacher/lad.der-2", commit, nil); err != nil {
		t.Errorf("PlanClassroom(teacher/lad.der-2, a commit) = %v, want no error", err)
	}
}
