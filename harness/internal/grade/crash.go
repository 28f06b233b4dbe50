package grade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// The race detector and the runtime write what went wrong to a test
// binary's output, in their own words and with frames from every package.
// A learner needs the message and the lines of their own code, so the
// grader watches the output for both and cuts them down.

// Most lines a cut race report or crash keeps.
const (
	maxRaceLines  = 12
	maxCrashLines = 10
)

// watcher reads one output stream line by line, looking for race reports
// and for the runtime's last words.
type watcher struct {
	// root is the repository's top folder, which frames are named from.
	root string
	// onRace receives each race report, cut for a learner.
	onRace func(report string)

	mu    sync.Mutex
	race  []string // the report being read, from its headline; nil outside one
	crash []string // the last crash seen: its message, then its first goroutine
	stack bool     // crash has reached its first goroutine's frames
	ended bool     // and those frames have ended
}

// Bounds on what a watcher holds, whatever the output.
const (
	maxRaceRead    = 400
	maxCrashRead   = 200
	maxWatchedLine = 1 << 10
)

// line reads one complete line, without its newline.
func (w *watcher) line(l string) {
	w.mu.Lock()
	var report string
	defer func() {
		w.mu.Unlock()
		if report != "" && w.onRace != nil {
			w.onRace(report)
		}
	}()
	l = strings.TrimRight(strings.TrimPrefix(l, "\x16"), "\r")
	if len(l) > maxWatchedLine {
		l = l[:maxWatchedLine]
	}
	if w.race != nil {
		if strings.HasPrefix(l, "==================") {
			report, w.race = w.cutRace(w.race), nil
			return
		}
		if len(w.race) < maxRaceRead {
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

// crashed returns the message of the last crash seen and its frames in
// the learner's files, or ok false if the stream held no crash.
func (w *watcher) crashed() (c crash, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.crash == nil {
		return crash{}, false
	}
	return w.parseCrash(w.crash), true
}

// crash is what the runtime printed as a process died, cut for a learner.
type crash struct {
	message []string // "fatal error: concurrent map writes", and the lines under it
	frames  []frame  // the learner's frames of the goroutine that crashed
}

// parseCrash reads a crash from its message to the end of its first
// goroutine's frames.
func (w *watcher) parseCrash(lines []string) crash {
	var c crash
	i := 0
	for ; i < len(lines) && lines[i] != ""; i++ {
		if !strings.HasPrefix(lines[i], "goroutine ") && len(c.message) < 3 {
			c.message = append(c.message, protocol.CutLine(strings.TrimSpace(lines[i]), 200)) // short enough for one line of a Reason
		}
	}
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "goroutine ") && strings.HasSuffix(lines[i], ":") {
			c.frames = w.learnerFrames(traceFrames(lines[i+1:]))
			break
		}
	}
	return c
}

// text is the crash as exit.Crash carries it.
func (c crash) text() string {
	lines := append([]string(nil), c.message...)
	for _, f := range c.frames {
		if len(lines) == maxCrashLines {
			break
		}
		lines = append(lines, frameLine(f))
	}
	return strings.Join(lines, "\n")
}

// headline is the crash in one line: its message and the learner's line
// it came from, "fatal error: concurrent map writes (ladder/x/x.go:41)".
func (c crash) headline() string {
	msg := "a crash with no message"
	if len(c.message) > 0 {
		msg = c.message[0]
	}
	if len(c.frames) > 0 {
		msg += fmt.Sprintf(" (%s:%d)", c.frames[0].file, c.frames[0].line)
	}
	return msg
}

// timeout returns go test's own time limit, "10m0s", if the crash is the
// testing package's panic at its -timeout.
func (c crash) timeout() (string, bool) {
	if len(c.message) == 0 {
		return "", false
	}
	return strings.CutPrefix(c.message[0], "panic: test timed out after ")
}

// cutRace cuts a race report down to its headline and its two accesses,
// each with the learner's frames only.
func (w *watcher) cutRace(lines []string) string {
	out := []string{lines[0]}
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if !isAccess(l) {
			continue
		}
		var body []string
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") {
			i++
			body = append(body, lines[i])
		}
		frames := w.learnerFrames(traceFrames(body))
		out = append(out, l)
		if len(frames) == 0 {
			out = append(out, "  (no frame in your own files)")
		}
		for _, f := range frames {
			out = append(out, frameLine(f))
		}
	}
	if len(out) > maxRaceLines {
		out = out[:maxRaceLines]
	}
	return strings.Join(out, "\n")
}

// isAccess recognises a race report's access line: "Write at 0x... by
// goroutine 8:", "Previous read at 0x... by main goroutine:".
func isAccess(l string) bool {
	if !strings.Contains(l, " at 0x") || !strings.HasSuffix(l, ":") || !strings.Contains(l, " by ") {
		return false
	}
	for _, p := range []string{"Read ", "Write ", "Previous read ", "Previous write ", "Atomic ", "Previous atomic "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// traceFrames reads the frames of a Go traceback or of one access of a
// race report: a function line, then its file:line indented under it.
func traceFrames(lines []string) []frame {
	var frames []frame
	for i := 0; i+1 < len(lines); i++ {
		fn, loc := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
		if fn == "" {
			break
		}
		if !strings.HasPrefix(lines[i+1], "\t") && !strings.HasPrefix(lines[i+1], "    ") {
			continue // not a function and its place: "...additional frames elided..."
		}
		i++
		frames = append(frames, frameOf(fn, loc))
	}
	return frames
}

func frameOf(fn, loc string) frame {
	f := protocol.FrameOf(fn, loc)
	return frame{function: f.Function, file: f.File, line: f.Line}
}

// sourceFile writes a traceback's file relative to the repository's top
// folder; a binary built with -trimpath names the module's files by their
// import path instead.
func (w *watcher) sourceFile(path string) string {
	if rel, err := filepath.Rel(w.root, path); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(path) {
		return filepath.ToSlash(rel)
	}
	if s, ok := strings.CutPrefix(path, w.modulePath()+"/"); ok {
		return s
	}
	return path
}

// modulePath is the root module's path, from its go.mod.
func (w *watcher) modulePath() string {
	b, _ := os.ReadFile(filepath.Join(w.root, "go.mod"))
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`)
		}
	}
	return "\x00" // no module: no path starts with it
}

// learnerFrames keeps the frames in the learner's own files, named from
// the top folder: inside the repository, and neither the harness nor a
// spec, except tests' own files (a spec's mutants live in _test.go files).
func (w *watcher) learnerFrames(frames []frame) []frame {
	var out []frame
	for _, f := range frames {
		f.file = w.sourceFile(f.file)
		if _, err := os.Stat(filepath.Join(w.root, filepath.FromSlash(f.file))); err == nil && levels.InLearnersCode(f.file) {
			out = append(out, f)
		}
	}
	return out
}

// frame is one function of a traceback, and its place.
type frame struct {
	function string
	file     string
	line     int
}

// frameLine writes a frame as the cut reports show it.
func frameLine(f frame) string {
	return fmt.Sprintf("  %s  %s:%d", f.function, f.file, f.line)
}
