package timeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Output limits of the relay: a learner's print statements may write
// without end, and whoever reads go test's output must not have to hold it.
const (
	segmentHead = 64 << 10 // bytes kept from the start of each test's output
	segmentTail = 16 << 10 // and from its end
	totalLimit  = 8 << 20  // bytes relayed in all, framing lines included
	maxLastLine = 4 << 10  // the longest last line kept back for the end
)

// limitNotice is printed once, where the relay stops writing.
var limitNotice = fmt.Sprintf("\n[ladder: output limit of %d MB reached; the rest is cut]\n", totalLimit>>20)

// relayBudget is the bytes left to relay, shared by stdout and stderr.
type relayBudget struct {
	mu    sync.Mutex
	left  int
	spent bool // a write did not fit: nothing more is written
}

// take spends n bytes, and reports whether they fit. The first write that
// does not fit gets notice set, to print limitNotice.
func (b *relayBudget) take(n int) (ok, notice bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent || b.left < n {
		notice = !b.spent
		b.spent = true
		return false, notice
	}
	b.left -= n
	return true, false
}

func (b *relayBudget) isSpent() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// relay copies a child's output line by line, keeping of each test's
// output only its head and its tail, and within the shared budget.
type relay struct {
	dst    io.Writer
	budget *relayBudget
	// watch, if set, reads every complete line, written or not.
	watch *watcher
	// onEOF, if set, runs when the child's end of the stream closes.
	onEOF func()

	mu      sync.Mutex
	last    string // the last complete line, without its newline
	lastRaw []byte // and as it came; empty if longer than maxLastLine
	lastOut bool   // the last line was written
	segment int    // bytes of the current segment seen
	tail    []byte // the latest bytes past the head, up to segmentTail
	cut     int    // bytes cut from the current segment
}

func (r *relay) copy(src io.Reader) {
	br := bufio.NewReaderSize(src, 64<<10)
	startOfLine := true
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			r.write(chunk, startOfLine)
			startOfLine = chunk[len(chunk)-1] == '\n'
		}
		if errors.Is(err, io.EOF) && r.onEOF != nil {
			r.onEOF()
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	r.finish()
}

// framing reports whether a line is one of the testing package's own: a
// new segment starts there.
func framing(line []byte) bool {
	l := bytes.TrimLeft(bytes.TrimPrefix(line, []byte{0x16}), " ")
	for _, p := range []string{"=== ", "--- ", "PASS", "FAIL", "ok ", "panic: ", "WARNING: DATA RACE", "testing: "} {
		if bytes.HasPrefix(l, []byte(p)) {
			return true
		}
	}
	return false
}

func (r *relay) write(chunk []byte, startOfLine bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	isLast := false
	if startOfLine && chunk[len(chunk)-1] == '\n' {
		line := strings.TrimRight(string(chunk), "\r\n")
		if r.watch != nil {
			r.watch.line(line)
		}
		if !strings.HasPrefix(line, "coverage: ") {
			isLast, r.last = true, strings.TrimPrefix(line, "\x16")
			r.lastRaw = r.lastRaw[:0]
			if len(chunk) <= maxLastLine {
				r.lastRaw = append(r.lastRaw, chunk...)
			}
		}
	}
	written := false
	if startOfLine && framing(chunk) {
		r.flushTailLocked()
		r.segment = 0
		written = r.put(chunk)
	} else {
		r.segment += len(chunk)
		written = r.segment <= segmentHead && r.put(chunk)
		if !written {
			r.cut += len(chunk)
			r.tail = append(r.tail, chunk...)
			if len(r.tail) > 2*segmentTail {
				r.tail = append(r.tail[:0], r.tail[len(r.tail)-segmentTail:]...)
			}
		}
	}
	if isLast {
		r.lastOut = written
	}
}

// put writes b if the budget allows it.
func (r *relay) put(b []byte) bool {
	ok, notice := r.budget.take(len(b))
	if notice {
		io.WriteString(r.dst, limitNotice)
	}
	if ok {
		r.dst.Write(b)
	}
	return ok
}

// finish ends the relay: the tail of the last segment, and once the budget
// is spent, the last line all the same, so that whoever reads the output
// still sees how the test binary ended (PASS or FAIL).
func (r *relay) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushTailLocked()
	if !r.lastOut && len(r.lastRaw) > 0 && r.budget.isSpent() {
		r.dst.Write(r.lastRaw)
		r.lastOut = true
	}
}

func (r *relay) flushTailLocked() {
	if r.cut == 0 {
		return
	}
	tail := r.tail
	if len(tail) > segmentTail {
		tail = tail[len(tail)-segmentTail:]
	}
	cut := r.cut
	r.tail, r.cut = r.tail[:0], 0
	if r.budget.isSpent() {
		return // the limit's notice said it all
	}
	if !r.put([]byte(fmt.Sprintf("\n[ladder: %d bytes of output cut here; the last %d follow]\n", cut-len(tail), len(tail)))) {
		return
	}
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		tail = append(tail, '\n')
	}
	r.put(tail)
}

func (r *relay) lastLine() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}
