package timeline

import (
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// events is the pipe to the supervisor (see supervise.go), or nil when the
// tests run unsupervised.
var events struct {
	sync.Mutex
	f *os.File
	// out names the files behind stdout and stderr as the child started,
	// and gone the ones already reported gone.
	out  [2]string
	gone [2]bool
}

// outStreams are the streams whose closing emit reports, by their fd.
var outStreams = [2]string{"stdout", "stderr"}

func init() {
	s := os.Getenv(protocol.EventsEnv)
	if s == "" {
		return
	}
	// Processes this one starts, such as a race-detector child or a fuzz
	// worker, must neither inherit the pipe nor believe they own it.
	os.Unsetenv(protocol.EventsEnv)
	events.f = openEvents(s)
	if events.f == nil {
		return
	}
	for i := range outStreams {
		events.out[i] = fileIdentity(i + 1)
	}
}

// passEvents hands the write end of the events pipe to the child (see
// inheritEvents) and names it in protocol.EventsEnv, the number
// openEvents reads.
func passEvents(cmd *exec.Cmd, w *os.File) error {
	n, err := inheritEvents(cmd, w)
	if err != nil {
		return err
	}
	cmd.Env = append(cmd.Env, protocol.EventsEnv+"="+strconv.FormatUint(n, 10))
	return nil
}

// openEvents opens the child's end of the events pipe, which the
// supervisor named in protocol.EventsEnv (see passEvents), or returns nil.
// A descriptor on Unix and a handle on Windows, it is a number either way.
func openEvents(s string) *os.File {
	fd, err := strconv.ParseUint(s, 10, 64)
	if err != nil || !closeOnExec(uintptr(fd)) {
		return nil
	}
	return os.NewFile(uintptr(fd), "ladder-events")
}

// emit sends one event to the supervisor. A lost event only makes the
// supervisor stricter: a case whose end it never hears of counts as not run.
func emit(e protocol.Event) {
	events.Lock()
	defer events.Unlock()
	if events.f == nil {
		return
	}
	// The supervisor sees stdout end, but not where among the events: a
	// stream the learner's code closed is told here, in the events' order.
	for i, stream := range outStreams {
		if events.out[i] != "" && !events.gone[i] && fileIdentity(i+1) != events.out[i] {
			events.gone[i] = true
			write(protocol.Event{Kind: protocol.Closed, Test: e.Test, Case: e.Case, Part: e.Part, Report: stream})
		}
	}
	write(e)
}

func write(e protocol.Event) {
	events.f.Write(e.Line())
}

// maxReport is the most of a report an event carries.
const maxReport = 32 << 10

func capReport(s string) string {
	if len(s) <= maxReport {
		return s
	}
	return s[:maxReport] + "\n… (report cut)"
}
