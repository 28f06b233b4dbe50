package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rateladder/rateladder/harness/levels"
)

// benchNameREs find the names a spec's bench.go gives its benchmarks and
// metrics: b.Run("Get", ...), {"1k_per_sec", ...}, name+"/hot", and
// ReportMetric(x, "users").
var benchNameREs = []*regexp.Regexp{
	regexp.MustCompile(`b\.Run\("([A-Za-z0-9_]+)"`),
	regexp.MustCompile(`\{"([A-Za-z0-9_]+)",`),
	regexp.MustCompile(`\+"/([A-Za-z0-9_]+)"`),
	regexp.MustCompile(`ReportMetric\([^\n]*, "([A-Za-z0-9_]+)"\)`),
}

// TestBenchRowsNameTheirBenchmarks checks the footer of ladder bench
// against each level's spec/bench.go: every row it explains is in the
// source, and every benchmark and metric the source names is explained.
func TestBenchRowsNameTheirBenchmarks(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		src, err := os.ReadFile(filepath.Join(root, l.Dir, "spec", "bench.go"))
		if err != nil {
			t.Errorf("level %d: %v", l.Number, err)
			continue
		}
		code := strings.ReplaceAll(string(src), "_000", "000") // 86_400 is written 86400 in a name
		code = strings.ReplaceAll(code, "_400", "400")
		rows := benchRows(l.Number)
		if len(rows) == 0 {
			t.Errorf("level %d: benchRows explains no row of its benchmarks", l.Number)
		}
		var segments []string
		for _, r := range rows {
			name, _, _ := strings.Cut(r, ": ")
			for _, seg := range strings.Split(name, "/") {
				segments = append(segments, seg)
				seg = strings.TrimPrefix(seg, "n=")
				if !strings.Contains(code, seg) {
					t.Errorf("level %d: benchRows explains %q, but %s/spec/bench.go has no %q", l.Number, name, l.Dir, seg)
				}
			}
		}
		for _, re := range benchNameREs {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				if !slices.Contains(segments, m[1]) {
					t.Errorf("level %d: %s/spec/bench.go names %q, and benchRows does not explain it", l.Number, l.Dir, m[1])
				}
			}
		}
	}
}
