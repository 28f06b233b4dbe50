package protocol

import (
	"strconv"
	"strings"
)

// Frame is one function of a Go traceback, and its place.
type Frame struct {
	Function string // without its import path: "(*Store).Put"
	File     string // as the traceback writes it
	Line     int
}

// FrameOf reads one frame of a traceback: its function line,
// "pkg.f(0x1, 0x2)" or "created by pkg.g in goroutine 7", and the line
// under it, "\t/path/f.go:12 +0x1d".
func FrameOf(fn, loc string) Frame {
	fn = strings.TrimPrefix(strings.TrimSpace(fn), "created by ")
	if j := strings.Index(fn, " in goroutine "); j >= 0 {
		fn = fn[:j]
	}
	if j := strings.LastIndex(fn, "("); j > 0 && strings.HasSuffix(fn, ")") {
		fn = fn[:j]
	}
	loc = strings.TrimSpace(loc)
	if j := strings.LastIndex(loc, " +0x"); j >= 0 {
		loc = loc[:j]
	}
	f := Frame{Function: ShortFunc(fn), File: loc}
	if j := strings.LastIndex(loc, ":"); j >= 0 {
		f.File = loc[:j]
		f.Line, _ = strconv.Atoi(loc[j+1:])
	}
	return f
}

// ShortFunc drops a function's import path: "(*Store).Put".
func ShortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	if i := strings.Index(fn, "."); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}

// CutLine is the first line of s, cut to width runes with "…" at the end
// when it is longer.
func CutLine(s string, width int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > width {
		s = string(r[:width-1]) + "…"
	}
	return s
}
