package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/internal/learner"
	"github.com/rateladder/rateladder/harness/internal/shipped"
)

// stdin is where questions are answered; tests replace it.
var stdin io.Reader = os.Stdin

// cmdReset puts a level back as shipped.ResetPlan plans, moving the
// learner's versions, and the files that are not the level's, into a new
// backup folder.
func cmdReset(root string, args []string, stdout, stderr io.Writer) int {
	l, ok := levelArg("reset", args, stderr, nil, "", nil)
	if !ok {
		return 2
	}
	plan, err := shipped.ResetPlan(root, l)
	if err != nil {
		return failed(stderr, "", err)
	}
	as, restore, move := plan.Shipped, plan.Restore, plan.Move
	short := as.Commit[:min(7, len(as.Commit))]
	if len(restore) == 0 && len(move) == 0 {
		fmt.Fprintf(stdout, "Level %d is already as shipped (commit %s); nothing to restore.\n", l.Number, short)
		return 0
	}
	fmt.Fprintf(stdout, "This puts level %d back as shipped (commit %s):\n", l.Number, short)
	for _, p := range restore {
		fmt.Fprintf(stdout, "  restores %s\n", p)
	}
	for _, p := range move {
		fmt.Fprintf(stdout, "  moves    %s (not part of the level as shipped)\n", p)
	}
	fmt.Fprintf(stdout, "Your files go to a new folder in %s/.\n", filepath.Join(learner.StateDir, "backups"))
	if os.Getenv("FORCE") != "1" {
		fmt.Fprint(stdout, "Go ahead? [y/N] ")
		if !yes() {
			fmt.Fprintln(stdout, "Nothing changed.")
			return 0
		}
	}
	backup, err := newBackupDir(root, l.Number, time.Now())
	if err != nil {
		return failed(stderr, "could not make a backup folder, so nothing changed:", err)
	}
	// Move first, write after: whatever fails, the learner's files are
	// already safe in the backup.
	for _, p := range append(append([]string{}, restore...), move...) {
		src := filepath.Join(root, p)
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			continue // a stub the learner deleted
		}
		dst := filepath.Join(root, backup, p)
		err := os.MkdirAll(filepath.Dir(dst), 0o755)
		if err == nil {
			err = os.Rename(src, dst)
		}
		if err != nil {
			fmt.Fprintf(stderr, "could not move %s into the backup: %v\n", p, err)
			return 1
		}
	}
	for _, p := range restore {
		dst := filepath.Join(root, p)
		err := os.MkdirAll(filepath.Dir(dst), 0o755)
		if err == nil {
			err = os.WriteFile(dst, as.Files[p], 0o644)
		}
		if err != nil {
			return failed(stderr, "", err)
		}
		fmt.Fprintf(stdout, "restored %s\n", p)
	}
	for _, p := range move {
		fmt.Fprintf(stdout, "moved    %s\n", p)
	}
	removeEmptyDirs(filepath.Join(root, l.Dir))
	fmt.Fprintf(stdout, "Your files are in %s/.\nTo get them back: cp -R %s/. .\n", backup, backup)
	return 0
}

// yes reads one answer and reports whether it was yes.
func yes() bool {
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// newBackupDir makes a new backup folder, named after the time, with a
// counter added if that name is taken, and returns it relative to root.
func newBackupDir(root string, level int, now time.Time) (string, error) {
	parent := filepath.Join(learner.StateDir, "backups")
	if err := os.MkdirAll(filepath.Join(root, parent), 0o755); err != nil {
		return "", err
	}
	base := filepath.Join(parent, fmt.Sprintf("level-%d-%s", level, now.Format("20060102-150405.000000000")))
	dir := base
	for i := 2; ; i++ {
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// removeEmptyDirs removes the empty folders under dir, not dir itself, such
// as a learner's package folder whose files went into the backup.
func removeEmptyDirs(dir string) {
	var dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, as it should, on a folder with files
	}
}
