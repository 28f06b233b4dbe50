package grade

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Most lines a cut race report or crash keeps, and bounds on what a
// watcher holds whatever the output.
const (
	maxRaceLines   = 12
	maxCrashLines  = 10
	maxRaceRead    = 400
	maxCrashRead   = 200
	maxWatchedLine = 1 << 10
)

// watcher reads a test binary's output line by line for race reports and
// the runtime's last words, and cuts them to the learner's own frames.
type watcher struct {
	root   string              // frames are named from this folder
	onRace func(report string) // hears each race report, cut

	race  []string // the report being read; nil outside one
	crash []string // the last crash seen: its message, then its first goroutine
	stack bool     // crash has reached its first goroutine's frames
	ended bool     // and those frames have ended
}

// line reads one complete line, without its newline.
func (w *watcher) line(l string) {
	l = strings.TrimRight(strings.TrimPrefix(l, "\x16"), "\r")
	l = l[:min(len(l), maxWatchedLine)]
	if w.race != nil {
		if strings.HasPrefix(l, "==================") {
			report := w.cutRace(w.race)
			w.race = nil
			if w.onRace != nil {
				w.onRace(report)
			}
		} else if len(w.race) < maxRaceRead {
			w.race = append(w.race, l)
		}
		return
	}
	if l == "WARNING: DATA RACE" {
		w.race = []string{l}
		return
	}
	crashLine := strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ")
	switch {
	case crashLine && (w.crash == nil || w.ended || !w.stack):
		// A new crash: the last one is what ended the process. Before
		// its goroutines, an earlier line may only have looked like one.
		w.crash, w.stack, w.ended = []string{l}, false, false
	case w.crash == nil || w.ended || len(w.crash) >= maxCrashRead:
	case w.stack && l == "":
		w.ended = true
	case !w.stack && strings.HasPrefix(l, "goroutine ") && strings.HasSuffix(l, ":"):
		w.crash, w.stack = append(w.crash, l), true
	default:
		w.crash = append(w.crash, l)
	}
}

// crash is what the runtime printed as a process died, cut for a learner.
type crash struct {
	message []string         // "fatal error: concurrent map writes", and the lines under it
	frames  []protocol.Frame // the learner's frames of the goroutine that crashed
}

// crashed returns the last crash seen, or ok false if there was none.
func (w *watcher) crashed() (c crash, ok bool) {
	lines := w.crash
	i := 0
	for ; i < len(lines) && lines[i] != ""; i++ {
		if !strings.HasPrefix(lines[i], "goroutine ") && len(c.message) < 3 {
			c.message = append(c.message, protocol.CutLine(strings.TrimSpace(lines[i]), 200))
		}
	}
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "goroutine ") && strings.HasSuffix(lines[i], ":") {
			c.frames = w.learnerFrames(lines[i+1:])
			break
		}
	}
	return c, lines != nil
}

// text is the crash as the exit's Crash carries it.
func (c crash) text() string {
	lines := slices.Clone(c.message)
	for _, f := range c.frames[:min(len(c.frames), maxCrashLines-len(lines))] {
		lines = append(lines, frameLine(f))
	}
	return strings.Join(lines, "\n")
}

// headline is the crash in one line, with the learner's line it came from:
// "fatal error: concurrent map writes (ladder/x/x.go:41)".
func (c crash) headline() string {
	msg := "a crash with no message"
	if len(c.message) > 0 {
		msg = c.message[0]
	}
	if len(c.frames) > 0 {
		msg += fmt.Sprintf(" (%s:%d)", c.frames[0].File, c.frames[0].Line)
	}
	return msg
}

// timeout returns go test's -timeout, "10m0s", if the crash is its panic.
func (c crash) timeout() (string, bool) {
	if len(c.message) == 0 {
		return "", false
	}
	return strings.CutPrefix(c.message[0], "panic: test timed out after ")
}

// cutRace cuts a race report to its headline and its accesses, each with
// the learner's frames only.
func (w *watcher) cutRace(lines []string) string {
	out := []string{lines[0]}
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if !accessLine.MatchString(l) {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "  ") {
			j++
		}
		frames := w.learnerFrames(lines[i+1 : j])
		i = j - 1
		out = append(out, l)
		if len(frames) == 0 {
			out = append(out, "  (no frame in your own files)")
		}
		for _, f := range frames {
			out = append(out, frameLine(f))
		}
	}
	return strings.Join(out[:min(len(out), maxRaceLines)], "\n")
}

// accessLine is a race report's access line: "Write at 0x... by
// goroutine 8:", "Previous read at 0x... by main goroutine:".
var accessLine = regexp.MustCompile(`^(Read|Write|Atomic|Previous (read|write|atomic)) .*at 0x.* by .*:$`)

// learnerFrames reads the frames of a traceback or of one access of a race
// report (a function line, then its file:line indented under it) and keeps
// those in the learner's own files, named from the top folder.
func (w *watcher) learnerFrames(lines []string) []protocol.Frame {
	modPath, err := shipped.ModulePath(w.root)
	if err != nil {
		modPath = "\x00" // no module: no path starts with it
	}
	var out []protocol.Frame
	for i := 0; i+1 < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			break
		}
		if !strings.HasPrefix(lines[i+1], "\t") && !strings.HasPrefix(lines[i+1], "    ") {
			continue // not a function and its place: "...additional frames elided..."
		}
		f := protocol.FrameOf(lines[i], lines[i+1])
		i++
		// A binary built with -trimpath names the module's files by import path.
		if rel, err := filepath.Rel(w.root, f.File); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(f.File) {
			f.File = filepath.ToSlash(rel)
		} else {
			f.File = strings.TrimPrefix(f.File, modPath+"/")
		}
		if _, err := os.Stat(filepath.Join(w.root, filepath.FromSlash(f.File))); err == nil && levels.InLearnersCode(f.File) {
			out = append(out, f)
		}
	}
	return out
}

// frameLine writes a frame as the cut reports show it.
func frameLine(f protocol.Frame) string {
	return fmt.Sprintf("  %s  %s:%d", f.Function, f.File, f.Line)
}
