package protocol

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMatchRule pins the rule on a small table: names a, b, c, and d and
// e, which fail the same cases.
func TestMatchRule(t *testing.T) {
	table := Mistakes{Mistakes: []Mistake{
		{Part: 1, Name: "a", Fails: map[int][]string{1: {"1", "2", "3", "4", "5"}}},
		{Part: 1, Name: "b", Fails: map[int][]string{1: {"6", "7", "8", "9", "10"}}},
		{Part: 1, Name: "c", Fails: map[int][]string{1: {"1", "2", "3", "4"}}},
		{Part: 2, Name: "d", Fails: map[int][]string{2: {"x"}}},
		{Part: 2, Name: "e", Fails: map[int][]string{2: {"x"}}},
	}, Blind: map[int][]string{1: {"blind"}}}
	for _, tc := range []struct {
		what    string
		part    int
		failing []string
		want    []string
	}{
		{"the exact set of a", 1, []string{"1", "2", "3", "4", "5"}, []string{"a"}},
		{"the exact set of c, a subset of a's at 0.8", 1, []string{"1", "2", "3", "4"}, []string{"c"}},
		{"b and one more case: 5/6 with b, 0 with the others", 1, []string{"6", "7", "8", "9", "10", "11"}, []string{"b"}},
		{"a and b at once: 0.5 each", 1, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, nil},
		{"a mistake the table does not know", 1, []string{"3", "11", "12"}, nil},
		{"close to a and to c alike: no clear best", 1, []string{"1", "2", "3", "4", "5", "11"}, nil},
		{"d and e fail the same way: both named", 2, []string{"x"}, []string{"d", "e"}},
		{"only the part's own mistakes count", 2, []string{"1", "2", "3", "4", "5"}, nil},
		{"nothing failing", 1, nil, nil},
		{"a blind case is left out: the exact set of a", 1, []string{"1", "2", "3", "4", "5", "blind"}, []string{"a"}},
		{"only blind cases: nothing to compare", 1, []string{"blind"}, nil},
		{"blind in part 1 only", 2, []string{"x", "blind"}, nil},
	} {
		got := table.Match(tc.part, tc.failing).Named()
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: Match(%d, %q) names (-want +got):\n%s", tc.what, tc.part, tc.failing, diff)
		}
	}
}

func TestFindCaseReadsTheLastCaseLine(t *testing.T) {
	out := "    x.go:1: " + CaseLine(Event{Kind: CaseEnd, Name: "a"}) + "\n    x.go:2: " + CaseLine(Event{Kind: CaseEnd, Name: "b"}) + "\n--- PASS\n"
	if e, ok := FindCase(out); !ok || e.Name != "b" {
		t.Errorf("FindCase = %+v, %t; want case b", e, ok)
	}
	for _, bad := range []string{"", "no case line\n", caseMark + "{not json\n", caseMark + `{"e":"race"}`} {
		if e, ok := FindCase(bad); ok {
			t.Errorf("FindCase(%q) = %+v, want none", bad, e)
		}
	}
}
