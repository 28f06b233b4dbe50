package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A build through the shared cache finds what the warm cache holds, and
// adds only what it built anew to its own cache, never to the warm one.
func TestABuildThroughTheSharedCacheReusesTheWarmCacheAndLeavesItAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module twice")
	}
	sb, err := New(t.TempDir(), "s", "", nil, false)
	require.NoError(t, err)
	mod, base := sb.Src, t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	main := filepath.Join(mod, "main.go")
	require.NoError(t, os.WriteFile(main, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }\n"), 0o644))
	build := func(env ...string) {
		t.Helper()
		cmd := sb.Command(mod, "go", "build", "-o", filepath.Join(sb.Tmp, "m"), ".")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	build("GOCACHE=" + base)
	before := files(t, base)
	sb.ShareCache(base)
	build()
	if added := len(files(t, sb.GoCache)); added > 10 {
		t.Errorf("a build the warm cache already holds wrote %d files to its own cache, want a few at most (the warm one has %d)", added, len(before))
	}
	require.NoError(t, os.WriteFile(main, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(2) }\n"), 0o644))
	build()
	if added := len(files(t, sb.GoCache)); added < 2 {
		t.Errorf("a changed build wrote %d files to its own cache, want its new package there", added)
	}
	require.Equal(t, before, files(t, base), "the warm cache changed")
}

// files lists the cache's outputs that are files of its own, not links,
// with their times.
func files(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	m := map[string]time.Time{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, "-d") {
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

// A student's code reads the warm cache and cannot change it, nor see
// where the cache is.
func TestTheWarmCacheIsReadOnlyInTheSandbox(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	j := needJail(t)
	base := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(base, "00"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "00", "ab-d"), []byte("warm\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "00", "ab-a"), []byte("entry\n"), 0o644))
	sb, err := New(t.TempDir(), "student-000", "", j, false)
	require.NoError(t, err)
	sb.ShareCache(base)
	script := `cat "$GOCACHE/00/ab-d"
{ echo poisoned > "$GOCACHE/00/ab-d"; } 2>/dev/null && echo "link: written"
{ echo poisoned > "$1/00/ab-d"; } 2>/dev/null && echo "entry: written"
{ echo new > "$1/00/cd-d"; } 2>/dev/null && echo "entry: added"
echo own > "$GOCACHE/00/ab-a" && cat "$GOCACHE/00/ab-a"
base=$(cat "$HOME/base") # not in any command line
if env | grep -qF "$base"; then echo "base: in the environment"; fi
if readlink "$GOCACHE/00/ab-d" | grep -qF "$base"; then echo "base: linked"; fi
if tr '\0' ' ' < /proc/1/cmdline | grep -qF "$base"; then echo "base: named by process 1"; fi`
	require.NoError(t, os.WriteFile(filepath.Join(sb.Home, "base"), []byte(base), 0o644))
	out, err := sb.Command(sb.Src, "sh", "-c", script, "sh", jailCacheBase).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "warm\nown\n", string(out))
	for name, want := range map[string]string{"ab-d": "warm\n", "ab-a": "entry\n"} {
		b, _ := os.ReadFile(filepath.Join(base, "00", name))
		require.Equal(t, want, string(b), "the warm cache's %s", name)
	}
}
