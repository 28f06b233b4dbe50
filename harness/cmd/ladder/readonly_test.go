package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
)

func TestReadOnlyNamesTheCheckout(t *testing.T) {
	for _, err := range []error{
		&fs.PathError{Op: "mkdir", Path: ".ladder", Err: syscall.EROFS},
		&fs.PathError{Op: "open", Path: ".ladder/state.json.tmp", Err: syscall.EACCES},
	} {
		got := interview.ReadOnly(err).Error()
		if !strings.HasPrefix(got, "this checkout is read-only (") || !strings.Contains(got, "Copy the repository to a folder you can write") {
			t.Errorf("readOnly(%v) = %q, want it to say the checkout is read-only, and what to do", err, got)
		}
	}
	other := errors.New("disk full")
	if got := interview.ReadOnly(other); got != other {
		t.Errorf("readOnly(%v) = %v, want the error unchanged", other, got)
	}
	if got := interview.ReadOnly(nil); got != nil {
		t.Errorf("readOnly(nil) = %v, want nil", got)
	}
}

// runReadOnly runs the shell command line in dir made read-only: by its
// modes for a user, by a read-only bind mount in a mount namespace of its
// own for root, whom modes do not stop. It skips when neither can be done.
func runReadOnly(t *testing.T, dir, line string) (string, int) {
	t.Helper()
	needTools(t, "sh")
	if os.Geteuid() != 0 {
		chmodTree(t, dir, 0o555, 0o444)
		t.Cleanup(func() { chmodTree(t, dir, 0o755, 0o644) })
		return runIn(t, dir, "sh", "-c", line)
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("running as root, and no unshare to mount the copy read-only")
	}
	q := shellQuote(dir)
	script := "mount --bind " + q + " " + q + " && mount -o remount,bind,ro " + q + " && cd " + q + " && touch .probe 2>/dev/null && exit 97; " + line
	out, code := runIn(t, dir, "unshare", "-m", "--propagation", "private", "sh", "-c", script)
	if code == 97 {
		t.Fatalf("the read-only mount of %s is writable", dir)
	}
	if strings.Contains(out, "unshare failed") || strings.Contains(out, "mount: ") {
		t.Skipf("running as root, and cannot mount the copy read-only:\n%s", out)
	}
	return out, code
}

func chmodTree(t *testing.T, dir string, dirMode, fileMode os.FileMode) {
	t.Helper()
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil
	})
	// Files first, then folders from the deepest: a folder made read-only
	// first would still let its files change mode, but not the other way.
	for i := len(paths) - 1; i >= 0; i-- {
		info, err := os.Lstat(paths[i])
		if err != nil || info.Mode()&fs.ModeSymlink != 0 {
			continue
		}
		mode := fileMode
		if info.IsDir() {
			mode = dirMode
		}
		os.Chmod(paths[i], mode)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestAReadOnlyCheckoutSaysSo(t *testing.T) {
	slow(t, "runs make and the ladder command in a read-only copy", "make")
	dir := copyRepo(t, "ladder/01-hit-counter")
	out, code := runReadOnly(t, dir, "make test-level-1; echo; "+grade.GoTool()+" run ./harness/cmd/ladder hint 1")
	if code == 0 {
		t.Errorf("make test-level-1 and ladder hint 1 in a read-only checkout: exit 0, want a failure:\n%s", out)
	}
	containsAll(t, out,
		"This checkout is read-only: make builds the ladder command into .ladder/",
		"ladder hint: could not remember this hint: this checkout is read-only (",
	)
	if strings.Contains(out, "open .ladder/ladder") {
		t.Errorf("in a read-only checkout, make shows go build's error:\n%s", out)
	}
}
