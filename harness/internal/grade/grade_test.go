package grade

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

func TestReadEventsKeepsBuildErrorsAndSkips(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"m/ladder/01-x"}`,
		`{"Action":"output","Package":"m/ladder/01-x","Test":"TestX/part_1/a","Output":"PASS: a forged line from the learner\n"}`,
		`{"Action":"output","Package":"m/ladder/01-x","Output":"ok  \tm/ladder/01-x\n"}`,
		`{"Action":"build-output","ImportPath":"m/ladder/02-y/spec","Output":"ladder/02-y/y.go:3:1: syntax error\n"}`,
		`{"Action":"build-fail","ImportPath":"m/ladder/02-y/spec"}`,
		`{"Action":"fail","Package":"m/ladder/02-y","FailedBuild":"m/ladder/02-y/spec"}`,
		`{"Action":"skip","Package":"m/ladder/03-z/limits"}`,
	}, "\n")
	byPath := map[string]*Package{}
	var pkgs []*Package
	for _, p := range []string{"m/ladder/01-x", "m/ladder/02-y", "m/ladder/03-z/limits"} {
		byPath[p] = &Package{ImportPath: p}
		pkgs = append(pkgs, byPath[p])
	}
	Read("/r", strings.NewReader(in), pkgs...)
	if y := byPath["m/ladder/02-y"]; !strings.Contains(y.BuildError, "syntax error") {
		t.Errorf("02-y BuildError = %q, want the spec's syntax error", y.BuildError)
	}
	if !byPath["m/ladder/03-z/limits"].NoTests {
		t.Error("a package without tests was not marked so")
	}
	if x := byPath["m/ladder/01-x"]; x.BuildError != "" || x.NoTests || len(x.Cases) != 0 {
		t.Errorf("01-x = %+v; printed lines must never count as results", x)
	}
}

func TestGradeLevelCountsOnlyCasesThatRanToTheirEnd(t *testing.T) {
	l := levels.Level{Number: 1, Title: "One", Dir: "ladder/01-one", Parts: []levels.Part{{Number: 1, Title: "First"}, {Number: 2, Title: "Second"}}}
	pass := func(part int, name string) protocol.Event {
		return protocol.Event{Kind: "case-end", Name: name, Part: part, Verdict: "pass"}
	}

	for _, tc := range []struct {
		name   string
		pkg    Package
		status string
		done   []bool
	}{
		{"all pass", Package{Cases: []protocol.Event{pass(1, "a"), pass(2, "b")}}, Done, []bool{true, true}},
		{"part 2 fails", Package{Cases: []protocol.Event{pass(1, "a"), {Kind: "case-end", Part: 2, Verdict: "fail"}}}, InProgress, []bool{true, false}},
		{"not started", Package{Cases: []protocol.Event{{Part: 1, Verdict: "not implemented"}, {Part: 2, Verdict: "not implemented"}}}, NotStarted, []bool{false, false}},
		{"a fuzz seed fails in part 2", Package{Cases: []protocol.Event{pass(1, "a"), pass(2, "b"), {Part: 2, Fuzz: true, Verdict: "fail"}}}, InProgress, []bool{true, false}},
		{"the binary exited part way", Package{Broken: "exited", Cases: []protocol.Event{pass(1, "a"), pass(2, "b")}}, Broken, []bool{false, false}},
		{"part 2 never ran", Package{Cases: []protocol.Event{pass(1, "a")}}, InProgress, []bool{true, false}},
		{"does not compile", Package{BuildError: "syntax error"}, NoBuild, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.pkg
			p.Dir = "/r/ladder/01-one"
			g := Grade("/r", l, []*Package{&p})
			var done []bool
			for _, pt := range g.Parts {
				done = append(done, pt.Done)
			}
			if g.Status() != tc.status || !slices.Equal(done, tc.done) {
				t.Errorf("gradeLevel = status %q, done %v; want %q, %v", g.Status(), done, tc.status, tc.done)
			}
		})
	}
}

// A later module's build error names its first error in the part's one
// line, as the class report shows it, not only the module.
func TestALaterModulesBuildErrorSaysWhy(t *testing.T) {
	l := levels.Level{Number: 8, Title: "Eight", Dir: "ladder/08-x", Parts: []levels.Part{{Number: 1, Title: "First"}, {Number: 2, Title: "On Redis"}},
		Modules: []levels.Module{{Dir: ".", FirstPart: 1}, {Dir: "ladder/08-x/redis", FirstPart: 2}}}
	first := Package{Dir: "/r/ladder/08-x", Cases: []protocol.Event{{Kind: "case-end", Name: "a", Part: 1, Verdict: "pass"}}}
	later := Package{Dir: "/r/ladder/08-x/redis", BuildError: "# example.com/x/redis\nredis.go:28:2: undefined: y\nredis.go:29:2: undefined: z"}
	g := Grade("/r", l, []*Package{&first, &later})
	got := Report([]Level{g}).Levels[0].Parts[1].Why
	if want := "ladder/08-x/redis does not compile: redis.go:28:2: undefined: y"; got != want {
		t.Errorf("part 2's why = %q, want %q", got, want)
	}
}

func TestFocusedOutputShowsOnePartAtATime(t *testing.T) {
	l := levels.Level{Number: 3, Title: "Three", Dir: "ladder/03-three", Parts: []levels.Part{{Number: 1, Title: "First"}, {Number: 2, Title: "Second"}, {Number: 3, Title: "Third"}}}
	ev := func(part int, verdict, name string) protocol.Event {
		return protocol.Event{Kind: "case-end", Name: name, Part: part, Verdict: verdict, Report: "case report", Missing: "Bucket.Delay", Where: "ladder/03-three/b.go:9"}
	}
	p := &Package{Dir: "/r/ladder/03-three", Cases: []protocol.Event{
		ev(1, "pass", "a"), ev(1, "pass", "b"), ev(2, "pass", "c"), ev(2, "fail", "d"), ev(2, "not implemented", "e"), ev(3, "not implemented", "f"),
	}}
	var b strings.Builder
	Write(&b, Grade("/r", l, []*Package{p}), 0, false)
	want := `Level 3: Three

part 1, first: done (2/2)
part 2, second: 1 of 3 cases pass
  not implemented yet: Bucket.Delay (ladder/03-three/b.go:9), needed by 2 cases

  case report

part 3, third: waits for part 2 (1 case)

level 3: part 1 done (2/2), part 2 1/3, part 3 waiting
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("writeGrade mismatch (-want +got):\n%s", diff)
	}
}

func TestLevelRunsGroupsByModuleAndRace(t *testing.T) {
	one := levels.Level{Number: 1, Dir: "ladder/01-a", Modules: []levels.Module{{Dir: ".", FirstPart: 1}}}
	two := levels.Level{Number: 2, Dir: "ladder/02-b", Modules: []levels.Module{{Dir: ".", FirstPart: 1}}}
	raced := levels.Level{Number: 3, Dir: "ladder/03-c", Race: true, Modules: []levels.Module{
		{Dir: ".", FirstPart: 1}, {Dir: "ladder/03-c/nested", FirstPart: 2},
	}}
	got := LevelRuns([]levels.Level{one, two, raced})
	want := []Run{
		{Module: ".", Patterns: []string{"./ladder/01-a/...", "./ladder/02-b/..."}},
		{Module: ".", Patterns: []string{"./ladder/03-c/..."}, Race: true},
		{Module: "ladder/03-c/nested", Patterns: []string{"./..."}, Race: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LevelRuns mismatch (-want +got):\n%s", diff)
	}
}
