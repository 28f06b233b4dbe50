//go:build unix

package procgroup

import (
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestKillEndsWhatTheChildStarted: a shell started with Own starts a
// sleep that holds the shell's stdout open, and exits. Kill on the shell's
// process ID still reaches the sleep: its end of the pipe closes, where
// the sleep alone would keep it open for a minute.
func TestKillEndsWhatTheChildStarted(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on the PATH")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("sh", "-c", "sleep 60 & echo started")
	cmd.Stdout = w
	Own(cmd)
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	Kill(cmd.Process)
	r.SetReadDeadline(time.Now().Add(10 * time.Second))
	if out, err := io.ReadAll(r); err != nil {
		t.Fatalf("after Kill of the shell's group, the sleep still holds the pipe open (read %q: %v)", out, err)
	}
}
