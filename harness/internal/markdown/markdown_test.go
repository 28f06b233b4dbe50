package markdown

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outline is what a test compares of a split: each section as its heading,
// its line, and its body.
type outline struct {
	Heading string
	Line    int
	Body    string
}

func outlineOf(sections []Section) []outline {
	var out []outline
	for _, s := range sections {
		out = append(out, outline{s.Heading, s.Line, s.Body()})
	}
	return out
}

func TestSplitCutsAtHeadingsOutsideFences(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		depth int
		want  []outline
	}{{
		name:  "intro and two sections",
		src:   "# Title\n\nIntro.\n\n## Part 1: A\n\nOne.\n\n## Part 2: B\nTwo.\n",
		depth: 2,
		want:  []outline{{"", 0, "# Title\n\nIntro."}, {"Part 1: A", 5, "One."}, {"Part 2: B", 9, "Two."}},
	}, {
		name:  "a heading in a backtick fence is text",
		src:   "## A\n```markdown\n## Not a heading\n```\n## B\n",
		depth: 2,
		want:  []outline{{"", 0, ""}, {"A", 1, "```markdown\n## Not a heading\n```"}, {"B", 5, ""}},
	}, {
		name:  "a tilde fence, indented",
		src:   "## A\n  ~~~\n## Not a heading\n  ~~~\n",
		depth: 2,
		want:  []outline{{"", 0, ""}, {"A", 1, "~~~\n## Not a heading\n  ~~~"}},
	}, {
		name:  "a shorter fence inside a longer one does not close it",
		src:   "````markdown\n```go\n## Not a heading\n```\n````\n## A\n",
		depth: 2,
		want:  []outline{{"", 0, "````markdown\n```go\n## Not a heading\n```\n````"}, {"A", 6, ""}},
	}, {
		name:  "a fence line with an info string does not close",
		src:   "```\n```go\n## Not a heading\n```\n## A\n",
		depth: 2,
		want:  []outline{{"", 0, "```\n```go\n## Not a heading\n```"}, {"A", 5, ""}},
	}, {
		name:  "four spaces of indent is code, not a fence",
		src:   "    ```\n## A\n",
		depth: 2,
		want:  []outline{{"", 0, "```"}, {"A", 2, ""}},
	}, {
		name:  "other depths stay in the section",
		src:   "## A\n### Hint 1\nx\n# Top\n",
		depth: 2,
		want:  []outline{{"", 0, ""}, {"A", 1, "### Hint 1\nx\n# Top"}},
	}, {
		name:  "depth 3",
		src:   "## A\n### Hint 1\nx\n### Hint 2\ny",
		depth: 3,
		want:  []outline{{"", 0, "## A"}, {"Hint 1", 2, "x"}, {"Hint 2", 4, "y"}},
	}, {
		name:  "a hash without a space is no heading",
		src:   "##A\n#### deeper\n",
		depth: 2,
		want:  []outline{{"", 0, "##A\n#### deeper"}},
	}, {
		name:  "CRLF line ends",
		src:   "## A\r\nx\r\n## B\r\n",
		depth: 2,
		want:  []outline{{"", 0, ""}, {"A", 1, "x"}, {"B", 3, ""}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := outlineOf(Split(Lines(tc.src), tc.depth))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Split(%q, %d) mismatch (-want +got):\n%s", tc.src, tc.depth, diff)
			}
		})
	}
}

func TestSplitCutsASectionAgain(t *testing.T) {
	parts := Split(Lines("## Part 1: A\n\n### Hint 1\n\nx\n```\n### no\n```\n### Hint 2\ny\n"), 2)
	hints := Split(parts[1].Lines, 3)
	want := []outline{{"", 0, ""}, {"Hint 1", 3, "x\n```\n### no\n```"}, {"Hint 2", 9, "y"}}
	if diff := cmp.Diff(want, outlineOf(hints)); diff != "" {
		t.Errorf("Split of a section mismatch (-want +got):\n%s", diff)
	}
}

func TestLinesMarksFences(t *testing.T) {
	var got []bool
	for _, l := range Lines("a\n```\nb\n```\nc") {
		got = append(got, l.Fenced)
	}
	if diff := cmp.Diff([]bool{false, true, true, true, false}, got); diff != "" {
		t.Errorf("Fenced by line mismatch (-want +got):\n%s", diff)
	}
	if got := Lines("```\nnever closed"); !got[1].Fenced {
		t.Errorf("a fence that is never closed runs to the end: line 2 Fenced = false")
	}
}

func TestPartHeading(t *testing.T) {
	for _, tc := range []struct {
		heading string
		n       int
		title   string
		ok      bool
	}{
		{"Part 1: Count the last window", 1, "Count the last window", true},
		{"Part  12:   Spaces around  ", 12, "Spaces around", true},
		{"Part 3:", 3, "", true},
		{"Part one: words", 0, "", false},
		{"Parts 1: no", 0, "", false},
		{"Run it", 0, "", false},
	} {
		n, title, ok := PartHeading(tc.heading)
		if n != tc.n || title != tc.title || ok != tc.ok {
			t.Errorf("PartHeading(%q) = %d, %q, %v; want %d, %q, %v", tc.heading, n, title, ok, tc.n, tc.title, tc.ok)
		}
	}
}

func TestHeadingIgnoresFencedLines(t *testing.T) {
	lines := Lines("```\n## In a fence\n```\n## Out\n")
	if _, ok := Heading(lines[1], 2); ok {
		t.Errorf("Heading(%q in a fence, 2) = true, want false", lines[1].Text)
	}
	if h, ok := Heading(lines[3], 2); !ok || h != "Out" {
		t.Errorf("Heading(%q, 2) = %q, %v; want \"Out\", true", lines[3].Text, h, ok)
	}
	if _, ok := Heading(lines[3], 1); ok {
		t.Errorf("Heading(%q, 1) = true, want false: a depth-2 heading is not depth 1", lines[3].Text)
	}
}
