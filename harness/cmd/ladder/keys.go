package main

import (
	"bytes"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// terminalKeys lets watch and interview mode read single keys. When stdin
// and stdout are a terminal, it puts it in raw mode and returns the keys
// typed, with writers that end lines as raw mode needs; restore puts the
// terminal back. Without a terminal it changes nothing, and keys is nil.
func terminalKeys(stdout, stderr io.Writer, interrupt chan os.Signal) (keys <-chan byte, out, errOut io.Writer, restore func()) {
	f, ok := stdout.(*os.File)
	in := int(os.Stdin.Fd())
	if !ok || !term.IsTerminal(in) || !term.IsTerminal(int(f.Fd())) {
		return nil, stdout, stderr, func() {}
	}
	old, err := term.MakeRaw(in)
	if err != nil {
		return nil, stdout, stderr, func() {}
	}
	// In raw mode Ctrl-C is a key (see readKeys), and a kill must not
	// leave the terminal raw: SIGTERM ends the loop as Ctrl-C does.
	signal.Notify(interrupt, syscall.SIGTERM)
	c := make(chan byte, 16)
	go readKeys(os.Stdin, c, interrupt)
	return c, crlf{stdout}, crlf{stderr}, func() { term.Restore(in, old) }
}

// readKeys passes on the keys read from r until it fails. Ctrl-C and q
// interrupt instead: the process sends itself SIGINT, which a test run
// under way hears too, or where it cannot (Windows) tells the loop alone.
func readKeys(r io.Reader, keys chan<- byte, interrupt chan<- os.Signal) {
	buf := make([]byte, 64)
	for {
		n, err := r.Read(buf)
		for _, k := range buf[:n] {
			if k == 3 || k == 'q' { // 3 is Ctrl-C
				if p, err := os.FindProcess(os.Getpid()); err != nil || p.Signal(os.Interrupt) != nil {
					select {
					case interrupt <- os.Interrupt:
					default:
					}
				}
				continue
			}
			select {
			case keys <- k:
			default: // keys typed faster than they are done: drop them
			}
		}
		if err != nil {
			return
		}
	}
}

// crlf ends every line with "\r\n": in raw mode "\n" moves down a line but
// not back to its start.
type crlf struct{ w io.Writer }

func (c crlf) Write(p []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
