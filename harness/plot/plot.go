// Package plot draws pictures of the ladder's levels: SVG files that show
// what an implementation does with a stream of requests over time. It is a
// module of its own, so that gonum.org/v1/plot never enters the
// requirements of the main module, where the learner's code lives.
//
// Each level has a constructor here (Level1, Level3, ...) that takes the
// level's New function, from the learner's ladder/ package or from the
// reference, and returns a Level. Level.Render drives the implementation
// on made-up traffic with explicit times, or with a clock.Fake for the
// levels that read a clock, and writes the figures. Nothing sleeps.
//
// The commands in the level folders (level1, level3, ...) plot the
// learner's code: make plot-level-N runs them. The reference's commands
// live in the solutions/plot module, since nothing under harness/ may
// import solutions/.
package plot

import (
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Level is one level's pictures, ready to be drawn with an implementation.
type Level struct {
	// Number is the level's number on the ladder, 1 to 8.
	Number int
	// figures drives the implementation and builds the figures. It may
	// panic where the implementation does: Render recovers.
	figures func() ([]figure, error)
}

// figure is one SVG file: panels stacked from top to bottom.
type figure struct {
	name          string // the file name, without the folder
	title         string // above every panel; may be empty
	panels        []*gonum.Plot
	width, height vg.Length
}

// NotImplementedError is what Render returns when the implementation
// panics "not implemented": the learner has not written that part yet.
type NotImplementedError struct {
	Level int
	Panic string // the panic's message, such as "not implemented: New"
}

func (e *NotImplementedError) Error() string {
	return fmt.Sprintf("level %d is not implemented yet: %s; plot the reference with REF=1", e.Level, e.Panic)
}

// Render drives the implementation, writes the level's figures as SVG
// files into dir (made if missing), and returns their paths. If the
// implementation panics, Render writes nothing and returns an error: a
// *NotImplementedError for a stub, so that an unfinished level gives a
// message rather than a broken picture.
func (l Level) Render(dir string) ([]string, error) {
	figs, err := l.drive()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range figs {
		path := filepath.Join(dir, f.name)
		if err := f.writeFile(path); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// drive runs l.figures, turning a panic of the implementation into an
// error that names the level.
func (l Level) drive() (figs []figure, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		msg := fmt.Sprint(r)
		if strings.Contains(msg, "not implemented") {
			err = &NotImplementedError{Level: l.Number, Panic: msg}
			return
		}
		err = fmt.Errorf("level %d panicked while it was being plotted: %s", l.Number, msg)
	}()
	return l.figures()
}

func (f figure) writeFile(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := f.write(out); err != nil {
		out.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return out.Close()
}

// write draws the panels one above the other, with their axes aligned,
// into an SVG that carries its fonts, so that it looks the same in every
// browser.
func (f figure) write(w io.Writer) error {
	c := vgsvg.NewWith(vgsvg.UseWH(f.width, f.height), vgsvg.EmbedFonts(true))
	dc := draw.New(c)
	// A white page: a browser would otherwise show the SVG on its own
	// background, and the PNG check would see a transparent one.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	rows := make([][]*gonum.Plot, len(f.panels))
	for i, p := range f.panels {
		rows[i] = []*gonum.Plot{p}
	}
	pad := vg.Points(10)
	tiles := draw.Tiles{Rows: len(f.panels), Cols: 1, PadX: pad, PadY: vg.Points(18),
		PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	if f.title != "" {
		style := text.Style{
			Color:   color.Black,
			Font:    font.From(gonum.DefaultFont, vg.Points(15)),
			XAlign:  draw.XCenter,
			YAlign:  draw.YTop,
			Handler: gonum.DefaultTextHandler,
		}
		dc.FillText(style, vg.Point{X: f.width / 2, Y: f.height - pad}, f.title)
		tiles.PadTop += vg.Points(28)
	}
	canvases := gonum.Align(rows, tiles, dc)
	for i, p := range f.panels {
		p.Draw(canvases[i][0])
	}
	_, err := c.WriteTo(w)
	return err
}

// Whose code a command plots, for its messages.
const (
	Learner   = "your code in ladder/"
	Reference = "the reference in solutions/"
)

// Main is the whole of a plotting command: it renders one of levels into
// the folder given by -out (plots/ by default), prints each file's path,
// and exits 1 with a one-line message if the implementation is not ready.
// With more than one level, -level N picks one. whose is Learner or
// Reference.
func Main(whose string, levels ...Level) {
	os.Exit(run(whose, levels, os.Args[1:], os.Stdout, os.Stderr))
}

func run(whose string, levels []Level, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("plot", flag.ContinueOnError)
	flags.SetOutput(stderr)
	dir := flags.String("out", "plots", "the folder to write the SVG files to")
	number := flags.Int("level", 0, "the level to draw (needed when there are several)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	var l *Level
	var have []string
	for i := range levels {
		have = append(have, fmt.Sprint(levels[i].Number))
		if levels[i].Number == *number || len(levels) == 1 && *number == 0 {
			l = &levels[i]
		}
	}
	if l == nil {
		fmt.Fprintf(stderr, "level %d has no pictures; the levels with pictures are %s\n", *number, strings.Join(have, ", "))
		return 1
	}
	paths, err := l.Render(*dir)
	var notYet *NotImplementedError
	switch {
	case errors.As(err, &notYet) && whose == Reference:
		fmt.Fprintf(stderr, "level %d's reference is not implemented: %s\n", l.Number, notYet.Panic)
		return 1
	case errors.As(err, &notYet) && !referenceHere():
		// A workshop copy has no reference to point to.
		fmt.Fprintf(stderr, "level %d is not implemented yet: %s\n", l.Number, notYet.Panic)
		return 1
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "Level %d, drawn with %s:\n", l.Number, whose)
	for _, p := range paths {
		fmt.Fprintf(stdout, "  %s\n", p)
	}
	fmt.Fprintln(stdout, "Open them in a browser.")
	return 0
}

// referenceHere reports whether make plot-level-N REF=1 can work from
// the current folder, the root of the repository.
func referenceHere() bool {
	_, err := os.Stat(filepath.Join("solutions", "plot", "go.mod"))
	return err == nil
}

// The look shared by every figure.
var (
	colorAllowed = color.RGBA{R: 0, G: 140, B: 60, A: 255}
	colorDenied  = color.RGBA{R: 215, G: 25, B: 28, A: 255}
	colorLimit   = color.RGBA{R: 0, G: 0, B: 0, A: 255}
	colorCount   = color.RGBA{R: 33, G: 102, B: 172, A: 255}
	colorExact   = color.RGBA{R: 190, G: 190, B: 190, A: 255}
	colorGuide   = color.RGBA{R: 150, G: 150, B: 150, A: 255}
	colorSecond  = color.RGBA{R: 230, G: 120, B: 0, A: 255}
)

func init() {
	// Sans-serif reads better than the default serif at these sizes.
	gonum.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
}

// newPanel returns a plot with a title, axis labels and a light grid.
func newPanel(title, xLabel, yLabel string) *gonum.Plot {
	p := gonum.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Min = 0
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(6)
	p.Legend.YOffs = vg.Points(-4)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.RGBA{R: 225, G: 225, B: 225, A: 255}
	grid.Horizontal.Color = grid.Vertical.Color
	p.Add(grid)
	return p
}

// line adds a polyline through pts to p, named in the legend unless name
// is empty.
func line(p *gonum.Plot, name string, pts plotter.XYs, c color.Color, width vg.Length, dashed bool) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		panic(err) // only NaN or infinite points, which the callers never make
	}
	l.Color = c
	l.Width = width
	if dashed {
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	}
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
}

// horizontal adds a dashed line at height y across [0, xMax].
func horizontal(p *gonum.Plot, name string, y, xMax float64, c color.Color) {
	line(p, name, plotter.XYs{{X: 0, Y: y}, {X: xMax, Y: y}}, c, vg.Points(1.6), true)
}

// marks adds one glyph per point: filled circles for allowed requests,
// crosses for denied ones.
func marks(p *gonum.Plot, name string, pts plotter.XYs, c color.Color, allowed bool) {
	if len(pts) == 0 {
		return
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		panic(err)
	}
	s.Color = c
	if allowed {
		s.Shape = draw.CircleGlyph{}
		s.Radius = vg.Points(2.6)
	} else {
		s.Shape = boldCross{}
		s.Radius = vg.Points(3.6)
	}
	p.Add(s)
	if name != "" {
		p.Legend.Add(name, s)
	}
}

// panelsOf is a figure's panels, from top to bottom.
func panelsOf(ps ...*gonum.Plot) []*gonum.Plot { return ps }

// boldCross is an X drawn with a thicker stroke than draw.CrossGlyph's
// hairline, so that denied requests stand out among the allowed ones.
type boldCross struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (boldCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.6)})
	r := sty.Radius * 0.7071
	var p vg.Path
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
	c.Stroke(p)
}

// ticks marks an axis every step from 0 to max, with a label every
// labelEvery steps.
func ticks(max, step float64, labelEvery int) gonum.ConstantTicks {
	var ts gonum.ConstantTicks
	for i := 0; float64(i)*step <= max+step/1e6; i++ {
		v := float64(i) * step
		t := gonum.Tick{Value: v}
		if i%labelEvery == 0 {
			t.Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// human writes a duration the way an axis label reads it: "10 s", "1 min",
// "2 h".
func human(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// note writes a short text centred just above (x, y).
func note(p *gonum.Plot, x, y float64, msg string) {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{msg}})
	if err != nil {
		panic(err)
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].Font = font.From(gonum.DefaultFont, vg.Points(10.5))
	}
	p.Add(l)
}
