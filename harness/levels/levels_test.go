package levels

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rateladder/rateladder/harness/internal/markdown"
)

var titleRE = regexp.MustCompile(`^Level\s+(\d+):\s*(.+?)$`)

// TestRegistryMatchesTheREADMEs checks each level against the headings of
// the Markdown files in its folder: "# Level N: title" in README.md, and
// "## Part N: title" wherever the level states a part. The spec's side,
// that every part has cases and no case names another part, is checked by
// the stub check (make test-stubs).
func TestRegistryMatchesTheREADMEs(t *testing.T) {
	root := filepath.Join("..", "..")
	entries, err := os.ReadDir(filepath.Join(root, "ladder"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && regexp.MustCompile(`^\d\d-`).MatchString(e.Name()) {
			dirs = append(dirs, "ladder/"+e.Name())
		}
	}
	var registered []string
	for _, l := range All {
		registered = append(registered, l.Dir)
	}
	if diff := cmp.Diff(dirs, registered); diff != "" {
		t.Errorf("level folders differ from the registry (-folders +registry):\n%s", diff)
	}
	for i, l := range All {
		if l.Number != i+1 {
			t.Errorf("level %d is at position %d: the levels are numbered 1, 2, 3... in order", l.Number, i+1)
		}
		var title string
		var parts []Part
		mds, _ := filepath.Glob(filepath.Join(root, l.Dir, "*.md"))
		more, _ := filepath.Glob(filepath.Join(root, l.Dir, "*", "*.md"))
		for _, md := range append(mds, more...) {
			if strings.HasSuffix(md, "INTERVIEWER.md") || strings.HasSuffix(md, "HINTS.md") {
				continue
			}
			tt, ps := headings(t, md)
			if filepath.Base(md) == "README.md" && filepath.Dir(md) == filepath.Join(root, l.Dir) {
				title = tt
			}
			parts = append(parts, ps...)
		}
		if title != l.Title {
			t.Errorf("level %d: README title %q, registry %q", l.Number, title, l.Title)
		}
		if diff := cmp.Diff(l.Parts, parts, cmpopts.IgnoreFields(Part{}, "Concurrent")); diff != "" {
			t.Errorf("level %d: parts differ (-registry +READMEs):\n%s", l.Number, diff)
		}
	}
}

func headings(t *testing.T, path string) (string, []Part) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var title string
	sections := markdown.Split(markdown.Lines(string(src)), 2)
	for _, l := range sections[0].Lines {
		if h, ok := markdown.Heading(l, 1); ok {
			if m := titleRE.FindStringSubmatch(h); m != nil {
				title = m[2]
			}
		}
	}
	var parts []Part
	for _, s := range sections[1:] {
		if n, title, ok := markdown.PartHeading(s.Heading); ok {
			parts = append(parts, Part{Number: n, Title: title})
		}
	}
	return title, parts
}

func TestFindGivesOneMessageForAnythingElse(t *testing.T) {
	past := strconv.Itoa(len(All) + 1)
	for _, arg := range []string{"0", past, "x", "", "-1"} {
		_, err := Find(arg)
		if err == nil || err.Error() != "there is no level "+arg+"; the levels are 1 to "+strconv.Itoa(len(All)) {
			t.Errorf("Find(%q) = %v, want the one message", arg, err)
		}
	}
	if l, err := Find("3"); err != nil || l.Title != "Token bucket" {
		t.Errorf("Find(\"3\") = %v, %v; want the token bucket", l.Title, err)
	}
}

func TestHoldsIsTheFolderAndWhatIsInIt(t *testing.T) {
	l := All[0]
	for p, want := range map[string]bool{
		l.Dir:                   true,
		l.Dir + "/spec":         true,
		l.Dir + "/hints.go":     true,
		l.Dir + "-extra/x.go":   false, // a folder whose name starts with the level's
		"solutions/" + l.Name(): false,
		"ladder":                false,
	} {
		if got := l.Holds(p); got != want {
			t.Errorf("Level %d Holds(%q) = %v, want %v", l.Number, p, got, want)
		}
	}
}
