package interview

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// Changes tells when a .go file under the watched folder may have changed.
type Changes interface {
	C() <-chan struct{}
	Close() error
}

type poller struct{ c, done chan struct{} }

// PollChanges looks at dir every so often and signals when a .go file
// under it changed; each look walks the whole folder, new folders too.
func PollChanges(dir string, every time.Duration) Changes {
	p := &poller{c: make(chan struct{}, 1), done: make(chan struct{})}
	last := Snapshot(dir) // before returning: a change made after that is seen
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				if now := Snapshot(dir); now != last {
					last = now
					select {
					case p.c <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
	return p
}

// Snapshot sums up the .go files under dir: names, sizes and times.
func Snapshot(dir string) string {
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

func (p *poller) C() <-chan struct{} { return p.c }

func (p *poller) Close() error { close(p.done); return nil }
