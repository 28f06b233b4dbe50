package sandbox

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The test binary is the go command's cache layer when run with
// CacheLayerCommand, as the ladder command is in a report's sandbox.
func init() {
	if len(os.Args) == 4 && os.Args[1] == CacheLayerCommand {
		if err := ServeCacheLayers(os.Args[2], os.Args[3], os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// layerTalk plays requests against ServeCacheLayers and returns its
// answers after the first, which lists the commands it knows.
func layerTalk(t *testing.T, base, own string, requests ...string) []cacheMessage {
	t.Helper()
	var out strings.Builder
	require.NoError(t, ServeCacheLayers(base, own, strings.NewReader(strings.Join(requests, "\n")+"\n"), &out))
	var answers []cacheMessage
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var r cacheMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		answers = append(answers, r)
	}
	require.Equal(t, []string{"get", "put", "close"}, answers[0].KnownCommands)
	return answers[1:]
}

func TestCacheLayersPutToOwnAndGetFromEither(t *testing.T) {
	base, own := t.TempDir(), t.TempDir()
	// "AQI=" is the action 01 02, "CQk=" the output 09 09, "aGk=" the body "hi".
	put := `{"ID":1,"Command":"put","ActionID":"AQI=","OutputID":"CQk=","BodySize":2}` + "\n" + `"aGk="`
	got := layerTalk(t, base, own, `{"ID":1,"Command":"get","ActionID":"AQI="}`, put, `{"ID":2,"Command":"get","ActionID":"AQI="}`, `{"ID":3,"Command":"close"}`)
	require.Len(t, got, 4)
	if !got[0].Miss {
		t.Errorf("get before any put = %+v, want a miss", got[0])
	}
	if body, err := os.ReadFile(got[1].DiskPath); err != nil || string(body) != "hi" || !strings.HasPrefix(got[1].DiskPath, own) {
		t.Errorf("put: DiskPath %q holds %q, %v; want the body, in own (%s)", got[1].DiskPath, body, err, own)
	}
	if g := got[2]; g.Miss || g.Size != 2 || string(g.OutputID) != "\x09\x09" || g.DiskPath != got[1].DiskPath || g.Time == nil {
		t.Errorf("get after put = %+v, want output 0909 of 2 bytes at %s", g, got[1].DiskPath)
	}
	if got[3].ID != 3 || got[3].Err != "" {
		t.Errorf("close = %+v, want a plain answer", got[3])
	}
	// What own holds, base serves alike, read-only.
	require.NoError(t, os.CopyFS(base, os.DirFS(own)))
	require.NoError(t, filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chmod(p, 0o444)
		}
		return err
	}))
	g := layerTalk(t, base, t.TempDir(), `{"ID":4,"Command":"get","ActionID":"AQI="}`)[0]
	if g.Miss || !strings.HasPrefix(g.DiskPath, base) {
		t.Errorf("get from base = %+v, want a hit in %s", g, base)
	}
}

// A build through the layers finds what the warm cache holds, and adds
// only what it built anew to its own cache, never to the warm one.
func TestABuildThroughTheLayersReusesTheWarmCacheAndLeavesItAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module twice")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	mod, base, own := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	main := filepath.Join(mod, "main.go")
	require.NoError(t, os.WriteFile(main, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }\n"), 0o644))
	build := func(env ...string) {
		t.Helper()
		cmd := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "m"), ".")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), append([]string{"GOFLAGS=", "GOCACHEPROG="}, env...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	build("GOCACHE=" + base)
	before := files(t, base)
	layered := []string{"GOCACHE=" + own, "GOCACHEPROG=" + exe + " " + CacheLayerCommand + " " + base + " " + own}
	build(layered...)
	if n := len(files(t, own)); n > 10 {
		t.Errorf("a build the warm cache already holds wrote %d files to its own cache, want a few at most (the warm one has %d)", n, len(before))
	}
	require.NoError(t, os.WriteFile(main, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(2) }\n"), 0o644))
	build(layered...)
	if n := len(files(t, own)); n < 2 {
		t.Errorf("a changed build wrote %d files to its own cache, want its new package there", n)
	}
	if after := files(t, base); len(after) != len(before) {
		t.Errorf("the warm cache went from %d files to %d, want it untouched", len(before), len(after))
	}
}

// files lists the cache's entries and outputs with their times.
func files(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	m := map[string]time.Time{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, "-a") || strings.HasSuffix(p, "-d")) {
			info, err := d.Info()
			if err == nil {
				m[p] = info.ModTime()
			}
			return err
		}
		return err
	}))
	return m
}

// A student's code reads the warm cache and cannot change it, does not
// see the report's checkers kept beside it, nor where the cache is.
func TestTheWarmCacheIsReadOnlyInTheSandbox(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	j := needJail(t)
	base := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(base, "00"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "kept"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "00", "ab-d"), []byte("warm\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "kept", "level1.test"), []byte("checker\n"), 0o755))
	sb, err := New(t.TempDir(), "student-000", "", j)
	require.NoError(t, err)
	sb.CacheBase, sb.CacheHidden = base, []string{"kept"}
	script := `cat "$1/00/ab-d"
{ echo poisoned > "$1/00/ab-d"; } 2>/dev/null && echo "entry: written"
{ echo new > "$1/00/cd-d"; } 2>/dev/null && echo "entry: added"
cat "$1/kept/level1.test" 2>/dev/null
echo "kept: $(ls "$1/kept" | wc -l)"
case "$GOCACHEPROG" in *" ` + CacheLayerCommand + ` $1 "*) echo "layer: set";; esac
base=$(cat "$HOME/base") # not in any command line
case "$GOCACHEPROG" in *"$base"*) echo "base: named";; esac
if tr '\0' ' ' < /proc/1/cmdline | grep -qF "$base"; then echo "base: named by process 1"; fi`
	require.NoError(t, os.WriteFile(filepath.Join(sb.Home, "base"), []byte(base), 0o644))
	cmd := sb.Command(sb.Src, "sh", "-c", script, "sh", jailCacheBase)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	if want := "warm\nkept: 0\nlayer: set\n"; string(out) != want {
		t.Errorf("the sandbox printed:\n%s\nwant:\n%s", out, want)
	}
	if b, _ := os.ReadFile(filepath.Join(base, "00", "ab-d")); string(b) != "warm\n" {
		t.Errorf("the warm cache's entry now holds %q", b)
	}
}
