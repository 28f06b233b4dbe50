// Package browser opens an SVG picture in headless Chromium, the way a
// learner's browser would, and tells whether it showed a picture: the
// check behind make test-plots. It runs Chromium as a program with a new
// profile each time, and needs nothing but the chromium binary.
package browser

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Chromium returns the path of the chromium binary: $CHROMIUM if set,
// else chromium on the PATH, else /usr/bin/chromium.
func Chromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	return "", errors.New("chromium is not installed: make test-plots installs it (apt-get install chromium)")
}

// Size reads the width and height of an SVG file's root element, in CSS
// pixels (96 to the inch), and checks that the file is well-formed XML
// whose root is an <svg>.
func Size(svgPath string) (width, height int, err error) {
	f, err := os.Open(svgPath)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%s is not well-formed XML: %v", svgPath, err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok || root != "" {
			continue
		}
		root = start.Name.Local
		for _, a := range start.Attr {
			switch a.Name.Local {
			case "width":
				width, err = cssPixels(a.Value)
			case "height":
				height, err = cssPixels(a.Value)
			}
			if err != nil {
				return 0, 0, fmt.Errorf("%s: %v", svgPath, err)
			}
		}
	}
	if root != "svg" {
		return 0, 0, fmt.Errorf("%s: the root element is <%s>, want <svg>", svgPath, root)
	}
	if width <= 0 || height <= 0 {
		return 0, 0, fmt.Errorf("%s: the <svg> has no width and height", svgPath)
	}
	return width, height, nil
}

// cssPixels converts a length such as "792pt" or "800px" to whole pixels.
func cssPixels(v string) (int, error) {
	units := map[string]float64{"pt": 96.0 / 72, "px": 1, "in": 96, "cm": 96 / 2.54, "mm": 96 / 25.4, "": 1}
	for suffix, scale := range units {
		if suffix == "" || strings.HasSuffix(v, suffix) {
			n, err := strconv.ParseFloat(strings.TrimSuffix(v, suffix), 64)
			if err != nil {
				continue
			}
			return int(n*scale + 0.5), nil
		}
	}
	return 0, fmt.Errorf("cannot read the length %q", v)
}

// Result is what Chromium made of a picture.
type Result struct {
	PNG    string // the screenshot's path
	Width  int    // of the screenshot, in pixels
	Height int
	// Inked is the share of pixels that are not white, 0 to 1.
	Inked float64
	// Colors counts the pixels of each strong hue, for a check that
	// the marks are there: "red", "green" and "blue".
	Colors map[string]int
}

// Render loads svgPath in headless Chromium, in a window of the SVG's own
// size, and writes a screenshot to pngPath. It fails if the SVG is not
// well-formed, if Chromium cannot load the page (it dumps the page's DOM
// first: a parse error or an error page shows there), or if it writes no
// PNG.
func Render(ctx context.Context, svgPath, pngPath string) (Result, error) {
	w, h, err := Size(svgPath)
	if err != nil {
		return Result{}, err
	}
	bin, err := Chromium()
	if err != nil {
		return Result{}, err
	}
	abs, err := filepath.Abs(svgPath)
	if err != nil {
		return Result{}, err
	}
	url := "file://" + abs
	dom, err := chromium(ctx, bin, "--dump-dom", url)
	if err != nil {
		return Result{}, err
	}
	switch {
	case strings.Contains(dom, "parsererror"):
		return Result{}, fmt.Errorf("chromium could not parse %s: %s", svgPath, firstLines(dom, 5))
	case !strings.Contains(dom, "<svg"):
		return Result{}, fmt.Errorf("chromium did not load %s as an SVG; the page was: %s", svgPath, firstLines(dom, 5))
	}
	pngAbs, err := filepath.Abs(pngPath)
	if err != nil {
		return Result{}, err
	}
	os.Remove(pngAbs)
	if _, err := chromium(ctx, bin, "--screenshot="+pngAbs, fmt.Sprintf("--window-size=%d,%d", w, h),
		"--hide-scrollbars", url); err != nil {
		return Result{}, err
	}
	return Inspect(pngAbs)
}

// chromium runs one headless Chromium with a throwaway profile and
// returns its standard output.
func chromium(ctx context.Context, bin string, args ...string) (string, error) {
	profile, err := os.MkdirTemp("", "plot-chromium-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile,
	}, args...)
	cmd := exec.CommandContext(ctx, bin, all...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, firstLines(stderr.String(), 20))
	}
	return stdout.String(), nil
}

// Inspect decodes a PNG and measures how much of it is drawn on.
func Inspect(pngPath string) (Result, error) {
	f, err := os.Open(pngPath)
	if err != nil {
		return Result{}, fmt.Errorf("chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return Result{}, fmt.Errorf("%s is not a PNG: %v", pngPath, err)
	}
	b := img.Bounds()
	r := Result{PNG: pngPath, Width: b.Dx(), Height: b.Dy(), Colors: map[string]int{}}
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if hue := classify(img, x, y); hue != "white" {
				inked++
				r.Colors[hue]++
			}
		}
	}
	if n := b.Dx() * b.Dy(); n > 0 {
		r.Inked = float64(inked) / float64(n)
	}
	return r, nil
}

// classify names a pixel: "white", one of the strong hues the figures
// use, or "other" (black, grey, anti-aliased edges).
func classify(img image.Image, x, y int) string {
	r16, g16, b16, _ := img.At(x, y).RGBA()
	r, g, b := int(r16>>8), int(g16>>8), int(b16>>8)
	switch {
	case r > 245 && g > 245 && b > 245:
		return "white"
	case r > 150 && g < 90 && b < 90:
		return "red"
	case g > 100 && r < 80 && b < 120 && g > b+30:
		return "green"
	case b > 130 && r < 90 && b > g+30:
		return "blue"
	}
	return "other"
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// Check renders svgPath to a PNG beside it (x.svg to x.png) and fails if
// the page did not load or the picture is blank: less than minInked of
// its pixels drawn on.
func Check(ctx context.Context, svgPath string, minInked float64) (Result, error) {
	res, err := Render(ctx, svgPath, strings.TrimSuffix(svgPath, ".svg")+".png")
	if err != nil {
		return res, err
	}
	if res.Inked < minInked {
		return res, fmt.Errorf("%s looks blank in chromium: %.2f%% of its pixels are drawn on, want at least %.2f%%",
			res.PNG, 100*res.Inked, 100*minInked)
	}
	return res, nil
}
