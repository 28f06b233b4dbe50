package timeline

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// state follows the runner's events, and gathers what the supervisor saw
// of the child's end, for judge.
type state struct {
	mu     sync.Mutex
	events []protocol.Event
	runs   map[string]bool           // tests whose Run started and has not ended
	open   map[string]protocol.Event // cases started and not ended, by test name
	last   *protocol.Event           // the last case that started

	// endKnown says the child was asked to mark the testing package's own
	// end (see endMarker), and ended that it did.
	endKnown, ended bool
	// closed are the streams the child closed while it still ran.
	closed []closing
	exited bool // the child has been waited for
	// junk counts lines on the events pipe that the runner did not write,
	// and junkDuring says when the first came.
	junk       int
	junkDuring string
	// crash is what the runtime printed as the child died, if it did.
	crash *crash
}

// closing is a stream of the child's that closed before the child ended.
type closing struct {
	stream string    // "stdout", "stderr" or "events"
	during string    // the case open then, as judge writes it
	at     time.Time // when it closed
	sure   bool      // the child was seen running after it closed
	exact  bool      // the runner told it, in the order of its events
}

// closeSlack is how long before the child's exit a stream may close, as
// all do at its end, when the system cannot say whether the child still ran.
const closeSlack = 250 * time.Millisecond

// maxEventLine is the longest line read as an event.
const maxEventLine = 4 << 20

// read reads the runner's events until the pipe closes, and returns the
// error that ended it: io.EOF when the child's end closed.
func (s *state) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > maxEventLine {
				tooLong, line = true, line[:0]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 || tooLong {
			s.take(line, tooLong)
		}
		line, tooLong = line[:0], false
		if err != nil {
			return err
		}
	}
}

// take follows one line of the events pipe. The runner writes each event
// whole, and ends only cases and runs it started: anything else came from
// elsewhere, and is not trusted.
func (s *state) take(line []byte, tooLong bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs, s.open = map[string]bool{}, map[string]protocol.Event{}
	}
	var e protocol.Event
	ok := !tooLong && json.Unmarshal(line, &e) == nil
	if ok {
		switch e.Kind {
		case protocol.RunStart:
			s.runs[e.Test] = true
		case protocol.RunEnd:
			ok = s.runs[e.Test]
			delete(s.runs, e.Test)
		case protocol.CaseStart:
			s.open[e.Test] = e
			s.last = &e
		case protocol.CaseEnd:
			_, ok = s.open[e.Test]
			delete(s.open, e.Test)
		case protocol.Closed:
			// The runner saw stdout or stderr closed, as it emitted the
			// event after this one: a note for judge, not for the results.
			if e.Report == "stdout" || e.Report == "stderr" {
				s.closed = append(s.closed, closing{stream: e.Report, during: s.duringLocked(), at: time.Now(), sure: true, exact: true})
				return
			}
			ok = false
		default:
			ok = false
		}
	}
	if !ok {
		if s.junk++; s.junk == 1 {
			s.junkDuring = s.duringLocked()
		}
		return
	}
	s.events = append(s.events, e)
}

// openCaseLocked is one of the cases open now, the same one each time.
func (s *state) openCaseLocked() (protocol.Event, bool) {
	var c protocol.Event
	for _, e := range s.open {
		if c.Test == "" || e.Test < c.Test {
			c = e
		}
	}
	return c, c.Test != ""
}

// duringLocked says when in the run we are, for a Reason: " during case
// "b" of part 2".
func (s *state) duringLocked() string {
	if c, ok := s.openCaseLocked(); ok {
		return fmt.Sprintf(" during case %q of part %d", c.Case, c.Part)
	}
	if s.last != nil {
		return fmt.Sprintf(" after case %q of part %d ended, outside any case", s.last.Case, s.last.Part)
	}
	return " before any case started"
}

// addRace records a race report, with the case open as it came.
func (s *state) addRace(report string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := protocol.Event{Kind: protocol.Race, Report: report}
	if c, ok := s.openCaseLocked(); ok {
		e.Test, e.Case, e.Part = c.Test, c.Case, c.Part
	}
	s.events = append(s.events, e)
}

// noteClosed records that one of the child's streams closed; sure says
// the child still ran then.
func (s *state) noteClosed(stream string, sure bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited && !sure {
		return // closed as the child ended
	}
	s.closed = append(s.closed, closing{stream: stream, during: s.duringLocked(), at: time.Now(), sure: sure})
}

// settleClosings keeps, of the streams closed before the child exited at
// exitAt, those its own code closed.
func (s *state) settleClosings(exitAt time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exited = true
	kept := s.closed[:0]
	for _, c := range s.closed {
		if c.sure || exitAt.Sub(c.at) > closeSlack {
			kept = append(kept, c)
		}
	}
	s.closed = kept
}

// judge decides whether the child ran to its own end, and if not, why not,
// in words that stand alone: the output above may have been cut.
func (s *state) judge(exit protocol.Event, lastLine string) (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	const none = " Nothing in it counts as done."
	during := s.duringLocked()
	switch {
	case exit.Signal != "":
		why := "."
		if exit.Signal == syscall.SIGKILL.String() {
			why = ": the system may have run out of memory, or a time limit stopped it."
		}
		return false, fmt.Sprintf("the test binary was killed by signal %q%s%s"+none, exit.Signal, during, why)
	case exit.Reason != "":
		return false, "the test binary could not be waited for: " + exit.Reason
	case exit.Status == 2 && s.crash != nil:
		if limit, ok := s.crash.timeout(); ok {
			return false, fmt.Sprintf("the test binary reached go test's time limit (-timeout %s)%s."+none, limit, during)
		}
		return false, fmt.Sprintf("the test binary crashed%s: %s."+none, during, s.crash.headline())
	case len(s.closed) > 0:
		c := s.closed[0]
		for _, e := range s.closed {
			if e.exact && e.stream == c.stream {
				c = e
				break
			}
		}
		switch c.stream {
		case "events":
			return false, fmt.Sprintf("the runner's results channel (file descriptor 3) was closed%s: does your code close files it did not open?"+none, c.during)
		case "stderr":
			return false, fmt.Sprintf("your code closed the test binary's standard error (os.Stderr.Close?)%s."+none, c.during)
		}
		return false, fmt.Sprintf("your code closed the test binary's standard output (os.Stdout.Close?)%s."+none, c.during)
	case s.junk > 0:
		return false, fmt.Sprintf("something other than the runner wrote to the runner's results channel (file descriptor 3)%s: does your code write to files it did not open?"+none, s.junkDuring)
	case len(s.open) > 0 || len(s.runs) > 0 || !endsNormally(exit.Status, lastLine) || s.endKnown && !s.ended:
		why := ": does your code call os.Exit or syscall.Exit?"
		switch {
		case exit.Status == 66 && len(s.open) == 0:
			return false, fmt.Sprintf("the race detector found a data race outside the cases%s. Nothing in this test binary counts as done.", s.raceWhereLocked())
		case exit.Status == 2:
			why = ": does your code call os.Exit(2)? A crash prints a message, and none came."
		case s.last == nil && exit.Status == 0:
			why = ": does an init function in your code call os.Exit?"
		}
		return false, fmt.Sprintf("the test binary exited with status %d%s%s"+none, exit.Status, during, why)
	}
	return true, ""
}

// raceWhereLocked is the first learner's line of the first race report,
// as " (ladder/x/x.go:41)", or "".
func (s *state) raceWhereLocked() string {
	for _, e := range s.events {
		if e.Kind != protocol.Race {
			continue
		}
		for _, l := range strings.Split(e.Report, "\n") {
			if f := strings.Fields(l); len(f) == 2 && strings.Contains(f[1], ".go:") {
				return " (" + f[1] + ")"
			}
		}
	}
	return ""
}

// endsNormally reports whether a test binary's last line of output is the
// one the testing package prints for its exit status.
func endsNormally(status int, lastLine string) bool {
	switch status {
	case 0:
		return lastLine == "PASS"
	case 1:
		return lastLine == "FAIL"
	}
	return false
}
