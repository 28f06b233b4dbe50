package instructor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/levels"
)

// bytesRead is what this process has read so far (Linux's rchar), or -1.
func bytesRead() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}

func TestBuildRefusesBigInputBeforeReadingIt(t *testing.T) {
	l := levels.All[0]
	g := &Grader{files: map[string][]byte{}}
	student := func(t *testing.T) (dir, levelDir string) {
		dir = t.TempDir()
		levelDir = filepath.Join(dir, filepath.FromSlash(l.Dir))
		require.NoError(t, os.MkdirAll(levelDir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(levelDir, "limiter.go"), []byte("package x\n"), 0o644))
		return dir, levelDir
	}

	t.Run("a sparse file of 1.5 GiB", func(t *testing.T) {
		dir, levelDir := student(t)
		f, err := os.Create(filepath.Join(levelDir, "notes.md"))
		require.NoError(t, err)
		require.NoError(t, f.Truncate(3<<29))
		require.NoError(t, f.Close())
		before := bytesRead()
		_, err = g.build(dir, t.TempDir())
		read := bytesRead() - before
		require.EqualError(t, err, fmt.Sprintf("refused: %s/notes.md is 1536.0 MiB, over the 1 MiB the report reads of one file", l.Dir))
		if runtime.GOOS == "linux" {
			require.Less(t, read, int64(maxStudentFile), "Build read the file")
		}
	})
	t.Run("just at the limit", func(t *testing.T) {
		dir, levelDir := student(t)
		require.NoError(t, os.WriteFile(filepath.Join(levelDir, "notes.md"), bytes.Repeat([]byte("a"), maxStudentFile), 0o644))
		_, err := g.build(dir, t.TempDir())
		require.NoError(t, err)
	})
	t.Run("too many files", func(t *testing.T) {
		dir, levelDir := student(t)
		for i := range maxLevelFiles {
			require.NoError(t, os.WriteFile(filepath.Join(levelDir, fmt.Sprintf("n%03d.md", i)), nil, 0o644))
		}
		_, err := g.build(dir, t.TempDir())
		require.EqualError(t, err, fmt.Sprintf("refused: %s holds more than 300 files", l.Dir))
	})
	t.Run("a big go.mod", func(t *testing.T) {
		dir, _ := student(t)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), nil, 0o644))
		require.NoError(t, os.Truncate(filepath.Join(dir, "go.mod"), 2<<20))
		_, err := g.build(dir, t.TempDir())
		require.EqualError(t, err, "refused: go.mod is 2.0 MiB, over the 1 MiB the report reads of one file")
	})
}
