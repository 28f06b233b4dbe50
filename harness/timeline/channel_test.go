package timeline

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// TestEventsReachTheNumberTheEnvironmentNames: the child finds its end of
// the events pipe by the number in protocol.EventsEnv alone, as on Windows,
// where it is a handle. Here another file takes fd 3 first, so the pipe is
// fd 4: a child that took fd 3 for granted would send nothing.
func TestEventsReachTheNumberTheEnvironmentNames(t *testing.T) {
	if runtime.GOOS == "plan9" {
		t.Skip("no events pipe here")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSupervisorProbe$")
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(protocol.SupervisorEnv, name) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// The child is the one the supervisor would start: it runs unsupervised,
	// and plays one case that does nothing.
	cmd.Env = append(cmd.Env, protocol.ChildEnv+"=1", probeEnv+"=nothing")
	if runtime.GOOS != "windows" {
		other, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		cmd.ExtraFiles = []*os.File{other}
	}
	if err := passEvents(cmd, w); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && !slices.Contains(cmd.Env, protocol.EventsEnv+"=4") {
		t.Errorf("passEvents after one extra file set %s=%q, want 4", protocol.EventsEnv, envValue(cmd.Env, protocol.EventsEnv))
	}
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var kinds []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var e protocol.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Errorf("event line %q: %v", sc.Text(), err)
		}
		kinds = append(kinds, e.Kind)
	}
	if err := cmd.Wait(); err != nil {
		b, _ := os.ReadFile(out.Name())
		t.Fatalf("the child: %v\n%s", err, b)
	}
	want := []string{protocol.RunStart, protocol.CaseStart, protocol.CaseEnd, protocol.RunEnd}
	if !slices.Equal(kinds, want) {
		t.Errorf("events through the pipe = %q, want %q", kinds, want)
	}
}

func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}
