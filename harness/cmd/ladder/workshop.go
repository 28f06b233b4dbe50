package main

import (
	"github.com/rateladder/rateladder/harness/levels"

	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// cmdStudentCopy writes the repository without solutions/, as a folder an
// instructor can hand out. It copies what git tracks (or, outside git,
// every file), and what it does not ignore, so nothing ignored goes with it.
func cmdStudentCopy(root string, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "" {
		fmt.Fprintln(stderr, "usage: ladder student-copy DEST   (make student-copy DEST=dir)")
		return 2
	}
	dest, err := filepath.Abs(args[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		fmt.Fprintf(stderr, "%s exists and is not empty; name a new folder\n", dest)
		return 1
	}
	files, err := repoFiles(root)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	n := 0
	for _, f := range files {
		if !inStudentCopy(f) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		info, _ := os.Stat(filepath.Join(root, f))
		target := filepath.Join(dest, f)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if err := os.WriteFile(target, data, info.Mode().Perm()); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		n++
	}
	// A git history lets the student's make reset-level-N work.
	if _, err := exec.LookPath("git"); err == nil {
		for _, a := range [][]string{
			{"init", "-q"},
			{"add", "-A"},
			{"-c", "user.name=rateladder", "-c", "user.email=rateladder@localhost", "commit", "-qm", "rateladder: student copy"},
		} {
			cmd := exec.Command("git", a...)
			cmd.Dir = dest
			if out, err := cmd.CombinedOutput(); err != nil {
				fmt.Fprintf(stderr, "git %s in the copy: %v\n%s", a[0], err, out)
				return 1
			}
		}
	}
	fmt.Fprintf(stdout, "Wrote %d files to %s: the ladder without solutions/.\nHand it out as it is; make test there checks the stubs and the harness.\n", n, dest)
	return 0
}

// inStudentCopy says which repository files a student gets.
func inStudentCopy(path string) bool {
	for _, prefix := range []string{"solutions/", stateDir + "/", "plots/"} {
		if strings.HasPrefix(path, prefix) {
			return false
		}
	}
	return true
}

// repoFiles lists the files of the repository, slash-separated.
func repoFiles(root string) ([]string, error) {
	if out, err := gitOutput(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"); err == nil {
		var files []string
		for _, f := range strings.Split(out, "\x00") {
			if f != "" {
				if _, err := os.Stat(filepath.Join(root, f)); err == nil {
					files = append(files, f)
				}
			}
		}
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, err
}

// studentResult is one checkout in the class report.
type studentResult struct {
	Name   string
	Levels []levelReport
	Err    string
}

// cmdClassReport runs the ladder tests of several student checkouts, a few
// at a time and each with a time limit, and writes one table for the class.
func cmdClassReport(root string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("class-report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "markdown", "markdown or csv")
	parallel := fs.Int("parallel", 2, "checkouts tested at once")
	limit := fs.Duration("timeout", 5*time.Minute, "time allowed for one checkout")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *format != "markdown" && *format != "csv" {
		fmt.Fprintf(stderr, "class-report: FORMAT is %q; use markdown or csv\n", *format)
		return 2
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		fmt.Fprintln(stderr, `usage: make class-report DIRS="alice bob carol" [FORMAT=csv]`)
		return 2
	}
	results := make([]studentResult, len(dirs))
	sem := make(chan struct{}, max(1, *parallel))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = checkStudent(dir, *limit)
		}()
	}
	wg.Wait()
	if *format == "csv" {
		writeClassCSV(stdout, results)
	} else {
		writeClassMarkdown(stdout, results)
	}
	return 0
}

// checkStudent grades the ladder of one checkout, and runs nothing else.
func checkStudent(dir string, limit time.Duration) studentResult {
	res := studentResult{Name: filepath.Base(filepath.Clean(dir))}
	if _, err := os.Stat(filepath.Join(dir, "ladder")); err != nil {
		res.Err = "not a rateladder checkout"
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	grades, err := gradeLevels(ctx, dir, levels.All, "")
	if ctx.Err() != nil {
		res.Err = fmt.Sprintf("stopped after %v", limit)
		return res
	} else if err != nil {
		res.Err = firstLines(err.Error(), 1)
		return res
	}
	res.Levels = report(grades).Levels
	return res
}

func lastDone(levels []levelReport) string {
	last := "-"
	for _, l := range levels {
		if l.Status == statusDone {
			last = fmt.Sprint(l.Number)
		}
	}
	return last
}

func levelCell(l levelReport) string {
	switch l.Status {
	case statusNoBuild:
		return "build fails"
	}
	return fmt.Sprintf("%d/%d", l.PartsDone, len(l.Parts))
}

func writeClassMarkdown(w io.Writer, results []studentResult) {
	header := []string{"student"}
	for n := 1; n <= len(levels.All); n++ {
		header = append(header, fmt.Sprintf("L%d", n))
	}
	header = append(header, "last level done", "note")
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range results {
		row := classRow(r)
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

func writeClassCSV(w io.Writer, results []studentResult) {
	cw := csv.NewWriter(w)
	header := []string{"student"}
	for n := 1; n <= len(levels.All); n++ {
		header = append(header, fmt.Sprintf("level_%d", n))
	}
	cw.Write(append(header, "last_level_done", "note"))
	for _, r := range results {
		cw.Write(classRow(r))
	}
	cw.Flush()
}

func classRow(r studentResult) []string {
	row := []string{r.Name}
	for n := 1; n <= len(levels.All); n++ {
		cell := ""
		for _, l := range r.Levels {
			if l.Number == n {
				cell = levelCell(l)
			}
		}
		row = append(row, cell)
	}
	return append(row, lastDone(r.Levels), r.Err)
}
