package instructor

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// With --cache, a report keeps its checkers in the build cache's folder,
// named by a key of what they were built from, and a report that finds its
// key skips its setup.

// storeDir is the folder of kept checkers, which a student's sandbox shows
// empty.
const storeDir = "ladder-checkers"

// storeAge is how long an unused set of checkers is kept.
const storeAge = 7 * 24 * time.Hour

// warmKey names what a report's setup builds from, the toolchain too.
func (p *gradingPlan) warmKey(toolchain string) string {
	h := fnv.New128a() // the command's other cache keys take FNV too: no crypto in its build
	for _, files := range []map[string][]byte{p.base, p.stubs} {
		for _, name := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(h, "%q %d\n", name, len(files[name]))
			h.Write(files[name])
		}
	}
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n", checkerSource, childSource, proxySource, toolchain)
	return hex.EncodeToString(h.Sum(nil))
}

// drawSeed returns seed, or a new random one for 0.
func drawSeed(seed uint64) uint64 {
	for seed == 0 {
		seed = rand.Uint64()
	}
	return seed
}

// keptChecker returns the checkers kept in store, copied into dir, or nil
// if store holds no complete set.
func keptChecker(store, dir string, seed uint64) *checker {
	list, err := os.ReadFile(filepath.Join(store, "levels"))
	if err != nil {
		return nil
	}
	c := &checker{binaries: map[int]string{}, test2json: filepath.Join(dir, "test2json"), Seed: drawSeed(seed)}
	if copyFile(filepath.Join(store, "test2json"), c.test2json) != nil {
		return nil
	}
	for _, f := range strings.Fields(string(list)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil
		}
		name := fmt.Sprintf("level%d.test", n)
		// A copy: another report may prune the store while this one runs.
		if err := copyFile(filepath.Join(store, name), filepath.Join(dir, name)); err != nil {
			return nil
		}
		c.binaries[n] = filepath.Join(dir, name)
	}
	now := time.Now()
	os.Chtimes(store, now, now) // in use: kept another storeAge
	return c
}

// keep copies c's checkers into store, renamed into place whole, and
// drops the sets unused for storeAge. Errors only cost a warm start.
func (c *checker) keep(store string) {
	parent := filepath.Dir(store)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return
	}
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > storeAge {
				os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	tmp, err := os.MkdirTemp(parent, "new-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp) // left only if the rename failed
	if copyFile(c.test2json, filepath.Join(tmp, "test2json")) != nil {
		return
	}
	var list []string
	for _, n := range slices.Sorted(maps.Keys(c.binaries)) {
		if copyFile(c.binaries[n], filepath.Join(tmp, filepath.Base(c.binaries[n]))) != nil {
			return
		}
		list = append(list, strconv.Itoa(n))
	}
	if os.WriteFile(filepath.Join(tmp, "levels"), []byte(strings.Join(list, " ")+"\n"), 0o644) != nil {
		return
	}
	os.Rename(tmp, store) // fails if another report kept the same set first
}

// copyFile copies the regular file src to dst, keeping its mode.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
