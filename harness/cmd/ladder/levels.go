package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// planned names the eight rungs, so that a level not built yet still shows
// in the ladder as coming. A built level takes its title from its README.
var planned = []string{
	1: "Hit counter",
	2: "Logger rate limiter",
	3: "Token bucket",
	4: "Café drink counts",
	5: "Page views in the last five minutes",
	6: "Chat aggregation and top talker",
	7: "Key-value store with rolling QPS",
	8: "Throttle requests per client",
}

// level is one rung as found on disk.
type level struct {
	Number int
	Title  string
	Dir    string // relative to the repository root, slash-separated; "" when not built
	Parts  []part
}

type part struct {
	Number int
	Title  string
}

func (l level) built() bool { return l.Dir != "" }

var (
	levelDirRE   = regexp.MustCompile(`^0?(\d+)-`)
	titleRE      = regexp.MustCompile(`^#\s+Level\s+\d+:\s*(.+?)\s*$`)
	partHeaderRE = regexp.MustCompile(`^##\s+Part\s+(\d+):\s*(.+?)\s*$`)
)

// findLevels reads ladder/ under root: each folder NN-name is a level, its
// README.md gives the title and the parts ("## Part 2: Time going
// backwards"). Levels of the plan that have no folder come back unbuilt.
func findLevels(root string) ([]level, error) {
	entries, err := os.ReadDir(filepath.Join(root, "ladder"))
	if err != nil {
		return nil, fmt.Errorf("no ladder here: %w (run this from the repository's top folder)", err)
	}
	byNumber := map[int]level{}
	for _, e := range entries {
		m := levelDirRE.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		l := level{Number: n, Dir: "ladder/" + e.Name()}
		if n < len(planned) {
			l.Title = planned[n]
		}
		if err := readREADME(filepath.Join(root, l.Dir, "README.md"), &l); err != nil {
			return nil, err
		}
		byNumber[n] = l
	}
	for n := 1; n < len(planned); n++ {
		if _, ok := byNumber[n]; !ok {
			byNumber[n] = level{Number: n, Title: planned[n]}
		}
	}
	var out []level
	for _, l := range byNumber {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

func readREADME(path string, l *level) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inCode := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		if m := titleRE.FindStringSubmatch(line); m != nil {
			l.Title = m[1]
		}
		if m := partHeaderRE.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			l.Parts = append(l.Parts, part{Number: n, Title: m[2]})
		}
	}
	return sc.Err()
}
