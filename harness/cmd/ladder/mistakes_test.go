package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// learnerFailing is a level graded as if the learner's code failed
// exactly the given cases of part, and passed every other case of the
// spec's list: what the grader sees of code with that mistake.
func learnerFailing(t *testing.T, root string, l levels.Level, part int, failing []string) grade.Level {
	t.Helper()
	g := grade.Level{Level: l}
	lists := grade.SpecLists(root, l)
	for _, lp := range l.Parts {
		p := grade.Part{Number: lp.Number, Title: lp.Title, Ran: true, Done: lp.Number < part}
		for _, c := range lists[lp.Number] {
			v := protocol.Pass
			if lp.Number == part && slices.Contains(failing, c.Name) {
				v = protocol.Fail
			}
			p.Cases = append(p.Cases, grade.Case{Name: c.Name, Part: lp.Number, Verdict: v})
			p.Total++
			p.Reported++
			if v == protocol.Pass {
				p.Passed++
			}
		}
		g.Parts = append(g.Parts, p)
	}
	grade.MatchMistakes(root, &g)
	return g
}

// TestEveryKnownMistakeIsNamed feeds each mutant's failing cases, in each
// part it fails, to the grader, which must name it in the line under the
// first failing case: every spec of every level, level 8's Redis form too.
func TestEveryKnownMistakeIsNamed(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		for _, m := range l.Modules {
			path := filepath.Join(root, filepath.FromSlash(l.SpecDir(m)), protocol.MistakesFile)
			if _, err := protocol.ReadMistakes(path); err != nil {
				t.Errorf("level %d: no table of known mistakes in the spec of parts %v: %v", l.Number, l.PartsOf(m), err)
			}
		}
		table := grade.KnownMistakes(root, l)
		for _, k := range table.Mistakes {
			for part, fails := range k.Fails {
				g := learnerFailing(t, root, l, part, fails)
				line := grade.MistakeLine(g.Parts[part-1])
				if p := g.Parts[part-1]; p.Match == nil || !p.Match.Names(k.Name) || !strings.Contains(line, k.Name) {
					t.Errorf("level %d, mistake %q, its failing cases of part %d: the grader says %q, want its name", l.Number, k.Name, part, line)
				}
			}
		}
	}
}

// TestMistakeNamingRates measures the rule on every level's table, and
// logs it (go test -v -run TestMistakeNamingRates):
//   - each mistake alone: named, and named right;
//   - each mistake taken out of the table, as a mistake the table does not
//     know: named (wrongly) by another;
//   - each pair of mistakes of one part, as the cases either fails: named,
//     and named as one of the two.
//
// A pair of mistakes in one program can fail other cases than either
// alone; the union is the common case. Real pairs are planted in level 2's
// reference (TestPlantedMistakeIsNamed) and in the Redis form's mutants
// (its spec's TestTwoMistakesGetNoFalseName).
func TestMistakeNamingRates(t *testing.T) {
	root := repoRoot(t)
	type spec struct {
		name  string
		table protocol.Mistakes
	}
	var specs []spec
	for _, l := range levels.All {
		for _, m := range l.Modules {
			dir := l.SpecDir(m)
			table, err := protocol.ReadMistakes(filepath.Join(root, filepath.FromSlash(dir), protocol.MistakesFile))
			if err != nil {
				t.Errorf("level %d: %v", l.Number, err)
				continue
			}
			specs = append(specs, spec{dir, table})
		}
	}
	for _, sp := range specs {
		table, name := sp.table, sp.name
		var alone, aloneRight, unknown, unknownNamed, unknownTwin, pairs, pairsNamed, pairsRight, pairsWrong int
		for i, k := range table.Mistakes {
			fails := k.Fails[k.Part]
			alone++
			if got := table.Match(k.Part, fails); got.Names(k.Name) {
				aloneRight++
			}
			others := protocol.Mistakes{Mistakes: slices.Delete(slices.Clone(table.Mistakes), i, i+1)}
			unknown++
			if got := others.Match(k.Part, fails); got.Best >= 0 {
				if got.Candidates[got.Best].Overlap == 1 {
					unknownTwin++ // another mutant fails the very same cases: no rule can tell them apart
				} else {
					unknownNamed++
				}
				t.Logf("%s: unknown %q is named %q (overlap %.2f)", name, k.Name, got.Named(), got.Candidates[got.Best].Overlap)
			}
			for _, o := range table.Mistakes[i+1:] {
				if o.Part != k.Part {
					continue
				}
				union := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(fails), o.Fails[k.Part]...))))
				pairs++
				got := table.Match(k.Part, union)
				switch {
				case got.Best < 0:
				case got.Names(k.Name) || got.Names(o.Name):
					pairsNamed++
					pairsRight++
				default:
					pairsNamed++
					pairsWrong++
					t.Logf("%s: %q + %q is named %q", name, k.Name, o.Name, got.Named())
				}
			}
		}
		t.Logf("%s: alone %d/%d named right; unknown (left out of the table) %d/%d named by a twin that fails the same cases, %d/%d by a near one; pairs of one part %d: %d named, %d of them right, %d wrong",
			name, aloneRight, alone, unknownTwin, unknown, unknownNamed, unknown, pairs, pairsNamed, pairsRight, pairsWrong)
		if aloneRight != alone {
			t.Errorf("%s: %d of %d mistakes alone are not named right", name, alone-aloneRight, alone)
		}
	}
}

// inclusive is level 2's boundary slip, the known mistake the tests plant.
const inclusive = "inclusive boundary: still refuses at exactly one interval"

// boundarySlip returns the repository's root, level 2, and the cases of
// part 1 that the boundary slip fails, from level 2's table.
func boundarySlip(t *testing.T) (string, levels.Level, []string) {
	t.Helper()
	root := repoRoot(t)
	l, err := levels.Find("2")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range grade.KnownMistakes(root, l).Mistakes {
		if k.Name == inclusive {
			return root, l, k.Fails[1]
		}
	}
	t.Fatalf("level 2's table has no mistake %q", inclusive)
	return "", l, nil
}

// TestGradeNamesTheMistake: the line under the first failing case, its
// absence in interview grading, and --all's list of close matches.
func TestGradeNamesTheMistake(t *testing.T) {
	root, l, fails := boundarySlip(t)
	g := learnerFailing(t, root, l, 1, fails)
	var b strings.Builder
	grade.Write(&b, g, 0, false)
	want := "\n  This is how a known mistake fails: " + inclusive + ". Still refuses exactly one interval after the print: 15s refused instead of printed.\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("writeGrade does not say %q:\n%s", want, b.String())
	}
	if strings.Contains(b.String(), "Known mistakes that fail some") {
		t.Errorf("writeGrade lists close matches without --all:\n%s", b.String())
	}

	b.Reset()
	grade.Write(&b, g, 0, true)
	containsAll(t, b.String(), want, "    100%  "+inclusive+" (fails 9 cases of part 1)\n", "     89%  resets the timer on a refused call (fails 8 cases of part 1)\n")

	b.Reset()
	g.HideMistakes = true
	grade.Write(&b, g, 0, true)
	if strings.Contains(b.String(), "known mistake") {
		t.Errorf("writeGrade names a mistake with HideMistakes set:\n%s", b.String())
	}
	if grade.MistakeLine(g.Parts[0]) == "" {
		t.Errorf("mistakeLine is empty with HideMistakes set; interview mode offers it as a hint")
	}

	// A case still to write: nothing to compare yet.
	g = learnerFailing(t, root, l, 1, fails)
	g.Parts[0].Cases[len(g.Parts[0].Cases)-1].Verdict = "not implemented"
	if grade.MatchMistakes(root, &g); g.Parts[0].Match != nil && g.Parts[0].Match.Best >= 0 {
		t.Errorf("a part with a case not implemented yet is matched to %q", g.Parts[0].Match.Named())
	}
}

// TestPlantedMistakeIsNamed plants the level 2 boundary slip into a copy
// of the reference: the queue drops a print with Before(cutoff) instead of
// !After(cutoff). The grader must name the inclusive-boundary mistake; a
// mistake the table does not know gets no name; both at once, the right
// one or none.
func TestPlantedMistakeIsNamed(t *testing.T) {
	bin := needLadder(t)
	const (
		file    = "logger.go"
		slip    = "for l.n > 0 && !l.queue[l.head].at.After(cutoff) {"
		slipped = "for l.n > 0 && l.queue[l.head].at.Before(cutoff) {"
		// Unknown: the empty message is never refused.
		body    = "\tl.forget(now)\n\t// Every message"
		unknown = "\tif message == \"\" {\n\t\treturn true\n\t}\n\tl.forget(now)\n\t// Every message"
		named   = "This is how a known mistake fails: inclusive boundary: still refuses at exactly one interval."
	)
	for _, tc := range []struct {
		what  string
		edits []string
		want  string // "" for no name at all
	}{
		{"the boundary slip", []string{slip, slipped}, named},
		{"a mistake the table does not know", []string{body, unknown}, ""},
		{"both", []string{slip, slipped, body, unknown}, named},
	} {
		t.Run(tc.what, func(t *testing.T) {
			dir := copyRepo(t, "ladder/02-logger-limiter")
			useReference(t, dir, "02-logger-limiter")
			edit(t, filepath.Join(dir, "ladder", "02-logger-limiter", file), tc.edits...)
			out, code := runIn(t, dir, bin, "test", "2")
			if code == 0 {
				t.Fatalf("ladder test 2 passes with the mistake planted:\n%s", out)
			}
			switch {
			case tc.want == "" && strings.Contains(out, "known mistake"):
				t.Errorf("ladder test 2 names a mistake for one the table does not know:\n%s", out)
			case tc.want != "" && !strings.Contains(out, "\n  "+tc.want):
				t.Errorf("ladder test 2 does not say %q:\n%s", tc.want, out)
			}
		})
	}
}

// TestPlantedRedisMistakeIsNamed plants a mistake of the Redis spec's table
// into a copy of level 8's references: the script stores its keys without
// a TTL. The grader must name "keys without a TTL" under part 7's first
// failing case, from the table of the level's second module.
func TestPlantedRedisMistakeIsNamed(t *testing.T) {
	bin := needLadder(t)
	dir := copyRepo(t, "ladder/08-group-throttle")
	useReference(t, dir, "08-group-throttle")
	ref := filepath.Join(repoRoot(t), "solutions", "08-group-throttle", "redisthrottle")
	form := filepath.Join(dir, "ladder", "08-group-throttle", "redisthrottle")
	for _, f := range []string{"redisthrottle.go", "decide.lua"} {
		copyTree(t, filepath.Join(ref, f), filepath.Join(form, f))
	}
	src, err := os.ReadFile(filepath.Join(form, "redisthrottle.go"))
	if err == nil {
		err = os.WriteFile(filepath.Join(form, "redisthrottle.go"), []byte(asLearners(t, string(src))), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(form, "decide.lua"),
		"redis.call('SET', key, value, 'PX', max(minttl, ceildiv(ns, 1000000) + 1))", "redis.call('SET', key, value)")
	out, code := runIn(t, dir, bin, "test", "--part", "7", "8")
	if code == 0 {
		t.Fatalf("ladder test --part 7 8 passes with the mistake planted:\n%s", out)
	}
	if want := "\n  This is how a known mistake fails: keys without a TTL."; !strings.Contains(out, want) {
		t.Errorf("ladder test --part 7 8 does not say %q:\n%s", want, out)
	}
}

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
	col := slices.Index(rows[0], "known_mistakes")
	var got []string
	for _, row := range rows {
		got = append(got, row[0]+"="+row[col])
	}
	if diff := cmp.Diff([]string{"student=known_mistakes", "alice=L2.1 inclusive boundary", "bob=L2.1 inclusive boundary",
		"carol=L2.1 inclusive boundary", "dave="}, got); diff != "" {
		t.Errorf("writeClassCSV's student and known_mistakes columns (-want +got):\n%s", diff)
	}

	// A name with a "|" keeps the list one item.
	var odd bytes.Buffer
	instructor.WriteMarkdown(&odd, []instructor.Result{{Name: "b|o*b", Levels: slip}})
	if want := "- level 2 part 1 \"inclusive boundary\": 1 student (b\\|o\\*b)\n"; !strings.HasSuffix(odd.String(), want) {
		t.Errorf("writeClassMistakes does not escape the name:\n%s\nwant it to end with\n%s", odd.String(), want)
	}

	var none bytes.Buffer
	instructor.WriteMarkdown(&none, results[3:])
	if strings.Contains(none.String(), "Known mistakes") {
		t.Errorf("writeClassMarkdown lists known mistakes when no student made one:\n%s", none.String())
	}
}

// TestInterviewOffersTheKnownMistakeAsAHint: in an interview, code that
// fails the way the inclusive-boundary mistake does is not told so under
// its first failing case. The status line offers it, make hint-2 names it
// and counts it as one hint, the next make hint-2 is HINTS.md's first, and
// a run that fails the same way again offers nothing more.
func TestInterviewOffersTheKnownMistakeAsAHint(t *testing.T) {
	root, l, fails := boundarySlip(t)

	var out bytes.Buffer
	c := fakeInterview(t, "2", &out)
	c.clock.Set(time.Now()) // make hint-2 reads the record on the system clock
	c.iv.Grade = func(upTo int) (grade.Level, error) {
		if upTo == 0 {
			return c.grader.grade(0) // the fresh stub
		}
		return learnerFailing(t, root, l, 1, fails), nil
	}
	hint := func() string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, runAt(c.iv.Root, []string{"hint", "2"}, &stdout, &stderr), stderr.String())
		return stdout.String()
	}
	offer := " · a known mistake matches your failure: make hint-2 names it]"
	step := 0
	c.iv.BeforeWait = func() {
		step++
		switch step {
		case 1:
			c.save(t, time.Minute)
		case 2:
			require.True(t, strings.HasSuffix(lastLine(&out), offer), "the status line does not offer the mistake:\n%s", out.String())
			require.NotContains(t, out.String(), "This is how a known mistake fails", "the run names the mistake in an interview")
			named := hint()
			want := "Level 2, part 1: the known mistake your failing cases match\n\nThis is how a known mistake fails: " + inclusive + "."
			require.True(t, strings.HasPrefix(named, want), "make hint-2 says:\n%s\nwant it to start:\n%s", named, want)
			require.Contains(t, named, "this hint counts in its summary")
			require.True(t, strings.HasPrefix(hint(), "Level 2, part 1, hint 1 of "), "the hint after the named mistake is not HINTS.md's first")
			c.save(t, time.Minute)
		case 3:
			require.False(t, strings.HasSuffix(lastLine(&out), offer), "a mistake already named is offered again: %s", lastLine(&out))
			c.interrupt <- os.Interrupt
		default:
			t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
		}
	}
	sum, err := runInterview(c.iv)
	require.NoError(t, err)
	require.Equal(t, 2, sum.Parts[0].Hints, "hints of part 1")
	require.Equal(t, 2, sum.Hints)
	require.Equal(t, 1, sum.MistakesNamed)
	require.Contains(t, out.String(), "Hints asked for (make hint-2 during the interview): 2, 1 of them naming a known mistake.\n")
	requireConsistent(t, sum)
	checkKept(t, c.iv.Root, sum)
}

// TestStateCountsANamedMistakeBesideTheHints: a part's every hint and a
// named mistake is a record the ladder writes; counts out of range are no
// error and no panic, and an offer of a part the level lacks is dropped.
func TestStateCountsANamedMistakeBesideTheHints(t *testing.T) {
	dir, l := fixtureLadder(t)
	hints, err := interview.ReadHints(dir, l)
	require.NoError(t, err)
	all := len(interview.WithGuidance(dir, l, hints[0]).Hints)
	run := func(hints, named int, offer int) *interview.Record {
		r := &interview.Record{Level: 1, Part: 1, Until: time.Now().Add(time.Hour), PID: os.Getpid(),
			Hints: map[string]int{"1": hints}, Named: map[string]int{"1": named}}
		if offer != 0 {
			r.Offer = &interview.MistakeOffer{Part: offer, Line: "This is how a known mistake fails: x."}
		}
		return r
	}
	require.NoError(t, interview.Save(dir, interview.State{Interview: run(all+1, 1, 1)}))
	s, err := interview.Load(dir)
	require.NoError(t, err, "every hint and one named mistake")
	require.Equal(t, all+1, s.Interview.Hints["1"])
	for what, r := range map[string]*interview.Record{
		"more named than hints":  run(1, 2, 0),
		"a hint too many":        run(all+2, 1, 0),
		"an offer of no part":    run(1, 0, 9),
		"a negative named count": run(1, -1, 0),
	} {
		require.NoError(t, interview.Save(dir, interview.State{Interview: r}))
		s, err := interview.Load(dir)
		require.NoError(t, err, what)
		require.Nil(t, s.Interview.Offer, "%s: an offer of no part is dropped", what)
		if out, code := runLadder(t, dir, "hint", "1"); code != 0 {
			t.Errorf("%s: ladder hint 1 = exit %d:\n%s", what, code, out)
		}
	}
}
