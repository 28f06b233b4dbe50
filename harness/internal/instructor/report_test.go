package instructor

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
)

// fakeClass is a class of ten, each student a step further up the ladder
// than the one before, with a failing part, a race, a level that does not
// compile and a limit among them.
func fakeClass() []Result {
	var class []Result
	for i := range 10 {
		r := Result{Name: fmt.Sprintf("student-%02d", i+1), InProcess: map[int][]int{}}
		for n, l := range levels.All {
			lr := grade.LevelReport{Number: l.Number, Title: l.Title, Status: grade.NotStarted}
			waits := 0
			for _, p := range l.Parts {
				pr := grade.PartReport{Number: p.Number, Title: p.Title, Cases: 5}
				switch {
				case n < i/2 || n == i/2 && p.Number == 1 && i%2 == 1:
					pr.Done, pr.Passed = true, 5
					lr.PartsDone++
					lr.Status = grade.InProgress
				case n == i/2 && waits == 0:
					pr.Failing = "a window of one second"
					pr.Why = fmt.Sprintf(`case %q: Count(t=4s) = 3, want 2 (step 4)`, pr.Failing)
					lr.Status = grade.InProgress
					waits = p.Number
				case waits > 0:
					pr.Why = fmt.Sprintf("waits for part %d", waits)
				default:
					pr.Why = "not implemented yet: New"
				}
				lr.Parts = append(lr.Parts, pr)
			}
			if lr.PartsDone == len(lr.Parts) {
				lr.Status = grade.Done
			}
			r.Levels = append(r.Levels, lr)
		}
		class = append(class, r)
	}
	// One level that does not compile, one done part judged in process,
	// and a student stopped at the time limit.
	class[3].Levels[1] = grade.LevelReport{Number: 2, Status: grade.NoBuild, BuildError: "./logger.go:12:2: undefined: seen"}
	for _, p := range levels.All[1].Parts {
		class[3].Levels[1].Parts = append(class[3].Levels[1].Parts, grade.PartReport{Number: p.Number, Title: p.Title, Why: "does not compile: ./logger.go:12:2: undefined: seen"})
	}
	class[9].InProcess[1] = []int{2}
	class[5] = Result{Name: "student-06", Err: "stopped after 5m0s"}
	return class
}

// TestClassReportPage writes the HTML page of a class of ten: it names
// every student, each failing case as its tooltip and in the list, and
// loads nothing from elsewhere. With Chromium (make test-plots), it also
// takes a screenshot, kept in plots/check/class-report.png to be looked
// at, and checks that the heat map's colours are in it.
func TestClassReportPage(t *testing.T) {
	var page bytes.Buffer
	WriteHTML(&page, fakeClass())
	text := page.String()
	for _, want := range []string{"student-01", "student-10", `case &#34;a window of one second&#34;: Count(t=4s) = 3, want 2 (step 4)`,
		"does not compile: ./logger.go:12:2: undefined: seen", "stopped after 5m0s", "The class, part by part"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, outside := range []string{"<script", "http://", "https://", "<link", "@import"} {
		if strings.Contains(text, outside) {
			t.Errorf("the page holds %q: it must need nothing from elsewhere", outside)
		}
	}
	if os.Getenv("LADDER_PLOTS_BROWSER") == "" {
		t.Skip("LADDER_PLOTS_BROWSER is not set: make test-plots opens the page in Chromium")
	}
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("no chromium on the PATH: make test-plots installs it")
	}
	dir := t.TempDir()
	htmlPath := filepath.Join(dir, "class.html")
	if err := os.WriteFile(htmlPath, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "class.png")
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1100,900", "file://"+htmlPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	if keep := os.Getenv("PLOTS_DIR"); keep != "" {
		os.WriteFile(filepath.Join(keep, "class-report.png"), data, 0o644)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hex := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, bl>>8)
			for _, s := range cellStates {
				if hex == s.Colour {
					count[s.Class]++
				}
			}
		}
	}
	// Every state the class holds fills at least one cell besides its
	// square in the legend: a cell is about 22 by 22 pixels, a square 14.
	for _, s := range cellStates {
		if count[s.Class] < 400 {
			t.Errorf("the screenshot has %d pixels of %s (%s), want the cells of the heat map", count[s.Class], s.Colour, s.Words)
		}
	}
}
