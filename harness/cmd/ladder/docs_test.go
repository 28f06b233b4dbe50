package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// Every command a README shows in a code block either runs here, on a
// temporary copy of the repository, and must run at least one test or do
// what it says; or it is one that a named test of the repository checks
// (a long run such as make test, a browser, a server), and that test must
// exist. A command this file does not know fails the test, so a README
// cannot show a command nobody checks.
//
// CONTRIBUTING.md is checked the same way, at the end of this file: its
// walk-through is followed to the letter.

// docCommand is one command found in a README's code block.
type docCommand struct {
	file string
	line int
	text string // without a leading "$ " and without a trailing "# comment"
	// output is what a transcript shows after "$ command", up to the next
	// "$ " or the end of the block; nil when the block shows no output.
	output []string
	// scenario names the state of the ladder the block's commands run in,
	// from a "<!-- transcript: NAME -->" line before the block; "" is a
	// fresh clone.
	scenario string
}

// transcriptRE marks a code block whose commands run in a scenario.
var transcriptRE = regexp.MustCompile(`^<!-- transcript: (\S+) -->$`)

// scenarios prepare a copy of the repository for the README blocks that
// name them.
var scenarios = map[string]func(t *testing.T, dir string){
	// The README's learner's session: level 1 done, and a level 2 that
	// gives right answers but remembers every message it ever printed.
	"learner-session": func(t *testing.T, dir string) {
		useReference(t, dir, "01-hit-counter")
		addFile(t, dir, "ladder/02-logger-limiter/logger.go", answer(t, "02-remembers-everything.go"))
	},
}

// checkedElsewhere maps commands, by a regexp, to the tests that check
// what they do.
var checkedElsewhere = []struct {
	re    *regexp.Regexp
	tests []string
}{
	{regexp.MustCompile(`^make test$`), []string{"TestStudentCopyPassesItsOwnMakeTest"}},
	{regexp.MustCompile(`^make test-(e2e|bench)$`), nil}, // .ci/run runs them
	{regexp.MustCompile(`^make check$`), nil},            // gofmt, vet and staticcheck: CI's .ci/run
	{regexp.MustCompile(`^make (help)?$`), []string{"TestMakeHelpPrintsTheUsageText", "TestMakeHelpListsTheTargets"}},
	{regexp.MustCompile(`^make test-redis$`), nil}, // .ci/run runs it
	{regexp.MustCompile(`^make test-plots$`), nil}, // .ci/run runs it
	{regexp.MustCompile(`^make peers(-quick|-redis)?$`), nil},
	{regexp.MustCompile(`^make watch-level-\d$`), []string{"TestPollingNoticesAChange", "TestWatchStartsWithExactlyOneRun"}},
	{regexp.MustCompile(`^make fuzz-level-\d( FUZZTIME=\S+)?$`), []string{"TestFuzzAndBenchRunOnACopy"}},
	{regexp.MustCompile(`^make bench-level-\d$`), []string{"TestFuzzAndBenchRunOnACopy"}},
	{regexp.MustCompile(`^make reset-level-\d( FORCE=1)?$`), []string{"TestResetRestoresTheStubAfterACommit", "TestResetMovesUntrackedFilesIntoTheBackup"}},
	{regexp.MustCompile(`^make plot-level-\d( REF=1)?$`), []string{"TestRenderWritesSVGs", "TestStubPointsToTheReference", "TestReferencePicturesInChromium"}},
	{regexp.MustCompile(`^make student-copy DEST=\S+$`), []string{"TestStudentCopyPassesItsOwnMakeTest"}},
	{regexp.MustCompile(`^make class-report DIRS=.+$`), []string{"TestClassReport"}},
	{regexp.MustCompile(`^make classroom( FORCE=1)?$`), []string{"TestMakeClassroomPinsTheInstructor", "TestClassroomRefusesToWriteOverAFile"}},
	{regexp.MustCompile(`^go run \./harness/cmd/ladder class-report `), []string{"TestClassReport"}},
	{regexp.MustCompile(`^go run \./harness/cmd/ladder watch \d$`), []string{"TestPollingNoticesAChange", "TestWatchStartsWithExactlyOneRun"}},
	{regexp.MustCompile(`^go run \./harness/cmd/ladder (fuzz( --time \S+)?|bench) \d$`), []string{"TestFuzzAndBenchRunOnACopy"}},
	{regexp.MustCompile(`^go run \./harness/cmd/ladder reset \d$`), []string{"TestResetRestoresTheStubAfterACommit", "TestResetMovesUntrackedFilesIntoTheBackup"}},
	{regexp.MustCompile(`^go run \./harness/cmd/ladder interview \d$`), []string{"TestInterview"}},
	{regexp.MustCompile(`^go run \./harness/cmd/ladder debrief \d$`), []string{"TestDebrief"}},
	{regexp.MustCompile(`^make interview-level-\d( TIME=\S+)?$`), []string{"TestInterview"}},
	{regexp.MustCompile(`^make debrief-level-\d$`), []string{"TestDebrief"}},
}

// runHere are the commands this test runs, with what their output must show.
var runHere = []struct {
	re    *regexp.Regexp
	check func(m []string, out string) error
}{
	{regexp.MustCompile(`^(?:make test-level-(\d)(?: PART=(\d))?(?: ALL=1)?|go run \./harness/cmd/ladder test(?: --part (\d))?(?: --all)? (\d))$`), func(m []string, out string) error {
		if m[1] == "" { // the go run form: its level and part come last
			m = []string{m[0], m[4], m[3]}
		}
		if strings.Contains(out, "no case of part") || !strings.Contains(out, "level "+m[1]+": part") {
			return fmt.Errorf("it ran no case")
		}
		if m[2] != "" && !regexp.MustCompile(`(?m)^part `+m[2]+`, .*(of [1-9]\d* cases? (pass|passes|reported)|done \([1-9])`).MatchString(out) {
			return fmt.Errorf("it ran no case of part %s", m[2])
		}
		return nil
	}},
	{regexp.MustCompile(`^(make progress|go run \./harness/cmd/ladder progress)$`), func(m []string, out string) error {
		if !strings.Contains(out, "rateladder: your progress") || !strings.Contains(out, "parts done") {
			return fmt.Errorf("it printed no ladder")
		}
		return nil
	}},
	{regexp.MustCompile(`^(?:make hints?-|go run \./harness/cmd/ladder hints? )(\d)$`), func(m []string, out string) error {
		if !regexp.MustCompile(`Level `+m[1]+`, part \d+, hint`).MatchString(out) && !strings.Contains(out, "hint on level "+m[1]) {
			return fmt.Errorf("it showed no hint")
		}
		return nil
	}},
	{regexp.MustCompile(`^go run \./harness/cmd/ladder help$`), func(m []string, out string) error {
		if !strings.Contains(out, "usage: go run ./harness/cmd/ladder <command>") || !strings.Contains(out, commands[0].what) {
			return fmt.Errorf("it printed no usage text")
		}
		return nil
	}},
	{regexp.MustCompile(`^go test( -race)? \./ladder/\S+$`), nil}, // checked with -json: at least one test ran
}

// readmeCommands finds the commands in the code blocks of every Markdown
// file git tracks.
func readmeCommands(t *testing.T, root string) []docCommand {
	t.Helper()
	files, err := gitFiles(root, "*.md")
	if err != nil {
		t.Skip("no git history here")
	}
	var cmds []docCommand
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		inCode := false
		scenario, lastLine := "", ""
		var transcript *docCommand // the "$ command" whose output is being read
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for n := 1; sc.Scan(); n++ {
			raw := strings.TrimRight(sc.Text(), " ")
			line := strings.TrimSpace(raw)
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
				transcript = nil
				scenario = ""
				if m := transcriptRE.FindStringSubmatch(lastLine); inCode && m != nil {
					scenario = m[1]
				}
				continue
			}
			if !inCode {
				if line != "" {
					lastLine = line
				}
				continue
			}
			if transcript != nil && !strings.HasPrefix(line, "$ ") {
				transcript.output = append(transcript.output, raw)
				continue
			}
			isTranscript := strings.HasPrefix(line, "$ ")
			text := strings.TrimPrefix(line, "$ ")
			if i := strings.Index(text, " #"); i >= 0 {
				text = text[:i]
			}
			text = strings.TrimSpace(text)
			if text == "make" || strings.HasPrefix(text, "make ") || strings.HasPrefix(text, "go test") || strings.HasPrefix(text, "go run ./harness") {
				cmds = append(cmds, docCommand{file: f, line: n, text: text, scenario: scenario})
				if isTranscript {
					transcript = &cmds[len(cmds)-1]
					transcript.output = []string{}
				}
			}
		}
	}
	return cmds
}

func TestEveryREADMECommandIsChecked(t *testing.T) {
	slow(t, "runs the commands the READMEs show")
	root := repoRoot(t)
	cmds := readmeCommands(t, root)
	require.NotEmpty(t, cmds)
	bin, err := ladderBin()
	require.NoError(t, err)
	dirs := map[string]string{"": copyRepo(t, "ladder")}
	for _, c := range cmds {
		if c.file == "CONTRIBUTING.md" {
			continue
		}
		if _, ok := dirs[c.scenario]; ok {
			continue
		}
		prepare, ok := scenarios[c.scenario]
		if !ok {
			t.Errorf("%s:%d: no scenario %q in docs_test.go", c.file, c.line, c.scenario)
			continue
		}
		dirs[c.scenario] = copyRepo(t, "ladder", "solutions/01-hit-counter")
		prepare(t, dirs[c.scenario])
	}

	testNames := repoTestNames(t, root)
	type result struct {
		out  string
		code int
	}
	var mu sync.Mutex
	ran := map[string]result{} // each distinct command of a scenario runs once
	sem := make(chan struct{}, 2)
	var hintMu sync.Mutex // hints change the state: they run one at a time, in order
	var wg sync.WaitGroup
	for _, c := range cmds {
		c := c
		if c.file == "CONTRIBUTING.md" {
			// The walkthrough's commands run on the level it builds.
			if !testNames["TestContributingWalkthrough"] {
				t.Errorf("%s:%d: %q is checked by TestContributingWalkthrough, which does not exist", c.file, c.line, c.text)
			}
			continue
		}
		dir, ok := dirs[c.scenario]
		if !ok {
			continue
		}
		known := false
		for _, e := range checkedElsewhere {
			if e.re.MatchString(c.text) {
				known = true
				for _, name := range e.tests {
					if !hasPrefix(testNames, name) {
						t.Errorf("%s:%d: %q is checked by %s, and no test has that name", c.file, c.line, c.text, name)
					}
				}
			}
		}
		for _, r := range runHere {
			m := r.re.FindStringSubmatch(c.text)
			if m == nil {
				continue
			}
			known = true
			key := c.scenario + "\x00" + c.text
			run := func() result {
				mu.Lock()
				res, done := ran[key]
				mu.Unlock()
				if !done {
					res.out, res.code = runDocCommand(t, dir, bin, c.text)
					mu.Lock()
					ran[key] = res
					mu.Unlock()
				}
				return res
			}
			if strings.HasPrefix(c.text, "make hint") || strings.HasPrefix(c.text, "go run ./harness/cmd/ladder hint") {
				// Run now, in the order the READMEs show them; the check
				// below then finds the result ready.
				hintMu.Lock()
				run()
				hintMu.Unlock()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				res := run()
				if c.output != nil {
					if diff := transcriptDiff(c.output, res.out); diff != "" {
						t.Errorf("%s:%d: the output shown for %q is not what it prints on a fresh clone:\n%s", c.file, c.line, c.text, diff)
					}
				}
				if r.check == nil {
					if err := atLeastOneTest(res.out); err != nil {
						t.Errorf("%s:%d: %q: %v:\n%s", c.file, c.line, c.text, err, grade.FirstLines(res.out, 20))
					}
					return
				}
				if err := r.check(m, res.out); err != nil {
					t.Errorf("%s:%d: %q: %v:\n%s", c.file, c.line, c.text, err, grade.FirstLines(res.out, 30))
				}
			}()
		}
		if !known {
			t.Errorf("%s:%d: the README shows %q, which no test runs or checks: add it to docs_test.go", c.file, c.line, c.text)
		}
	}
	wg.Wait()
}

// transcriptDiff compares a README's transcript with real output. A line
// "..." in the transcript stands for any number of lines; indentation is
// the README's own (a transcript may sit in a list item).
func transcriptDiff(want []string, got string) string {
	indent := -1
	for _, w := range want {
		if strings.TrimSpace(w) != "" {
			n := len(w) - len(strings.TrimLeft(w, " "))
			if indent < 0 || n < indent {
				indent = n
			}
		}
	}
	for i, w := range want {
		if len(w) >= indent && indent > 0 {
			want[i] = w[indent:]
		}
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
		if !strings.HasPrefix(l, "make: ***") {
			lines = append(lines, strings.TrimRight(l, " "))
		}
	}
	wi, gi := 0, 0
	for wi < len(want) {
		if strings.TrimSpace(want[wi]) == "..." {
			wi++
			if wi == len(want) {
				return ""
			}
			for gi < len(lines) && lines[gi] != want[wi] {
				gi++
			}
			continue
		}
		if gi >= len(lines) || lines[gi] != want[wi] {
			g := "(end of output)"
			if gi < len(lines) {
				g = lines[gi]
			}
			return fmt.Sprintf("README line %d:\n  want %q\n  got  %q\nwhole output:\n%s", wi+1, want[wi], g, strings.Join(lines, "\n"))
		}
		wi++
		gi++
	}
	if gi < len(lines) {
		return fmt.Sprintf("the output goes on after the README's last line:\n%s", strings.Join(lines[gi:], "\n"))
	}
	return ""
}

// runDocCommand runs a README's command in the copy: make with the ladder
// command already built, go test with -json so that its tests can be
// counted.
func runDocCommand(t *testing.T, dir, bin, text string) (string, int) {
	args := strings.Fields(text)
	switch args[0] {
	case "make":
		return runIn(t, dir, "make", append(args[1:], "LADDER="+bin)...)
	case "go":
		if args[1] == "run" { // the ladder command, as a learner without make runs it
			return runIn(t, dir, grade.GoTool(), args[1:]...)
		}
		return runIn(t, dir, grade.GoTool(), append([]string{"test", "-json"}, args[2:]...)...)
	}
	return "", 0
}

// atLeastOneTest reads go test -json output and fails if no test ran.
func atLeastOneTest(out string) error {
	n := 0
	for _, line := range strings.Split(out, "\n") {
		var e grade.Event
		if json.Unmarshal([]byte(line), &e) == nil && e.Action == "run" && e.Test != "" {
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("it ran no test")
	}
	return nil
}

func hasPrefix(names map[string]bool, prefix string) bool {
	for n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// repoTestNames collects the names of every Test function in the
// repository's _test.go files.
func repoTestNames(t *testing.T, root string) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func (Test\w*)\(`)
	names := map[string]bool{}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, _ := os.ReadFile(path)
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			names[m[1]] = true
		}
		return nil
	})
	return names
}

// TestREADMEGivesTheNoMakeFormOfEachLearnerCommand checks the README's
// block of go run commands against the usage text: each learner's command
// that has a make target is there, and the make target in each line's
// comment is the one the usage text pairs with it, on the same level.
func TestREADMEGivesTheNoMakeFormOfEachLearnerCommand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	require.NoError(t, err)
	lineRE := regexp.MustCompile(`(?m)^go run \./harness/cmd/ladder (\S+)(.*?) (\d+) +# (make .*)$`)
	shown := map[string]bool{}
	for _, m := range lineRE.FindAllStringSubmatch(string(data), -1) {
		name, level, makeForm := m[1], m[3], m[4]
		shown[name] = true
		c, ok := learnerCommand(name)
		if !ok {
			t.Errorf("README: %q is no learner's command of the usage text", m[0])
			continue
		}
		if !makePattern(c.make).MatchString(makeForm) {
			t.Errorf("README: %q pairs %s with %q; the usage text pairs it with %q", m[0], name, makeForm, c.make)
		}
		if !regexp.MustCompile(`\D` + level + `(\D|$)`).MatchString(makeForm) {
			t.Errorf("README: %q runs level %s one way and not the other", m[0], level)
		}
	}
	for _, c := range learnerCommands() {
		if name, _, _ := strings.Cut(c.ladder, " "); name != "" && name != "progress" && !shown[name] {
			t.Errorf("the README's quick start does not give the go run form of make %s (ladder %s)", c.make, c.ladder)
		}
	}
	if !strings.Contains(string(data), "go run ./harness/cmd/ladder progress           # make progress") {
		t.Errorf("the README's quick start does not give the go run form of make progress")
	}
}

// learnerCommands are the usage text's first section: the learner's.
func learnerCommands() []command {
	end := slices.IndexFunc(commands[1:], func(c command) bool { return c.ladder == "" && c.make == "" })
	return commands[1 : end+1]
}

// learnerCommand finds a learner's command of the usage text by name.
func learnerCommand(name string) (command, bool) {
	for _, c := range learnerCommands() {
		if first, _, _ := strings.Cut(c.ladder, " "); first == name {
			return c, true
		}
	}
	return command{}, false
}

// makePattern matches the make commands a usage line allows: "make
// test-level-N [PART=K]" matches make test-level-3 and make test-level-3
// PART=2.
func makePattern(usage string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, f := range strings.Fields(usage) {
		optional := strings.HasPrefix(f, "[")
		f = strings.Trim(f, "[]")
		word := regexp.QuoteMeta(f)
		if name, _, ok := strings.Cut(f, "="); ok {
			word = regexp.QuoteMeta(name) + `=\S+`
		} else {
			word = strings.ReplaceAll(word, "N", `\d+`)
		}
		if optional {
			b.WriteString("(?: " + word + ")?")
		} else if b.Len() > 1 {
			b.WriteString(" " + word)
		} else {
			b.WriteString(word)
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// TestContributingWalkthrough follows CONTRIBUTING.md to the letter: it
// writes every file the page shows into a copy of the repository, adds the
// registry entry it shows, and checks that the new level works with every
// tool, first as a stub and then with its reference in place.
func TestContributingWalkthrough(t *testing.T) {
	slow(t, "builds a throwaway level in a copy of the repository")
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	require.NoError(t, err)
	dir := copyRepo(t, "ladder", "harness")

	files, registry := contributingBlocks(t, string(doc))
	require.NotEmpty(t, files, "CONTRIBUTING.md shows no file")
	for path, text := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755))
		addFile(t, dir, path, text)
	}
	levelsGo := filepath.Join(dir, "harness/levels/levels.go")
	data, err := os.ReadFile(levelsGo)
	require.NoError(t, err)
	src := string(data)
	start := strings.Index(src, "var All = []Level{")
	require.GreaterOrEqual(t, start, 0, "harness/levels/levels.go has no var All")
	end := start + strings.Index(src[start:], "\n}\n")
	src = src[:end+1] + registry + src[end+1:]
	require.NoError(t, os.WriteFile(levelsGo, []byte(src), 0o644))

	// The stub: every case waits for a method.
	out, code := runIn(t, dir, "make", "test-level-9")
	if code == 0 || !strings.Contains(out, "not implemented yet: New (ladder/09-last-call/lastcall.go:") || !strings.Contains(out, "0 of 4 cases pass") {
		t.Fatalf("make test-level-9 on the stub = exit %d, want all 4 cases, probes too, not implemented:\n%s", code, out)
	}
	// The repository's own checks of a level: registry, guide, spec, stub check.
	out, code = runIn(t, dir, grade.GoTool(), "test", "./harness/levels/", "./harness/internal/guide/", "./ladder/09-last-call/spec/", "./solutions/09-last-call/")
	if code != 0 {
		t.Fatalf("the new level's own tests fail:\n%s", out)
	}
	// The learner finishes the level.
	ref, err := os.ReadFile(filepath.Join(dir, "solutions/09-last-call/lastcall.go"))
	require.NoError(t, err)
	addFile(t, dir, "ladder/09-last-call/lastcall.go", string(ref))
	out, code = runIn(t, dir, "make", "test-level-9")
	if code != 0 || !strings.Contains(out, "Level 9 is done.") {
		t.Fatalf("make test-level-9 with the reference = exit %d, want done:\n%s", code, out)
	}
	// Its fuzz target and its benchmark, as section 9 runs them.
	out, code = runIn(t, dir, "make", "fuzz-level-9", "FUZZTIME=1s")
	if code != 0 || !strings.Contains(out, "fuzzing FuzzLastCall") || !strings.Contains(out, "The fuzzer found nothing wrong") {
		t.Fatalf("make fuzz-level-9 with the reference = exit %d, want a clean run of FuzzLastCall:\n%s", code, out)
	}
	out, code = runIn(t, dir, "make", "bench-level-9")
	if code != 0 || !strings.Contains(out, "LastCall") || !strings.Contains(out, "sec/op") {
		t.Fatalf("make bench-level-9 = exit %d, want both sides of BenchmarkLastCall in a benchstat table:\n%s", code, out)
	}
	out, code = runIn(t, dir, "make", "progress")
	if code != 0 || !regexp.MustCompile(`9\s+Last call\s+1/1\s+done`).MatchString(out) {
		t.Fatalf("make progress = exit %d, want level 9 done:\n%s", code, out)
	}
	addAPart(t, dir)
}

// addAPart follows CONTRIBUTING.md's list for a new part of an existing
// level: it gives the walkthrough's level 9 a part 2, "A month-long
// window", which the reference already passes, file by file in the list's
// order, and checks that the level's own tests and the tools take it.
func addAPart(t *testing.T, dir string) {
	t.Helper()
	const title = "A month-long window"
	level := filepath.Join(dir, "ladder/09-last-call")
	// 1. The registry.
	edit(t, filepath.Join(dir, "harness/levels/levels.go"), `{Number: 1, Title: "Seen in the last window"},`,
		`{Number: 1, Title: "Seen in the last window"}, {Number: 2, Title: "`+title+`"},`)
	// 2. to 4. The README, the hints and the interviewer's guide.
	appendTo := func(path, text string) {
		f, err := os.OpenFile(filepath.Join(level, path), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString(text)
		require.NoError(t, errors.Join(err, f.Close()))
	}
	appendTo("README.md", "\n## Part 2: "+title+"\n\nA window may be 30 days long.\n\n<!-- guidance -->\n\nA `time.Duration` holds 292 years.\n\n<!-- /guidance -->\n")
	appendTo("HINTS.md", "\n## Part 2: "+title+"\n\n### Hint 1\n\nHow long a window does your type hold?\n")
	edit(t, filepath.Join(level, "INTERVIEWER.md"),
		"**In scope, 20 minutes:** part 1.", "**In scope, 20 minutes:** parts 1 and 2.",
		"\n## Hint script", "\n### Part 2: "+title+"\n\nAsk for a 30-day window.\n\n## Hint script",
		"\n## Approaches", "\n### Part 2: "+title+"\n\n1. \"How long a window?\"\n2. 30 days.\n3. A `time.Duration`.\n\n## Approaches",
		"(mutant: \"inclusive boundary: still recent at exactly one window\")", "(mutant: \"inclusive boundary: still recent at exactly one window\")\n- Caps the window at a day. (mutant: \"window capped at a day\")")
	// 5. and 6. The case, and a mutant that only it catches.
	edit(t, filepath.Join(level, "spec/spec.go"), "Probe: noAllocations},\n}", `Probe: noAllocations},
	{
		Name: "a call is recent for 30 days", Part: 2, Arg: 30 * 24 * time.Hour,
		Steps: []step{at(0, call()), at(30*24*time.Hour-ns, recent(true)), at(30*24*time.Hour, recent(false))},
	},
}`)
	appendTo("spec/mutants_test.go", `
func TestSpecCatchesACappedWindow(t *testing.T) {
	capped := func(w time.Duration) Tracker { return newLast(false)(min(w, 24*time.Hour)) }
	mutation.Caught(t, "window capped at a day", 2, cases(capped))
}
`)
	// 7. The list of cases, written again.
	cmd := exec.Command(grade.GoTool(), "test", "-run", "TestManifestListsEveryCase", ".")
	cmd.Dir, cmd.Env = filepath.Join(level, "spec"), append(grade.LearnerEnv(), "LADDER_UPDATE_MANIFEST=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	// 8. The reference needs nothing new. Then the checks.
	out2, code := runIn(t, dir, grade.GoTool(), "test", "./harness/levels/", "./harness/internal/guide/", "./ladder/09-last-call/spec/", "./solutions/09-last-call/")
	if code != 0 {
		t.Fatalf("with a part 2, the level's own tests fail:\n%s", out2)
	}
	out2, code = runIn(t, dir, "make", "test-level-9")
	if code != 0 || !strings.Contains(out2, "Level 9 is done.") || !strings.Contains(out2, "a month-long window") {
		t.Fatalf("make test-level-9 with the reference and a part 2 = exit %d, want done:\n%s", code, out2)
	}
	out2, code = runIn(t, dir, "make", "progress")
	if code != 0 || !regexp.MustCompile(`9\s+Last call\s+2/2\s+done`).MatchString(out2) {
		t.Fatalf("make progress with a part 2 = exit %d, want level 9 done, 2/2:\n%s", code, out2)
	}
}

// contributingBlocks returns the files CONTRIBUTING.md shows, each after
// a "<!-- file: PATH -->" line, and the registry entry, after "<!-- registry -->".
func contributingBlocks(t *testing.T, doc string) (map[string]string, string) {
	t.Helper()
	files := map[string]string{}
	registry := ""
	marker := ""
	var block []string
	inCode := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case !inCode && strings.HasPrefix(line, "```"):
			inCode, block = true, nil
		case inCode && line == "```":
			inCode = false
			text := strings.Join(block, "\n") + "\n"
			switch {
			case strings.HasPrefix(marker, "<!-- file: "):
				files[strings.TrimSuffix(strings.TrimPrefix(marker, "<!-- file: "), " -->")] = text
			case marker == "<!-- registry -->":
				registry = text
			}
			marker = ""
		case inCode:
			block = append(block, line)
		case strings.HasPrefix(line, "<!-- "):
			marker = line
		case strings.TrimSpace(line) != "":
			marker = ""
		}
	}
	require.NotEmpty(t, registry, "CONTRIBUTING.md shows no registry entry")
	return files, registry
}
