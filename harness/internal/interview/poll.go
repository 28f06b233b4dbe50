package interview

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// PollChanges looks at dir every so often and signals on changes when a
// .go file under it changed, until stop is called; each look walks the
// whole folder, new folders too.
func PollChanges(dir string, every time.Duration) (changes <-chan struct{}, stop func()) {
	c, done := make(chan struct{}, 1), make(chan struct{})
	last := Snapshot(dir) // before returning: a change made after that is seen
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if now := Snapshot(dir); now != last {
					last = now
					select {
					case c <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
	return c, func() { close(done) }
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
