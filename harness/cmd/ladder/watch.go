package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/rateladder/rateladder/harness/levels"
)

// changes tells when a .go file under the watched folder may have changed.
type changes interface {
	C() <-chan struct{}
	Close() error
}

// newNotifier is how watch gets file events; tests replace it to check the
// fallback to polling.
var newNotifier = notifyChanges

// notifyChanges watches dir and its subfolders with fsnotify, and probeDir
// alone, for the probe file (see watchSource). fsnotify is not recursive:
// a folder created under dir later is added when its event comes.
func notifyChanges(dir, probeDir string) (changes, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	n := &notifier{w: w, c: make(chan struct{}, 1), probe: make(chan struct{}, 1), probeDir: filepath.Clean(probeDir)}
	if _, err := n.addTree(dir); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Add(probeDir); err != nil {
		w.Close()
		return nil, err
	}
	go n.loop()
	return n, nil
}

type notifier struct {
	w        *fsnotify.Watcher
	c        chan struct{}
	probe    chan struct{} // the probe file's events, kept apart from c
	probeDir string
}

func (n *notifier) C() <-chan struct{}     { return n.c }
func (n *notifier) Probe() <-chan struct{} { return n.probe }
func (n *notifier) Close() error           { return n.w.Close() }

// addTree watches dir and every folder under it, and says whether it
// holds a .go file: one written before its folder was watched has no event.
func (n *notifier) addTree(dir string) (bool, error) {
	sawGo := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return n.w.Add(path)
		case strings.HasSuffix(path, ".go"):
			sawGo = true
		}
		return nil
	})
	return sawGo, err
}

func (n *notifier) loop() {
	for {
		select {
		case e, ok := <-n.w.Events:
			if !ok {
				return
			}
			n.event(e)
		case _, ok := <-n.w.Errors:
			if !ok {
				return
			}
		}
	}
}

// event turns one file event into a change, a probe, or nothing.
func (n *notifier) event(e fsnotify.Event) {
	if filepath.Dir(e.Name) == n.probeDir {
		// The probe proves that events arrive; it is no change to test.
		// Nothing else in .ladder/ is either.
		if filepath.Base(e.Name) == probeName {
			signalOnce(n.probe)
		}
		return
	}
	if e.Has(fsnotify.Create) {
		if info, err := os.Lstat(e.Name); err == nil && info.IsDir() {
			// A folder that fails to be watched (gone already) changes nothing.
			if sawGo, _ := n.addTree(e.Name); sawGo {
				signalOnce(n.c)
			}
			return
		}
	}
	if strings.HasSuffix(e.Name, ".go") {
		signalOnce(n.c)
	}
}

// poller notices changes by looking at every .go file's size and time. Each
// look walks the whole folder, so folders created later are covered.
type poller struct {
	c    chan struct{}
	done chan struct{}
}

func pollChanges(dir string, every time.Duration) changes {
	p := &poller{c: make(chan struct{}, 1), done: make(chan struct{})}
	last := snapshot(dir) // before returning: a change made after that is seen
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				if now := snapshot(dir); now != last {
					last = now
					signalOnce(p.c)
				}
			}
		}
	}()
	return p
}

func (p *poller) C() <-chan struct{} { return p.c }
func (p *poller) Close() error       { close(p.done); return nil }

// snapshot sums up the .go files under dir: names, sizes and times.
func snapshot(dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", path, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}

func signalOnce(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

const probeName = "watch-probe"

// probeWait is how long watch waits for the event of its probe file.
var probeWait = 2 * time.Second

// watchSource picks file events where they work and polling where they do
// not: on some network drives and virtual machines fsnotify starts fine but
// no event ever arrives, so a probe file is written to check.
func watchSource(root, dir string, forcePoll bool, every time.Duration, stdout io.Writer) changes {
	if !forcePoll {
		why := "no event arrived for a file written as a test"
		probeDir := filepath.Join(root, stateDir)
		err := os.MkdirAll(probeDir, 0o755)
		var n changes
		if err == nil {
			n, err = newNotifier(dir, probeDir)
		}
		if err == nil && probeWorks(probeDir, n) {
			return n
		}
		if n != nil {
			n.Close()
		}
		if err != nil {
			why = err.Error()
		}
		fmt.Fprintf(stdout, "File events do not work here (%s): checking for changes every %v instead.\n", why, every)
	}
	return pollChanges(dir, every)
}

// prober is a source of changes that reports its probe file's events on a
// channel of their own, so that the probe is never taken for a save.
type prober interface {
	Probe() <-chan struct{}
}

// probeWorks writes a file into a watched folder and waits for its event.
func probeWorks(dir string, n changes) bool {
	probe := filepath.Join(dir, probeName)
	defer os.Remove(probe)
	if err := os.WriteFile(probe, []byte(time.Now().String()), 0o644); err != nil {
		return false
	}
	events := n.C()
	if p, ok := n.(prober); ok {
		events = p.Probe()
	}
	select {
	case <-events:
		return true
	case <-time.After(probeWait):
		return false
	}
}

// cmdWatch reruns a level's tests each time one of its .go files changes.
func cmdWatch(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	forcePoll := fs.Bool("poll", false, "check for changes by polling instead of file events")
	every := fs.Duration("every", 500*time.Millisecond, "how often to poll")
	l, ok := levelArg("watch", fs, args, stderr)
	if !ok {
		return 2
	}
	dir := filepath.Join(root, l.Dir)
	src := watchSource(root, dir, *forcePoll, *every, stdout)
	defer src.Close()
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	w := &watcher{
		level: l, dir: dir, out: stdout, errOut: stderr,
		grade:   func() (levelGrade, error) { return testLevel(root, l, 0) },
		changes: src.C(), interrupt: interrupt,
		settle: 150 * time.Millisecond, now: time.Now, clear: useColor(stdout),
	}
	w.run()
	return 0
}

// watcher is watch mode with what it depends on injected, for the tests.
type watcher struct {
	level       levels.Level
	dir         string
	out, errOut io.Writer
	grade       func() (levelGrade, error)
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
func (w *watcher) run() {
	seen := snapshot(w.dir)
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
				if now := snapshot(w.dir); now != seen {
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
		writeGrade(w.out, g, 0, false)
		status = watchStatus(g)
	}
	fmt.Fprintf(w.out, "\nWatching %s for changes. Ctrl-C stops.\n", w.level.Dir)
	// Last, where a pane that shows only the last lines still shows it.
	fmt.Fprintf(w.out, "[watch: level %d · %s · %s]\n", w.level.Number, status, when)
}

// watchStatus says in a few words where a graded level stands: "part 2 of
// 3 in progress".
func watchStatus(g levelGrade) string {
	switch st := g.status(); st {
	case statusNoBuild, statusBroken, statusUnverified:
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
