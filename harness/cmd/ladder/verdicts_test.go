package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Verdicts an honest learner must be able to trust (issue 25): each test
// here is a probe that once got a wrong verdict, replayed on a copy of the
// ladder with the reference edited to make the mistake.

func needLadder(t *testing.T) string {
	t.Helper()
	slow(t, "runs the ladder command on copies of the repository")
	bin, err := ladderBin()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// level7Without copies the ladder with level 7's reference in place, its
// locking lines edited by edits.
func level7With(t *testing.T, edits ...string) string {
	t.Helper()
	dir := copyRepo(t, "ladder/07-qps-store")
	useReference(t, dir, "07-qps-store")
	edit(t, filepath.Join(dir, "ladder/07-qps-store/qpsstore.go"), edits...)
	return dir
}

// qpsLocking is the reference's lock in QPS, as the edits find it.
const qpsLocking = "now := s.clock.Now()\n\ts.mu.Lock()\n\tsec := s.advance(now.Unix())"

func TestAnUnlockedQPSFailsThreadSafetyWithTheRaceReport(t *testing.T) {
	bin := needLadder(t)
	dir := level7With(t, qpsLocking, "now := s.clock.Now()\n\tsec := s.advance(now.Unix())", "\ts.mu.Unlock()\n\treturn float64(n)", "\treturn float64(n)")
	for run := range 2 {
		out, code := runIn(t, dir, bin, "test", "7")
		if code == 0 || !strings.Contains(out, "part 3, thread safety: ") || strings.Contains(out, "part 3, thread safety: done") {
			t.Fatalf("run %d: ladder test 7 = exit %d, want part 3 not done:\n%s", run+1, code, out)
		}
		for _, want := range []string{"part 1, the last five minutes: done", "part 2, windows up to a week: done", "data race", "qpsstore.go:"} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d: the output does not say %q:\n%s", run+1, want, out)
			}
		}
	}
}

func TestAStoreWithNoLockIsDoneWithPart1AndNotPart3(t *testing.T) {
	bin := needLadder(t)
	dir := level7With(t,
		"\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n", "",
		"\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n", "",
		qpsLocking, "now := s.clock.Now()\n\tsec := s.advance(now.Unix())", "\ts.mu.Unlock()\n\treturn float64(n)", "\treturn float64(n)")
	var first string
	for run := range 2 {
		out, code := runIn(t, dir, bin, "test", "7")
		last := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]
		if code == 0 || !regexp.MustCompile(`^level 7: part 1 done \(\d+/\d+\), part 2 done \(\d+/\d+\), part 3 0/\d`).MatchString(last) {
			t.Fatalf("run %d: ladder test 7 = exit %d, last line %q; want parts 1 and 2 done, part 3 not:\n%s", run+1, code, last, out)
		}
		if !strings.Contains(out, "concurrent map") && !strings.Contains(out, "data race") {
			t.Errorf("run %d: the output names neither the crash nor the race:\n%s", run+1, out)
		}
		if strings.Contains(out, "see the output above") {
			t.Errorf("run %d: the output points to output that may not be there:\n%s", run+1, out)
		}
		if run == 0 {
			first = last
		} else if last != first {
			t.Errorf("the same code got two verdicts: %q, then %q", first, last)
		}
	}
}

func TestASkippedCaseIsNeverMissed(t *testing.T) {
	bin := needLadder(t)
	dir := copyRepo(t, "ladder/01-hit-counter")
	useReference(t, dir, "01-hit-counter")
	// A ring that never shrinks fails part 2's memory case, and the init
	// below hides that case from go test.
	edit(t, filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go"), "if len(c.ring) > minCapacity && c.n <= len(c.ring)/4 {", "if false {")
	addFile(t, dir, "ladder/01-hit-counter/skip.go", "package hitcounter\n\nimport \"os\"\n\nfunc init() { os.Args = append(os.Args, \"-test.skip=/part_2/memory\") }\n")
	out, code := runIn(t, dir, bin, "test", "1")
	if code == 0 || strings.Contains(out, "part 2, a million hits a second: done") || strings.Contains(out, "Level 1 is done") {
		t.Fatalf("ladder test 1 = exit %d, want part 2 not done:\n%s", code, out)
	}
	if !regexp.MustCompile(`not verified: \d+ of \d+ cases reported`).MatchString(out) {
		t.Errorf("the output does not say how many cases reported:\n%s", out)
	}
	// The same filter in GOFLAGS, by accident, changes nothing: the
	// grader drops it.
	if got := grade.GradingGoflags("-mod=mod -skip=/part_2/memory -run=x -count=3 -short"); got != "-mod=mod" {
		t.Errorf("gradingGoflags kept %q, want only -mod=mod", got)
	}
}

// TestEachModuleIsGradedOnItsOwn: a compile error in level 8's Redis form
// costs parts 6 to 8 only.
func TestEachModuleIsGradedOnItsOwn(t *testing.T) {
	l, err := levels.Find("8")
	if err != nil {
		t.Fatal(err)
	}
	root := "/r"
	var cases []protocol.Event
	for n := 1; n <= 5; n++ {
		cases = append(cases, protocol.Event{Kind: "case-end", Name: "c", Part: n, Verdict: "pass"})
	}
	pkgs := []*grade.Package{
		{Dir: root + "/ladder/08-group-throttle", Cases: cases},
		{Dir: root + "/ladder/08-group-throttle/redisthrottle", BuildError: "redisthrottle.go:3:1: syntax error"},
	}
	g := grade.Grade(root, l, pkgs)
	if g.BuildError != "" || g.Status() != grade.InProgress {
		t.Errorf("status %q, build error %q; want in progress, and no build error for the level", g.Status(), g.BuildError)
	}
	for _, p := range g.Parts {
		if want := p.Number <= 5; p.Done != want {
			t.Errorf("part %d done = %v, want %v", p.Number, p.Done, want)
		}
	}
	var b strings.Builder
	grade.Write(&b, g, 0, false)
	if !strings.Contains(b.String(), "part 6, the same throttler on Redis: ") || !strings.Contains(b.String(), "does not compile") {
		t.Errorf("the output does not say part 6 does not compile:\n%s", b.String())
	}
}

// TestARaceCostsItsPart: a race report during a case fails that case's
// part, and one outside any case every part the binary played.
func TestARaceCostsItsPart(t *testing.T) {
	l := levels.Level{Number: 1, Title: "One", Dir: "ladder/01-one", Parts: []levels.Part{{Number: 1, Title: "First"}, {Number: 2, Title: "Second"}}}
	pass := func(part int, name string) protocol.Event {
		return protocol.Event{Kind: "case-end", Name: name, Part: part, Verdict: "pass"}
	}
	for _, tc := range []struct {
		name string
		race protocol.Event
		done []bool
	}{
		{"during a case of part 2", protocol.Event{Kind: "race", Name: "b", Part: 2, Report: "WARNING: DATA RACE"}, []bool{true, false}},
		{"outside the cases", protocol.Event{Kind: "race", Report: "WARNING: DATA RACE"}, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &grade.Package{Dir: "/r/ladder/01-one",
				Cases: []protocol.Event{pass(1, "a"), pass(2, "b")}, Races: []protocol.Event{tc.race}}
			g := grade.Grade("/r", l, []*grade.Package{p})
			for i, pt := range g.Parts {
				if pt.Done != tc.done[i] {
					t.Errorf("part %d done = %v, want %v", pt.Number, pt.Done, tc.done[i])
				}
			}
		})
	}
}

// TestLevel8Part1IsDoneWithFixedWindowsOnly: code written for part 1 alone
// (fixed windows, no groups; New refuses the rest with an error) is done
// with part 1: no case of part 1 needs a later part's feature.
func TestLevel8Part1IsDoneWithFixedWindowsOnly(t *testing.T) {
	bin := needLadder(t)
	dir := copyRepo(t, "ladder/08-group-throttle")
	useReference(t, dir, "08-group-throttle")
	edit(t, filepath.Join(dir, "ladder/08-group-throttle/throttle.go"),
		"\tlim, err := compile(\"PerClient\", cfg.PerClient)\n",
		"\tif cfg.PerClient.Algorithm != FixedWindow {\n\t\treturn nil, fmt.Errorf(\"throttle.New: PerClient.Algorithm is %v; only FixedWindow so far\", cfg.PerClient.Algorithm)\n\t}\n"+
			"\tif len(cfg.Groups) > 0 {\n\t\treturn nil, errors.New(\"throttle.New: Groups are not supported yet\")\n\t}\n\tlim, err := compile(\"PerClient\", cfg.PerClient)\n")
	out, code := runIn(t, dir, bin, "test", "--part", "1", "8")
	if code != 0 || !strings.Contains(out, "part 1, fixed window per client: done") {
		t.Fatalf("ladder test --part 1 8 = exit %d, want part 1 done:\n%s", code, out)
	}
}

// One mistake, one screen (issue 26): a classic slip prints at most 40
// lines, with the first wrong call near the top and a ✗ on it.
func TestOneMistakeFitsOneScreen(t *testing.T) {
	bin := needLadder(t)
	for _, tc := range []struct {
		level, file, from, to string
		explains              string // what the first lines must say
	}{
		{"02-logger-limiter", "logger.go", "for l.n > 0 && !l.queue[l.head].at.After(cutoff) {", "for l.n > 0 && l.queue[l.head].at.Before(cutoff) {", "= false, want true"},
		{"04-cafe-counts", "cafe.go", "\t\t\tdelete(c.counts, o.drink) // forgotten: Distinct is len(counts)", "\t\t\tc.counts[o.drink] = 0", "Distinct(t="},
		{"06-chat-top-talker", "chat.go", "k = max(0, min(k, len(a.rank.heap)))", "k = max(0, min(k-1, len(a.rank.heap)))", "TopTalkers(t="},
	} {
		t.Run(tc.level, func(t *testing.T) {
			dir := copyRepo(t, "ladder/"+tc.level)
			useReference(t, dir, tc.level)
			edit(t, filepath.Join(dir, "ladder", tc.level, tc.file), tc.from, tc.to)
			out, code := runIn(t, dir, bin, "test", tc.level[1:2])
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if code == 0 || len(lines) > 40 {
				t.Errorf("ladder test = exit %d, %d lines; want a failure in at most 40:\n%s", code, len(lines), out)
			}
			if top := strings.Join(lines[:min(10, len(lines))], "\n"); !strings.Contains(top, tc.explains) {
				t.Errorf("the first 10 lines do not say %q:\n%s", tc.explains, top)
			}
			if !strings.Contains(out, "✗") {
				t.Errorf("no step is marked ✗:\n%s", out)
			}
		})
	}
}

// TestNothingIsSilent: a case that did not run says why, with the command
// that runs it; the fuzz message names the file go test wrote; the counts
// read as English.
func TestNothingIsSilent(t *testing.T) {
	l, err := levels.Find("8")
	if err != nil {
		t.Fatal(err)
	}
	g := grade.Level{Level: l}
	for _, p := range l.Parts {
		g.Parts = append(g.Parts, grade.Part{Number: p.Number, Title: p.Title, Ran: true, Passed: 1, Total: 1, Reported: 1, Done: p.Number < 8})
	}
	last := &g.Parts[len(g.Parts)-1]
	last.Passed, last.Total, last.Reported, last.NeedServer = 9, 13, 9, []string{"a", "b", "c", "d"}
	var b strings.Builder
	grade.Write(&b, g, 0, false)
	containsAll(t, b.String(),
		"part 8, when Redis fails: not verified: 9 of 13 cases reported (9 pass)\n",
		"  4 cases need a real redis-server: make test-level-8 REDIS=1\n",
	)
	if strings.Contains(b.String(), "Level 8 is done") {
		t.Errorf("a level with cases that never ran is called done:\n%s", b.String())
	}

	out := "--- FAIL: FuzzChat (0.31s)\n    Failing input written to testdata/fuzz/FuzzChat/5c1e2f\n    To re-run:\n"
	if m := failingInput.FindStringSubmatch(out); m == nil || m[1] != "testdata/fuzz/FuzzChat/5c1e2f" {
		t.Errorf("failingInput found %q in go test's output, want the saved file", m)
	}

	for _, tc := range []struct{ got, want string }{
		{grade.PassCount(0, 1), "0 of 1 case passes"},
		{grade.PassCount(1, 1), "1 of 1 case passes"},
		{grade.PassCount(3, 5), "3 of 5 cases pass"},
		{grade.Plural(1, "case"), "1 case"},
		{grade.Plural(2, "case"), "2 cases"},
		{interview.EveryPartPasses(2), "both parts pass"},
		{interview.EveryPartPasses(3), "all 3 parts pass"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
