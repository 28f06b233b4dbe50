package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

// cmdWatch reruns a level's tests each time one of its .go files changes.
// It polls rather than asking for file events: a look at a few dozen
// files costs nothing, works on every system and drive, and needs no
// package of its own.
func cmdWatch(c *call) int {
	l := c.level(nil)
	dir := filepath.Join(c.root, l.Dir)
	t, stop := c.terminal(l, dir, os.Interrupt)
	defer stop()
	w := &watcher{
		Level: l, root: c.root, dir: dir, Terminal: t,
		grade: func() (grade.Level, error) { return grade.TestLevel(c.root, l, 0) },
		now:   time.Now, clear: useColor(c.stdout),
	}
	w.Run()
	return 0
}

// terminal starts watching dir's files and listening for sigs, and reads
// single keys where stdin and stdout are a terminal: it puts it in raw
// mode, and stop puts it back. Without a terminal keys is nil.
func (c *call) terminal(l levels.Level, dir string, sigs ...os.Signal) (t interview.Terminal, stop func()) {
	changes, stopPolling := interview.PollChanges(dir, pollEvery)
	interrupt := make(chan os.Signal, 1)
	t = interview.Terminal{Out: c.stdout, ErrOut: c.stderr, Interrupt: interrupt, Changes: changes, Settle: 150 * time.Millisecond}
	t.Hint = func() { runAt(c.root, []string{"hint", strconv.Itoa(l.Number)}, t.Out, t.ErrOut) }
	signal.Notify(interrupt, sigs...)
	unwatch := func() { stopPolling(); signal.Stop(interrupt) }
	f, ok := c.stdout.(*os.File)
	in := int(os.Stdin.Fd())
	if !ok || !term.IsTerminal(in) || !term.IsTerminal(int(f.Fd())) {
		return t, unwatch
	}
	old, err := term.MakeRaw(in)
	if err != nil {
		return t, unwatch
	}
	// In raw mode Ctrl-C is a key (see readKeys), and a kill must not
	// leave the terminal raw: SIGTERM ends the loop as Ctrl-C does.
	signal.Notify(interrupt, syscall.SIGTERM)
	keys := make(chan byte, 16)
	go readKeys(os.Stdin, keys, interrupt)
	// In raw mode "\n" moves down a line but not back to its start.
	t.Keys, t.Out, t.ErrOut = keys, crlf(c.stdout), crlf(c.stderr)
	return t, func() { term.Restore(in, old); unwatch() }
}

// pollEvery is how often watch and interview mode look for changes.
const pollEvery = 500 * time.Millisecond

// watcher is watch mode with what it depends on injected, for the tests.
type watcher struct {
	interview.Terminal
	Level     levels.Level
	root, dir string
	grade     func() (grade.Level, error)
	now       func() time.Time
	clear     bool // clear the screen before each run

	part   int    // the part the last run found in progress, 0 if none
	status string // the last run's status line, said again after a key
}

// watchKeys reminds the learner of the keys of watch mode.
const watchKeys = "Keys: h hint · r run now · p the part you are on · q stop"

// Run tests the level once, then again after each change to its .go
// files, until Ctrl-C.
func (w *watcher) Run() {
	seen := interview.Snapshot(w.dir)
	when := "started " + w.now().Format("15:04:05")
	for {
		w.test(when)
		for changed := false; !changed; {
			select {
			case <-w.Changes:
				if changed = w.Saved(w.dir, &seen); changed {
					when = "saved " + w.now().Format("15:04:05")
				}
			case <-w.Interrupt:
				return
			case k := <-w.Keys:
				if changed = w.key(k); changed {
					when = "rerun " + w.now().Format("15:04:05")
				}
			}
		}
	}
}

// key does what a key typed asks, and reports whether it asks for a run.
func (w *watcher) key(k byte) bool {
	switch k {
	case 'r':
		return true
	case 'h':
		fmt.Fprintln(w.Out)
		w.Hint()
	case 'p':
		fmt.Fprintln(w.Out)
		w.showPart()
	default:
		if !('a' <= k && k <= 'z' || k == '?') {
			return false // the rest of an arrow key's sequence, say
		}
		fmt.Fprintln(w.Out, watchKeys)
	}
	fmt.Fprintln(w.Out, w.status)
	return false
}

// showPart prints the README's section of the part in progress, as
// interview mode poses it, without the guidance.
func (w *watcher) showPart() {
	r, err := interview.ReadmeParts(w.root, w.Level)
	switch {
	case err != nil:
		fmt.Fprintln(w.ErrOut, err)
	case w.part == 0:
		fmt.Fprintln(w.Out, "No part is in progress: the last run found every part done, or could not tell.")
	default:
		fmt.Fprintf(w.Out, "%s\n\n(%s/README.md has the rest.)\n", r.Section(w.part), w.Level.Dir)
	}
}

// test runs the level's tests once, and ends with the status line.
func (w *watcher) test(when string) {
	if w.clear {
		fmt.Fprint(w.Out, "\x1b[H\x1b[2J")
	}
	g, err := w.grade()
	status := "the tests could not run"
	w.part = 0
	if err != nil {
		fmt.Fprintln(w.ErrOut, err)
	} else {
		grade.Write(w.Out, g, 0, false)
		status, w.part = watchStatus(g), partInProgress(g)
	}
	fmt.Fprintf(w.Out, "\nWatching %s for changes. %s\n", w.Level.Dir, map[bool]string{true: "Ctrl-C stops.", false: watchKeys}[w.Keys == nil])
	// Last, where a pane that shows only the last lines still shows it.
	w.status = fmt.Sprintf("[watch: level %d · %s · %s]", w.Level.Number, status, when)
	fmt.Fprintln(w.Out, w.status)
}

// watchStatus says in a few words where a graded level stands: "part 2 of
// 3 in progress".
func watchStatus(g grade.Level) string {
	switch st := g.Status(); st {
	case grade.NoBuild, grade.Broken:
		return st
	}
	i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return !p.Done })
	switch {
	case i < 0 && len(g.Parts) == 2:
		return "both parts done"
	case i < 0:
		return fmt.Sprintf("all %d parts done", len(g.Parts))
	case len(g.Parts[i].Blocked) > 0:
		return fmt.Sprintf("part %d of %d did not finish", g.Parts[i].Number, len(g.Parts))
	}
	return fmt.Sprintf("part %d of %d in progress", g.Parts[i].Number, len(g.Parts))
}

// cmdInterview is ladder interview [--time 45m] N.
func cmdInterview(c *call) int {
	var budget time.Duration // 0: the guide's scope says, in Prepare
	c.fs.Func("time", "the interview's length, such as 45m or 30 (minutes); 45m when not given", func(s string) (err error) {
		budget, err = interview.ParseBudget(s)
		return err
	})
	l := c.level(nil)
	iv := &interview.Interview{
		Terminal: interview.Terminal{Out: c.stdout}, Root: c.root, Level: l, Budget: budget, Clock: clock.System{},
		St:    grade.Style{Color: useColor(c.stdout)},
		Grade: func(upTo int) (grade.Level, error) { return gradeUpTo(c.root, l, upTo) },
		// Reset keeps the learner's files in a backup, and asks first.
		Reset: func() int { return runAt(c.root, []string{"reset", strconv.Itoa(l.Number)}, c.stdout, c.stderr) },
	}
	c.check("ladder interview:", iv.Prepare())
	// From here on Ctrl-C ends the interview with a summary. So does a
	// closed terminal, whose SIGHUP would leave the running record behind.
	t, stop := c.terminal(l, iv.Dir(), os.Interrupt, syscall.SIGHUP)
	defer stop()
	iv.Terminal = t
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	iv.Ticks = ticker.C
	_, err := iv.Hold()
	c.stderr = t.ErrOut
	c.check("ladder interview:", err)
	return 0
}

// gradeUpTo grades parts 1 to upTo of a level, or the whole level when
// upTo is 0 or its last part: the candidate has not seen the later parts.
func gradeUpTo(root string, l levels.Level, upTo int) (grade.Level, error) {
	if upTo == 0 || upTo >= l.Parts[len(l.Parts)-1].Number {
		return grade.TestLevel(root, l, 0)
	}
	return grade.Through(context.Background(), root, l, upTo)
}

// readKeys passes on the keys read from r until it fails. Ctrl-C and q
// interrupt instead: the process sends itself SIGINT, which a test run
// under way hears too, or where it cannot (Windows) tells the loop alone.
func readKeys(r io.Reader, keys chan<- byte, interrupt chan<- os.Signal) {
	buf := make([]byte, 64)
	for {
		n, err := r.Read(buf)
		for _, k := range buf[:n] {
			if k == 3 || k == 'q' { // 3 is Ctrl-C
				if p, err := os.FindProcess(os.Getpid()); err != nil || p.Signal(os.Interrupt) != nil {
					select {
					case interrupt <- os.Interrupt:
					default:
					}
				}
				continue
			}
			select {
			case keys <- k:
			default: // keys typed faster than they are done: drop them
			}
		}
		if err != nil {
			return
		}
	}
}

// crlf writes to w with "\r\n" line ends.
func crlf(w io.Writer) io.Writer {
	return term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{nil, w}, "")
}
