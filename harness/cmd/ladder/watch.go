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
	w := &watcher{Terminal: t, Level: l, root: c.root, dir: dir, clear: useColor(c.stdout),
		grade: func() (grade.Level, error) { return grade.TestLevel(c.root, l, 0) }}
	w.Run()
	return 0
}

// terminal starts watching dir's files and listening for sigs, and reads
// single keys where stdin and stdout are a terminal: it puts it in raw
// mode, and stop puts it back. Without a terminal, t.Keys is nil.
func (c *call) terminal(l levels.Level, dir string, sigs ...os.Signal) (t interview.Terminal, stop func()) {
	changes, stopPolling := interview.PollChanges(dir, 500*time.Millisecond)
	interrupt := make(chan os.Signal, 1)
	t = interview.Terminal{Out: c.stdout, ErrOut: c.stderr, Interrupt: interrupt, Changes: changes, Settle: 150 * time.Millisecond}
	t.Hint = func() { runAt(c.root, []string{"hint", strconv.Itoa(l.Number)}, t.Out, t.ErrOut) }
	signal.Notify(interrupt, sigs...)
	stop = func() { stopPolling(); signal.Stop(interrupt) }
	f, ok := c.stdout.(*os.File)
	in := int(os.Stdin.Fd())
	if !ok || !term.IsTerminal(in) || !term.IsTerminal(int(f.Fd())) {
		return t, stop
	}
	old, err := term.MakeRaw(in)
	if err != nil {
		return t, stop
	}
	// In raw mode Ctrl-C is a key (see readKeys), and a kill must not
	// leave the terminal raw: SIGTERM ends the loop as Ctrl-C does.
	signal.Notify(interrupt, syscall.SIGTERM)
	keys := make(chan byte, 16)
	go readKeys(keys, interrupt)
	// In raw mode "\n" moves down a line but not back to its start.
	t.Keys, t.Out, t.ErrOut = keys, crlf(c.stdout), crlf(c.stderr)
	return t, func() { term.Restore(in, old); stop() }
}

// watcher is watch mode, with its grader injected for the tests.
type watcher struct {
	interview.Terminal
	Level     levels.Level
	root, dir string
	grade     func() (grade.Level, error)
	clear     bool   // clear the screen before each run
	part      int    // the part the last run found in progress, 0 if none
	status    string // the last run's status line, said again after a key
}

// watchKeys reminds the learner of the keys of watch mode.
const watchKeys = "Keys: h hint · r run now · p the part you are on · q stop"

// Run tests the level once, then again after each change to its .go
// files or an r typed, until Ctrl-C.
func (w *watcher) Run() {
	seen := interview.Snapshot(w.dir)
	for why := "started"; ; {
		w.test(why + " " + time.Now().Format("15:04:05"))
		for why = ""; why == ""; {
			select {
			case <-w.Changes:
				if w.Saved(w.dir, &seen) {
					why = "saved"
				}
			case <-w.Interrupt:
				return
			case k := <-w.Keys:
				if w.key(k) {
					why = "rerun"
				}
			}
		}
	}
}

// key does what a key typed asks, and reports whether it asks for a run.
func (w *watcher) key(k byte) bool {
	switch {
	case k == 'r':
		return true
	case k == 'h':
		fmt.Fprintln(w.Out)
		w.Hint()
	case k == 'p':
		// The README's section of the part, as interview mode poses it.
		r, err := interview.ReadmeParts(w.root, w.Level)
		if err != nil {
			fmt.Fprintln(w.ErrOut, err)
		} else if w.part == 0 {
			fmt.Fprintln(w.Out, "\nNo part is in progress: the last run found every part done, or could not tell.")
		} else {
			fmt.Fprintf(w.Out, "\n%s\n\n(%s/README.md has the rest.)\n", r.Section(w.part), w.Level.Dir)
		}
	case 'a' <= k && k <= 'z' || k == '?':
		fmt.Fprintln(w.Out, watchKeys)
	default:
		return false // the rest of an arrow key's sequence, say
	}
	fmt.Fprintln(w.Out, w.status)
	return false
}

// test runs the level's tests once, and ends with the status line.
func (w *watcher) test(when string) {
	if w.clear {
		fmt.Fprint(w.Out, "\x1b[H\x1b[2J")
	}
	g, err := w.grade()
	status := "the tests could not run"
	if w.part = 0; err != nil {
		fmt.Fprintln(w.ErrOut, err)
	} else {
		grade.Write(w.Out, g, 0, false)
		status, w.part = watchStatus(g), partInProgress(g)
	}
	keys := watchKeys
	if w.Keys == nil {
		keys = "Ctrl-C stops."
	}
	// The status line last, where a pane that shows only the last lines
	// still shows it.
	w.status = fmt.Sprintf("[watch: level %d · %s · %s]", w.Level.Number, status, when)
	fmt.Fprintf(w.Out, "\nWatching %s for changes. %s\n%s\n", w.Level.Dir, keys, w.status)
}

// watchStatus says in a few words where a graded level stands: "part 2 of
// 3 in progress".
func watchStatus(g grade.Level) string {
	switch st := g.Status(); st {
	case grade.NoBuild, grade.Broken, grade.Unverified:
		return st
	}
	i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return !p.Done })
	switch {
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
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	iv.Terminal, iv.Ticks, c.stderr = t, ticker.C, t.ErrOut
	_, err := iv.Hold()
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

// readKeys passes on the keys typed until stdin fails. Ctrl-C and q
// interrupt instead: the process sends itself SIGINT, which a test run
// under way hears too, or where it cannot (Windows) tells the loop alone.
func readKeys(keys chan<- byte, interrupt chan<- os.Signal) {
	self, err := os.FindProcess(os.Getpid())
	for buf := make([]byte, 64); ; {
		n, rerr := os.Stdin.Read(buf)
		for _, k := range buf[:n] {
			switch {
			case k != 3 && k != 'q': // 3 is Ctrl-C
				select {
				case keys <- k:
				default: // keys typed faster than they are done: drop them
				}
			case err != nil || self.Signal(os.Interrupt) != nil:
				select {
				case interrupt <- os.Interrupt:
				default:
				}
			}
		}
		if rerr != nil {
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
