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
)

// changes tells when a .go file under the watched folder may have changed.
type changes interface {
	C() <-chan struct{}
	Close() error
}

// newNotifier is how watch gets file events; tests replace it to check the
// fallback to polling.
var newNotifier = notifyChanges

// notifyChanges watches the folders and their subfolders with fsnotify.
func notifyChanges(dirs ...string) (changes, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				err = w.Add(path)
			}
			return err
		})
		if err != nil {
			w.Close()
			return nil, err
		}
	}
	n := &notifier{w: w, c: make(chan struct{}, 1)}
	go n.loop()
	return n, nil
}

type notifier struct {
	w *fsnotify.Watcher
	c chan struct{}
}

func (n *notifier) C() <-chan struct{} { return n.c }
func (n *notifier) Close() error       { return n.w.Close() }

func (n *notifier) loop() {
	for {
		select {
		case e, ok := <-n.w.Events:
			if !ok {
				return
			}
			if strings.HasSuffix(e.Name, ".go") || strings.HasSuffix(e.Name, probeName) {
				signalOnce(n.c)
			}
		case _, ok := <-n.w.Errors:
			if !ok {
				return
			}
		}
	}
}

// poller notices changes by looking at every .go file's size and time.
type poller struct {
	c    chan struct{}
	done chan struct{}
}

func pollChanges(dir string, every time.Duration) changes {
	p := &poller{c: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		last := snapshot(dir)
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

// probeWorks writes a file into a watched folder and waits for its event.
func probeWorks(dir string, n changes) bool {
	probe := filepath.Join(dir, probeName)
	defer os.Remove(probe)
	if err := os.WriteFile(probe, []byte(time.Now().String()), 0o644); err != nil {
		return false
	}
	select {
	case <-n.C():
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
	src := watchSource(root, filepath.Join(root, l.Dir), *forcePoll, *every, stdout)
	defer src.Close()
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	clear := useColor(stdout)
	for {
		if clear {
			fmt.Fprint(stdout, "\x1b[H\x1b[2J")
		}
		if g, err := testLevel(root, l, 0); err != nil {
			fmt.Fprintln(stderr, err)
		} else {
			writeGrade(stdout, g, 0, false)
		}
		fmt.Fprintf(stdout, "\nWatching %s for changes. Ctrl-C stops.\n", l.Dir)
		select {
		case <-src.C():
			// Editors write a file in several steps: wait for the last.
			time.Sleep(150 * time.Millisecond)
			for len(src.C()) > 0 {
				<-src.C()
			}
		case <-interrupt:
			return 0
		}
	}
}
