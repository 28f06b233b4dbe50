package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
)

// loudHalfDone is halfDone that also prints a megabyte each time it is
// built: about ninety megabytes across level 1's cases, whose memory
// probe builds dozens of counters.
func loudHalfDone(t *testing.T) string {
	return strings.NewReplacer(
		`import "time"`, "import (\n\t\"os\"\n\t\"strings\"\n\t\"time\"\n)\n\n"+
			`var noise = strings.Repeat("debug: a learner's print statement that never stops\n", 20_000)`,
		"return &Counter{window: window}", "os.Stdout.WriteString(noise)\n\treturn &Counter{window: window}",
	).Replace(halfDone(t))
}

func TestProgressStaysSmallWhenTheLearnerPrintsALot(t *testing.T) {
	slow(t, "prints about 90 MB through a copy of level 1")
	loud := loudHalfDone(t)
	require.Contains(t, loud, "os.Stdout.WriteString(noise)", "the loud counter must print")
	bin, err := ladderBin()
	require.NoError(t, err)
	dir := copyRepo(t, "ladder/01-hit-counter")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go"), []byte(loud), 0o644))

	cmd := exec.Command(bin, "progress", "--json")
	cmd.Dir = dir
	cmd.Env = grade.LearnerEnv()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var out strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
		}
	}()
	peak := 0 // kB; VmHWM only grows, so the last reading is the peak so far
	for {
		if kb := peakRSS(cmd.Process.Pid); kb > 0 {
			peak = kb
		}
		select {
		case <-done:
		case <-time.After(20 * time.Millisecond):
			continue
		}
		break
	}
	require.NoError(t, cmd.Wait())
	if peak == 0 {
		t.Skip("no /proc here to read the peak resident size from")
	}
	if peak > 150<<10 {
		t.Errorf("ladder progress peaked at %d MB resident, want under 150 MB", peak>>10)
	}
	var rep grade.Ladder
	require.NoError(t, json.Unmarshal([]byte(out.String()), &rep), out.String())
	l := rep.Levels[0]
	if !l.Parts[0].Done || l.Parts[1].Done || !strings.Contains(l.Why, `(part 2)`) {
		t.Errorf("level 1 = %d parts done, why %q; want part 1 done and the reason part 2 is not", l.PartsDone, l.Why)
	}
	t.Logf("peak resident size of ladder progress: %d MB", peak>>10)
}

// peakRSS reads a process's peak resident size in kB from /proc, or 0.
func peakRSS(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	return 0
}
