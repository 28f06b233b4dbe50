package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

// cmdWatch reruns a level's tests each time one of its .go files changes.
// It polls rather than asking for file events: a look at a few dozen
// files costs nothing, works on every system and drive, and needs no
// package of its own.
func cmdWatch(root string, args []string, stdout, stderr io.Writer) int {
	var every time.Duration
	l, ok := levelArg("watch", args, stderr, nil, "", func(fs *flag.FlagSet) {
		fs.DurationVar(&every, "every", 500*time.Millisecond, "how often to look for changes")
	})
	if !ok {
		return 2
	}
	dir := filepath.Join(root, l.Dir)
	src := interview.PollChanges(dir, every)
	defer src.Close()
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	keys, out, errOut, restore := terminalKeys(stdout, stderr, interrupt)
	defer restore()
	w := &watcher{
		Level: l, root: root, dir: dir, out: out, errOut: errOut,
		grade:   func() (grade.Level, error) { return grade.TestLevel(root, l, 0) },
		changes: src.C(), interrupt: interrupt, keys: keys,
		hint:   func() { cmdHint(root, []string{strconv.Itoa(l.Number)}, out, errOut) },
		settle: 150 * time.Millisecond, now: time.Now, clear: useColor(stdout),
	}
	w.Run()
	return 0
}

// watcher is watch mode with what it depends on injected, for the tests.
type watcher struct {
	Level       levels.Level
	root, dir   string
	out, errOut io.Writer
	grade       func() (grade.Level, error)
	changes     <-chan struct{}
	interrupt   <-chan os.Signal
	keys        <-chan byte   // the keys typed on a terminal, nil without one
	hint        func()        // shows the next hint, for the key h
	settle      time.Duration // how long to wait after a change for the editor's last write
	now         func() time.Time
	clear       bool   // clear the screen before each run
	beforeWait  func() // when set, called each time watch waits

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
			if w.beforeWait != nil {
				w.beforeWait()
			}
			select {
			case <-w.changes:
				// Editors write a file in several steps: wait for the last.
				time.Sleep(w.settle)
				for len(w.changes) > 0 {
					<-w.changes
				}
				// An event that changed no .go file (a file saved as it
				// was, a folder made) is no reason to run again.
				if now := interview.Snapshot(w.dir); now != seen {
					seen, changed = now, true
					when = "saved " + w.now().Format("15:04:05")
				}
			case <-w.interrupt:
				return
			case k := <-w.keys:
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
		fmt.Fprintln(w.out)
		w.hint()
	case 'p':
		fmt.Fprintln(w.out)
		w.showPart()
	default:
		if !('a' <= k && k <= 'z' || k == '?') {
			return false // the rest of an arrow key's sequence, say
		}
		fmt.Fprintln(w.out, watchKeys)
	}
	fmt.Fprintln(w.out, w.status)
	return false
}

// showPart prints the README's section of the part in progress, as
// interview mode poses it, without the guidance.
func (w *watcher) showPart() {
	r, err := interview.ReadmeParts(w.root, w.Level)
	switch {
	case err != nil:
		fmt.Fprintln(w.errOut, err)
	case w.part == 0:
		fmt.Fprintln(w.out, "No part is in progress: the last run found every part done, or could not tell.")
	default:
		fmt.Fprintf(w.out, "%s\n\n(%s/README.md has the rest.)\n", r.Sections[w.part], w.Level.Dir)
	}
}

// test runs the level's tests once, and ends with the status line.
func (w *watcher) test(when string) {
	if w.clear {
		fmt.Fprint(w.out, "\x1b[H\x1b[2J")
	}
	g, err := w.grade()
	status := "the tests could not run"
	w.part = 0
	if err != nil {
		fmt.Fprintln(w.errOut, err)
	} else {
		grade.Write(w.out, g, 0, false)
		status = watchStatus(g)
		if i := slices.IndexFunc(g.Parts, func(p grade.Part) bool { return !p.Done }); i >= 0 {
			w.part = g.Parts[i].Number
		}
	}
	stops := "Ctrl-C stops."
	if w.keys != nil {
		stops = watchKeys
	}
	fmt.Fprintf(w.out, "\nWatching %s for changes. %s\n", w.Level.Dir, stops)
	// Last, where a pane that shows only the last lines still shows it.
	w.status = fmt.Sprintf("[watch: level %d · %s · %s]", w.Level.Number, status, when)
	fmt.Fprintln(w.out, w.status)
}

// watchStatus says in a few words where a graded level stands: "part 2 of
// 3 in progress".
func watchStatus(g grade.Level) string {
	switch st := g.Status(); st {
	case grade.NoBuild, grade.Broken, grade.Unverified:
		return st
	}
	for _, p := range g.Parts {
		switch {
		case p.Done:
		case len(p.Blocked) > 0:
			return fmt.Sprintf("part %d of %d did not finish", p.Number, len(g.Parts))
		default:
			return fmt.Sprintf("part %d of %d in progress", p.Number, len(g.Parts))
		}
	}
	if len(g.Parts) == 2 {
		return "both parts done"
	}
	return fmt.Sprintf("all %d parts done", len(g.Parts))
}
