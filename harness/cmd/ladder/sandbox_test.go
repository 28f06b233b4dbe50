package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSandboxEnvKeepsNoSecrets(t *testing.T) {
	for _, kv := range [][2]string{
		{"GITHUB_TOKEN", "ghp_secret"},
		{"AWS_SECRET_ACCESS_KEY", "secret"},
		{"OPENAI_API_KEY", "secret"},
		{"SSH_AUTH_SOCK", "/tmp/agent.sock"},
		{"NETRC", "/root/.netrc"},
		{"GOFLAGS", "-mod=mod"},
		{"GOPROXY", "https://user:secret@proxy.example.com"},
		{"LADDER_STUBCHECK", "1"},
		{"HOME", "/home/instructor"},
	} {
		t.Setenv(kv[0], kv[1])
	}
	sb, err := newSandbox(t.TempDir(), "s", "/modcache/cache/download")
	require.NoError(t, err)
	env := map[string]string{}
	for _, kv := range sb.Env() {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := env[k]; dup {
			t.Errorf("%s is set twice", k)
		}
		env[k] = v
	}
	for _, k := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "SSH_AUTH_SOCK", "NETRC", "LADDER_STUBCHECK"} {
		if v, ok := env[k]; ok {
			t.Errorf("the sandbox passes %s=%s on", k, v)
		}
	}
	for _, k := range []string{"HOME", "TMPDIR", "GOCACHE", "GOMODCACHE", "GOPATH"} {
		if !strings.HasPrefix(env[k], sb.Dir+string(filepath.Separator)) {
			t.Errorf("%s=%s, want a folder inside the sandbox %s", k, env[k], sb.Dir)
		}
	}
	want := map[string]string{
		"GOPROXY":     "file:///modcache/cache/download",
		"GOFLAGS":     "-mod=readonly -trimpath -buildvcs=false",
		"GOSUMDB":     "off",
		"GOTOOLCHAIN": "local",
		"GOENV":       "off",
		"PATH":        os.Getenv("PATH"),
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s=%q, want %q", k, env[k], v)
		}
	}
}

// alive reports whether pid is a process that has not ended; a zombie
// waiting for its parent to reap it has ended.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.Signal(0)) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && runtime.GOOS != "linux"
	}
	// pid (comm) S ...: the state follows the last parenthesis.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits up to 5s for pid to end.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
	t.Errorf("process %d is still running", pid)
}

// readPID waits up to 5s for a file holding a process ID.
func readPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
			return pid
		}
	}
	t.Fatalf("%s holds no process ID", path)
	return 0
}

func TestRunLimitedKillsTheWholeGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are Unix")
	}
	dir := t.TempDir()
	t.Run("at the limit", func(t *testing.T) {
		pidFile := filepath.Join(dir, "child-a")
		// The shell waits on a child that sleeps an hour, as go test waits
		// on a test binary.
		cmd := exec.Command("sh", "-c", `sleep 3600 & echo $! > "$1"; wait`, "sh", pidFile)
		start := time.Now()
		stopped, err := runLimited(context.Background(), 300*time.Millisecond, cmd)
		require.NoError(t, err)
		require.True(t, stopped, "runLimited did not report the limit")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("runLimited returned after %v, want soon after the limit of 300ms", d)
		}
		waitGone(t, readPID(t, pidFile))
	})
	t.Run("after a normal exit", func(t *testing.T) {
		pidFile := filepath.Join(dir, "child-b")
		// The shell exits at once and leaves a child behind, holding its
		// output open.
		var out bytes.Buffer
		cmd := exec.Command("sh", "-c", `sleep 3600 & echo $! > "$1"; echo done`, "sh", pidFile)
		cmd.Stdout = &out
		start := time.Now()
		stopped, err := runLimited(context.Background(), time.Minute, cmd)
		require.NoError(t, err)
		require.False(t, stopped)
		require.Equal(t, "done\n", out.String())
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("runLimited returned after %v, want at once", d)
		}
		waitGone(t, readPID(t, pidFile))
	})
	t.Run("when the context ends", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		stopped, err := runLimited(ctx, time.Hour, exec.Command("sleep", "3600"))
		require.NoError(t, err)
		require.True(t, stopped)
	})
	t.Run("a failing command", func(t *testing.T) {
		var errOut bytes.Buffer
		cmd := exec.Command("sh", "-c", "echo oops >&2; exit 3")
		cmd.Stderr = &errOut
		stopped, err := runLimited(context.Background(), time.Minute, cmd)
		require.False(t, stopped)
		require.ErrorContains(t, err, "exit status 3")
		require.Equal(t, "oops\n", errOut.String())
	})
}

func TestRemoveAllDeletesReadOnlyFolders(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	sub := filepath.Join(dir, "mod", "example.com@v1.0.0")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "a.go"), []byte("package a\n"), 0o444))
	require.NoError(t, os.Chmod(sub, 0o555))
	require.NoError(t, removeAll(dir))
	_, err := os.Stat(dir)
	require.True(t, os.IsNotExist(err), "the folder is still there: %v", err)
}

func TestCappedBufferKeepsTheStart(t *testing.T) {
	b := &cappedBuffer{Max: 5}
	for _, s := range []string{"abc", "defg", "hij"} {
		n, err := b.Write([]byte(s))
		require.NoError(t, err)
		require.Equal(t, len(s), n, "Write must report all of p written, or exec stops copying")
	}
	require.Equal(t, "abcde", b.String())
	require.Equal(t, int64(5), b.Dropped)
}
