package shipped

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
)

// Untouched reports whether a level's code in the working tree is the
// stub as shipped (only stubs and shared files, with at least one stub),
// so that progress and the class report say "not started" without a build.
func Untouched(root string, l levels.Level) bool {
	modPath, err := ModulePath(root)
	if err != nil {
		return false
	}
	files := map[string][]byte{}
	dir := filepath.Join(root, filepath.FromSlash(l.Dir))
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		if !d.Type().IsRegular() {
			return fs.ErrInvalid // a symbolic link: not as shipped
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return false
	}
	code := Classify(modPath, files)
	return len(code.Stubs) > 0 && len(code.Other) == 0
}
