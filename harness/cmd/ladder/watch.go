package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

// Watch polls rather than asking the system for file events: a level's
// folder holds a few dozen files, so a look every half second costs
// nothing, works the same on every system and on network drives and
// virtual machines where events never arrive, and needs no package of its
// own (fsnotify and golang.org/x/sys took a tenth of the command's first
// build). The tests take longer to run than a save takes to be seen.

// cmdWatch reruns a level's tests each time one of its .go files changes.
func cmdWatch(root string, args []string, stdout, stderr io.Writer) int {
	var every time.Duration
	l, ok := levelArg("watch", args, stderr, func(fs *flag.FlagSet) { everyFlag(fs, &every) })
	if !ok {
		return 2
	}
	dir := filepath.Join(root, l.Dir)
	src := interview.PollChanges(dir, every)
	defer src.Close()
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	w := &watcher{
		Level: l, dir: dir, out: stdout, errOut: stderr,
		grade:   func() (grade.Level, error) { return grade.TestLevel(root, l, 0) },
		changes: src.C(), interrupt: interrupt,
		settle: 150 * time.Millisecond, now: time.Now, clear: useColor(stdout),
	}
	w.Run()
	return 0
}

// watcher is watch mode with what it depends on injected, for the tests.
type watcher struct {
	Level       levels.Level
	dir         string
	out, errOut io.Writer
	grade       func() (grade.Level, error)
	changes     <-chan struct{}
	interrupt   <-chan os.Signal
	// settle is how long to wait after a change for the editor's last write.
	settle time.Duration
	now    func() time.Time
	clear  bool // clear the screen before each run
	// beforeWait, when set, is called each time watch waits.
	beforeWait func()
}

// run tests the level once, then again after each change to its .go
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
			}
		}
	}
}

// test runs the level's tests once, and ends with the status line.
func (w *watcher) test(when string) {
	if w.clear {
		fmt.Fprint(w.out, "\x1b[H\x1b[2J")
	}
	g, err := w.grade()
	status := "the tests could not run"
	if err != nil {
		fmt.Fprintln(w.errOut, err)
	} else {
		grade.Write(w.out, g, 0, false)
		status = watchStatus(g)
	}
	fmt.Fprintf(w.out, "\nWatching %s for changes. Ctrl-C stops.\n", w.Level.Dir)
	// Last, where a pane that shows only the last lines still shows it.
	fmt.Fprintf(w.out, "[watch: level %d · %s · %s]\n", w.Level.Number, status, when)
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
