package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestInterviewKeysInATerminal plays ladder interview 3 in a tmux pane, a
// real terminal: h shows a hint, c the clarifying questions, a number an
// answer, and q ends the interview with its summary and gives the
// terminal back as it was.
func TestInterviewKeysInATerminal(t *testing.T) {
	slow(t, "builds the ladder command and runs an interview of level 3 in tmux", "go", "tmux")
	dir := copyRepo(t, "ladder/03-token-bucket")
	bin := filepath.Join(dir, ".ladder", "ladder")
	out, code := runIn(t, dir, "go", "build", "-o", bin, "./harness/cmd/ladder")
	require.Equal(t, 0, code, out)

	// A tmux server of its own, on a socket in the test's folder.
	socket := filepath.Join(t.TempDir(), "tmux")
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("tmux", append([]string{"-S", socket}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "tmux %v: %s", args, out)
		return string(out)
	}
	// After the interview, stty says whether the terminal is back to its
	// usual mode; the pane stays open to be read.
	script := fmt.Sprintf(`%q interview 3; echo "exit $?"; stty -a | tr ' ' '\n' | grep -x -e icanon -e echo; echo stty done; sleep 600`, bin)
	tmux("new-session", "-d", "-x", "100", "-y", "40", "-c", dir, "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() })

	screen := ""
	waitFor := func(why string, wait time.Duration, wants ...string) {
		t.Helper()
		for end := time.Now().Add(wait); ; {
			screen = tmux("capture-pane", "-p", "-J", "-S", "-")
			missing := false
			for _, w := range wants {
				missing = missing || !strings.Contains(screen, w)
			}
			if !missing {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%s: the pane lacks %q after %s:\n%s", why, wants, wait, screen)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitFor("the question", 5*time.Minute, "The clock is running.", "[interview: level 3, part 1 of 3")
	containsAll(t, screen, "Q3. What does a denied request cost?", "Q1 to Q8 are clarifying questions", "Keys: h hint")
	require.NotContains(t, screen, "A denied request changes nothing")

	tmux("send-keys", "h")
	waitFor("after h", 30*time.Second, "Level 3, part 1, hint 1 of ", "this hint counts in its summary")
	tmux("send-keys", "c")
	waitFor("after c", 30*time.Second, "--- Clarifying questions ", "  Q3. What does a denied request cost?")
	tmux("send-keys", "3")
	waitFor("after 3", 30*time.Second, "--- Q3. What does a denied request cost? ---", "A denied request changes nothing")
	tmux("send-keys", "q")
	waitFor("after q", time.Minute, "exit 0", "stty done")

	lines := strings.Split(screen, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	// Each line starts at the left edge: raw mode's "\r\n" was written.
	for _, want := range []string{
		"Interview stopped.",
		"Interview summary: level 3, Token bucket",
		"Hints asked for (make hint-3 during the interview): 1.",
		"Clarifying questions asked: 1 of 8.",
		"  What does a denied request cost? (part 1, before its first run)",
		"exit 0", "icanon", "echo",
	} {
		require.Contains(t, lines, want, "a line of its own in the pane:\n%s", screen)
	}
}
