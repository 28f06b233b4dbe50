package main

import (
	"github.com/rateladder/rateladder/harness/levels"

	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// stdin is where questions are answered; tests replace it.
var stdin io.Reader = os.Stdin

// stubFiles lists a level's stub: the .go files git tracks under its
// folder, without tests and without the spec.
func stubFiles(root string, l levels.Level) ([]string, error) {
	out, err := gitOutput(root, "ls-files", "--", l.Dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Fields(out) {
		if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") && !strings.Contains(f, "/spec/") {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("git tracks no stub file under %s", l.Dir)
	}
	return files, nil
}

func gitOutput(root string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v %s (reset needs the repository's git history)", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// cmdReset puts a level's stub back as it was committed, after keeping a
// copy of the learner's files under .ladder/backups.
func cmdReset(root string, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: ladder reset LEVEL   (FORCE=1 skips the question)")
		return 2
	}
	l, err := levels.Find(args[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	files, err := stubFiles(root, l)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	type change struct {
		path      string
		committed []byte
		current   []byte
	}
	var changes []change
	for _, f := range files {
		committed, err := gitOutput(root, "show", "HEAD:"+f)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		current, err := os.ReadFile(filepath.Join(root, f))
		if err != nil && !os.IsNotExist(err) {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if string(current) != committed {
			changes = append(changes, change{f, []byte(committed), current})
		}
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "Level %d is already as committed; nothing to restore.\n", l.Number)
		return 0
	}
	backup := filepath.Join(stateDir, "backups", fmt.Sprintf("level-%d-%s", l.Number, time.Now().Format("20060102-150405")))
	fmt.Fprintf(stdout, "This restores the committed version of:\n")
	for _, c := range changes {
		fmt.Fprintf(stdout, "  %s\n", c.path)
	}
	fmt.Fprintf(stdout, "Your version is kept in %s/.\n", backup)
	if os.Getenv("FORCE") != "1" {
		fmt.Fprint(stdout, "Go ahead? [y/N] ")
		if !yes() {
			fmt.Fprintln(stdout, "Nothing changed.")
			return 0
		}
	}
	for _, c := range changes {
		if c.current != nil {
			dst := filepath.Join(root, backup, c.path)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			if err := os.WriteFile(dst, c.current, 0o644); err != nil {
				fmt.Fprintln(stderr, "could not keep a backup, so nothing was restored:", err)
				return 1
			}
		}
	}
	for _, c := range changes {
		if err := os.WriteFile(filepath.Join(root, c.path), c.committed, 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "restored %s\n", c.path)
	}
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
