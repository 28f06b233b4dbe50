package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/internal/sandbox/sandboxtest"
)

func TestSandboxEnvIsBuiltFromNothing(t *testing.T) {
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
		{"LD_PRELOAD", "/home/instructor/hook.so"},
		{"PATH", "/home/instructor/bin:" + os.Getenv("PATH")},
	} {
		t.Setenv(kv[0], kv[1])
	}
	sb, err := New(t.TempDir(), "s", "/modcache/cache/download", nil, false)
	require.NoError(t, err)
	env := map[string]string{}
	for _, kv := range sb.Env() {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := env[k]; dup {
			t.Errorf("%s is set twice", k)
		}
		env[k] = v
	}
	for _, k := range []string{"HOME", "TMPDIR", "GOCACHE", "GOMODCACHE", "GOPATH"} {
		if !strings.HasPrefix(env[k], sb.Dir+string(filepath.Separator)) {
			t.Errorf("%s=%s, want a folder inside the sandbox %s", k, env[k], sb.Dir)
		}
		delete(env, k)
	}
	goroot := ToolchainRoot()
	want := map[string]string{
		"PATH":        filepath.Join(goroot, "bin") + string(filepath.ListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		"GOROOT":      goroot,
		"GOPROXY":     "file:///modcache/cache/download",
		"GOFLAGS":     "-mod=readonly -trimpath -buildvcs=false -ldflags=-w",
		"GOSUMDB":     "off",
		"GOTOOLCHAIN": "local",
		"GOENV":       "off",
		"CGO_ENABLED": "0",
		"GORACE":      "atexit_sleep_ms=0",
	}
	// Nothing but these: every other variable of the instructor's, set
	// above or not, stays out.
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("the sandbox's environment (-want +got):\n%s", diff)
	}
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
		stopped, err := RunLimited(context.Background(), 300*time.Millisecond, cmd)
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
		stopped, err := RunLimited(context.Background(), time.Minute, cmd)
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
		stopped, err := RunLimited(ctx, time.Hour, exec.Command("sleep", "3600"))
		require.NoError(t, err)
		require.True(t, stopped)
	})
	t.Run("a failing command", func(t *testing.T) {
		var errOut bytes.Buffer
		cmd := exec.Command("sh", "-c", "echo oops >&2; exit 3")
		cmd.Stderr = &errOut
		stopped, err := RunLimited(context.Background(), time.Minute, cmd)
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
	require.NoError(t, RemoveAll(dir))
	_, err := os.Stat(dir)
	require.True(t, os.IsNotExist(err), "the folder is still there: %v", err)
}

// escapeScript tries to get out of its sandbox, and says what it managed
// and what it saw. Its arguments: a marker for its file and process names,
// a TCP port of the instructor's loopback, and a folder of the
// instructor's. It looks for the instructor's secret by its name in every
// environment it can read, and for the instructor's decoy process by its
// command line ("deco[y]", so that grep does not find itself).
const escapeScript = `m=$1 port=$2 outside=$3
bash -c "echo hi > /dev/tcp/127.0.0.1/$port" 2>/dev/null && echo "network: reached"
setsid sh -c "while :; do echo alive > /tmp/$m-daemon; sleep 0.1; done; : $m" </dev/null >/dev/null 2>&1 &
while [ ! -f /tmp/$m-daemon ]; do sleep 0.05; done
echo "daemon: started"
echo x > /tmp/$m-tmp && echo "/tmp: written"
echo x > "$HOME/$m" && echo "home: written"
echo x > "$outside/$m" 2>/dev/null && echo "outside: written"
echo x > "$PWD/$m" 2>/dev/null && echo "grading copy: written"
for p in /proc/[0-9]*; do cat $p/environ $p/cmdline 2>/dev/null; done | tr '\0' '\n' | grep -q -e "^MY_SECRET_TOKEN=" -e "^$m-deco[y]$" && echo "secret: read"
grep -q '^CapEff:.*[1-9a-f]' /proc/self/status && echo "capabilities: kept"
unshare -U true 2>/dev/null && echo "user namespace: made"
echo "processes: $(ls -d /proc/[0-9]* | wc -l)"
ls "$(dirname "$(dirname "$HOME")")" | sed 's/^/beside: /'
env | sort | sed 's/^/env: /'
`

func TestSandboxKeepsEverythingIn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	j := needJail(t)
	marker := fmt.Sprintf("ladder-escape-%d", time.Now().UnixNano())
	// A process of the instructor's with a secret in its environment, as
	// the report itself has: out of sight only in a PID namespace.
	decoy := exec.Command("sh", "-c", "sleep 60", marker+"-decoy")
	decoy.Env = append(os.Environ(), "MY_SECRET_TOKEN=tok-"+marker)
	procgroup.Own(decoy) // its sleep goes with it
	require.NoError(t, decoy.Start())
	defer procgroup.Kill(decoy.Process)
	t.Setenv("MY_SECRET_TOKEN", "tok-"+marker)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	outside := t.TempDir()
	sb, err := New(t.TempDir(), "student-000", "", j, false)
	require.NoError(t, err)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	cmd := sb.Command(sb.Src, "sh", "-c", escapeScript, "sh", marker, port, outside)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	stopped, err := RunLimited(context.Background(), time.Minute, cmd)
	require.NoError(t, err, out.String()+errOut.String())
	require.False(t, stopped, out.String()+errOut.String())

	got := out.String()
	for _, want := range []string{"daemon: started\n", "/tmp: written\n", "home: written\n", "beside: student-000\n"} {
		require.Contains(t, got, want, "the script did not run to its end, or the sandbox is too tight")
	}
	for _, leak := range []string{"network: reached", "outside: written", "grading copy: written", "secret: read", "MY_SECRET_TOKEN", "capabilities: kept", "user namespace: made"} {
		if strings.Contains(got, leak) {
			t.Errorf("the sandboxed script printed %q:\n%s", leak, got)
		}
	}
	if n := strings.Count(got, "beside: "); n != 1 {
		t.Errorf("the sandbox's parent folder shows %d entries, want its own alone:\n%s", n, got)
	}
	// sh, the script's subshells and the daemon: a handful, not the machine's.
	if m := regexp.MustCompile(`processes: (\d+)`).FindStringSubmatch(got); m == nil {
		t.Errorf("no process count:\n%s", got)
	} else if n, _ := strconv.Atoi(m[1]); n > 10 {
		t.Errorf("/proc in the sandbox shows %d processes, want the sandbox's own (a few)", n)
	}
	// sh adds PWD (and OLDPWD, SHLVL, _); nothing else beyond Env.
	var want []string
	for _, kv := range sb.Env() {
		name, _, _ := strings.Cut(kv, "=")
		want = append(want, name)
	}
	for _, line := range strings.Split(got, "\n") {
		if kv, ok := strings.CutPrefix(line, "env: "); ok {
			name, _, _ := strings.Cut(kv, "=")
			if !slices.Contains(want, name) && !slices.Contains([]string{"PWD", "OLDPWD", "SHLVL", "_"}, name) {
				t.Errorf("the sandbox's environment has %s", name)
			}
		}
	}

	sandboxtest.WaitNoProcessWith(t, ": "+marker)
	select {
	case <-accepted:
		t.Errorf("the sandbox reached a port of the instructor's loopback")
	default:
	}
	for _, p := range []string{"/tmp/" + marker + "-tmp", "/tmp/" + marker + "-daemon", filepath.Join(outside, marker)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the sandbox wrote %s", p)
			os.Remove(p)
		}
	}
	// The sandbox's own folder is the one place it writes.
	_, err = os.Stat(filepath.Join(sb.Home, marker))
	require.NoError(t, err, "the sandbox's HOME is not writable")
}

func TestSandboxEndsItsPIDNamespaceAtTheLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	j := needJail(t)
	marker := fmt.Sprintf("ladder-limit-%d", time.Now().UnixNano())
	sb, err := New(t.TempDir(), "s", "", j, false)
	require.NoError(t, err)
	// A daemon in a session of its own, and a command that never ends.
	cmd := sb.Command(sb.Src, "sh", "-c", `setsid sh -c "sleep 3600; : $1" </dev/null >/dev/null 2>&1 & sleep 3600`, "sh", marker)
	done := make(chan struct{})
	var seen bool
	go func() {
		defer close(done)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !seen; time.Sleep(10 * time.Millisecond) {
			seen = len(sandboxtest.ProcessesWith(": "+marker)) > 0
		}
	}()
	stopped, err := RunLimited(context.Background(), 2*time.Second, cmd)
	require.NoError(t, err)
	require.True(t, stopped)
	<-done
	require.True(t, seen, "the daemon never started")
	sandboxtest.WaitNoProcessWith(t, ": "+marker)
}

var testJail = sync.OnceValues(FindJail)

// needJail returns this machine's sandbox, or skips the test (see
// sandboxtest.Need).
func needJail(t *testing.T) *Jail {
	t.Helper()
	j, err := testJail()
	sandboxtest.Need(t, err)
	return j
}

// waitGone waits up to 5s for pid to end.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !sandboxtest.Alive(pid) {
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

// The race detector needs cgo, which the sandbox otherwise leaves off:
// either spelling of the flag turns it on, and nothing else does.
func TestRaceTurnsCgoOn(t *testing.T) {
	sb, err := New(t.TempDir(), "student-000", "", nil, false)
	require.NoError(t, err)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "-race", "./..."}, "CGO_ENABLED=1"},
		{[]string{"test", "-race=true", "./..."}, "CGO_ENABLED=1"},
		{[]string{"test", "-race=false", "./..."}, "CGO_ENABLED=0"},
		{[]string{"test", "./..."}, "CGO_ENABLED=0"},
	} {
		if env := sb.Command(sb.Src, "go", tc.args...).Env; !slices.Contains(env, tc.want) {
			t.Errorf("Command(go %v).Env lacks %s: %v", tc.args, tc.want, env)
		}
	}
}
