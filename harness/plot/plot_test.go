package plot

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/plot/browser"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// The fakes below are small, plain implementations: enough to draw with,
// not references. The real ones are drawn by solutions/plot's test.

// hits is an exact hit counter that scans every hit.
type hits struct {
	window time.Duration
	at     []time.Time
}

func newHits(window time.Duration) *hits { return &hits{window: window} }

func (h *hits) Hit(now time.Time) { h.at = append(h.at, now) }

func (h *hits) Count(now time.Time) int {
	n := 0
	for _, t := range h.at {
		if t.After(now.Add(-h.window)) && !t.After(now) {
			n++
		}
	}
	return n
}

// bucket is a plain token bucket.
type bucket struct {
	capacity, rate, tokens float64
	last                   time.Time
}

func newBucket(capacity int, rate float64) *bucket {
	return &bucket{capacity: float64(capacity), rate: rate, tokens: float64(capacity), last: clock.Epoch}
}

func (b *bucket) Tokens(now time.Time) float64 {
	return math.Min(b.capacity, b.tokens+now.Sub(b.last).Seconds()*b.rate)
}

func (b *bucket) Allow(now time.Time) bool {
	b.tokens, b.last = b.Tokens(now), now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// fixed treats every limit as a per-client fixed window and ignores groups.
type fixed struct {
	c      clock.Clock
	limit  limits.Limit
	counts map[string]int
	window map[string]int64
}

func newFixed(c clock.Clock, cfg limits.Config) (*fixed, error) {
	if cfg.PerClient.Per <= 0 {
		return nil, errors.New("PerClient.Per must be positive")
	}
	return &fixed{c: c, limit: cfg.PerClient, counts: map[string]int{}, window: map[string]int64{}}, nil
}

func (f *fixed) Allow(client string) limits.Decision {
	w := f.c.Now().Sub(clock.Epoch).Nanoseconds() / f.limit.Per.Nanoseconds()
	if f.window[client] != w {
		f.window[client], f.counts[client] = w, 0
	}
	if f.counts[client] >= f.limit.Requests {
		return limits.Decision{RetryAfter: time.Nanosecond}
	}
	f.counts[client]++
	return limits.Decision{Allowed: true, Remaining: f.limit.Requests - f.counts[client]}
}

// stub is what the learner starts with.
type stub struct{}

func newStub(c clock.Clock, cfg limits.Config) (*stub, error) { panic("not implemented: New") }

func (*stub) Allow(string) limits.Decision { panic("not implemented: Throttler.Allow") }

func TestRenderWritesSVGs(t *testing.T) {
	for _, tc := range []struct {
		level Level
		files []string
	}{
		{Level1(newHits), []string{"level-1-hit-counter.svg"}},
		{Level3(newBucket), []string{"level-3-token-bucket.svg"}},
		{Level8(newFixed), []string{"level-8-algorithms.svg", "level-8-group.svg"}},
	} {
		dir := t.TempDir()
		paths, err := tc.level.Render(dir)
		if err != nil {
			t.Fatalf("level %d: Render: %v", tc.level.Number, err)
		}
		if len(paths) != len(tc.files) {
			t.Fatalf("level %d: Render wrote %q, want %q", tc.level.Number, paths, tc.files)
		}
		for i, p := range paths {
			if want := filepath.Join(dir, tc.files[i]); p != want {
				t.Errorf("level %d: path %d = %s, want %s", tc.level.Number, i, p, want)
			}
			checkSVG(t, p)
		}
	}
}

// checkSVG fails unless path is well-formed XML with an <svg> root, with
// text and many paths in it.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	elements := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
		if s, ok := tok.(xml.StartElement); ok {
			elements[s.Name.Local]++
		}
	}
	if elements["svg"] == 0 || elements["text"] < 10 || elements["path"] < 50 {
		t.Errorf("%s has %d <svg>, %d <text> and %d <path> elements, want a picture with labels", path,
			elements["svg"], elements["text"], elements["path"])
	}
}

func TestStubGivesAClearMessage(t *testing.T) {
	dir := t.TempDir()
	paths, err := Level8(newStub).Render(dir)
	var notYet *NotImplementedError
	if !errors.As(err, &notYet) {
		t.Fatalf("Render(stub) = %q, %v; want a *NotImplementedError", paths, err)
	}
	const want = "level 8 is not implemented yet: not implemented: New; plot the reference with REF=1"
	if err.Error() != want {
		t.Errorf("Render(stub) error = %q, want %q", err, want)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("Render(stub) wrote %d files, want none: a stub gets a message, not a picture", len(files))
	}
}

func TestOtherPanicsNameTheLevel(t *testing.T) {
	broken := func(time.Duration) *hits { panic("index out of range [3] with length 3") }
	_, err := Level1(broken).Render(t.TempDir())
	const want = "level 1 panicked while it was being plotted: index out of range [3] with length 3"
	if err == nil || err.Error() != want {
		t.Errorf("Render(broken) error = %v, want %q", err, want)
	}
}

func TestMainMessages(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		whose  string
		levels []Level
		args   []string
		code   int
		out    string // a line that standard output or error must hold
	}{
		{"learner's stub, no reference here", Learner, []Level{Level8(newStub)}, nil, 1,
			"level 8 is not implemented yet: not implemented: New\n"},
		{"learner's code", Learner, []Level{Level1(newHits)}, []string{"-out", dir}, 0,
			"  " + filepath.Join(dir, "level-1-hit-counter.svg") + "\n"},
		{"level without pictures", Reference, []Level{Level1(newHits), Level3(newBucket)}, []string{"-level", "2"}, 1,
			"level 2 has no pictures; the levels with pictures are 1, 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.whose, tc.levels, tc.args, &stdout, &stderr)
			both := stdout.String() + stderr.String()
			if code != tc.code || !strings.Contains(both, tc.out) {
				t.Errorf("run(%q) = %d, printed:\n%s\nwant %d and the line %q", tc.args, code, both, tc.code, tc.out)
			}
		})
	}
}

func TestStubPointsToTheReference(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "solutions", "plot"), 0o755)
	os.WriteFile(filepath.Join(root, "solutions", "plot", "go.mod"), []byte("module x\n"), 0o644)
	t.Chdir(root)
	var stdout, stderr bytes.Buffer
	code := run(Learner, []Level{Level8(newStub)}, nil, &stdout, &stderr)
	const want = "level 8 is not implemented yet: not implemented: New; plot the reference with REF=1\n"
	if code != 1 || stderr.String() != want {
		t.Errorf("run(stub) = %d, printed %q; want 1 and %q", code, stderr.String(), want)
	}
}

// TestInChromium opens the fakes' level 8 figures in headless Chromium.
// It runs under make test-plots, which installs Chromium; elsewhere it is
// skipped unless LADDER_PLOTS_BROWSER=1 demands it.
func TestInChromium(t *testing.T) {
	if _, err := browser.Chromium(); err != nil {
		if os.Getenv("LADDER_PLOTS_BROWSER") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	paths, err := Level8(newFixed).Render(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		res, err := browser.Check(context.Background(), p, 0.02)
		if err != nil {
			t.Fatal(err)
		}
		for _, hue := range []string{"blue", "green", "red"} {
			if res.Colors[hue] < 200 {
				t.Errorf("%s has %d %s pixels in chromium, want at least 200", filepath.Base(p), res.Colors[hue], hue)
			}
		}
	}
}
