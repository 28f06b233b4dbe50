package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/rateladder/rateladder/harness/plot/browser"
)

// TestReferencePicturesInChromium draws every level with the reference
// and opens each picture in headless Chromium, as make test-plots does:
// each must load, and show its marks. With PLOTS_DIR set, the SVG and PNG
// files stay there for a person to look at.
func TestReferencePicturesInChromium(t *testing.T) {
	dir := os.Getenv("PLOTS_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	for _, l := range levels {
		t.Run(fmt.Sprintf("level_%d", l.Number), func(t *testing.T) {
			paths, err := l.Render(dir)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			for _, p := range paths {
				res, err := browser.Check(context.Background(), p, 0.02)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %dx%d, %.1f%% drawn on, %v", res.PNG, res.Width, res.Height, 100*res.Inked, res.Colors)
				// Every figure draws its counts in blue; level 3 and 8
				// mark allowed requests green and denied ones red.
				want := []string{"blue"}
				if l.Number == 3 || l.Number == 8 {
					want = append(want, "green", "red")
				}
				for _, hue := range want {
					if res.Colors[hue] < 200 {
						t.Errorf("%s has %d %s pixels, want at least 200: are its marks missing?", res.PNG, res.Colors[hue], hue)
					}
				}
			}
		})
	}
}
