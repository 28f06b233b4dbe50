package instructor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWarmKeyFollowsWhatTheSetupBuildsFrom(t *testing.T) {
	plan := func(spec, stub string) *gradingPlan {
		return &gradingPlan{
			base:  map[string][]byte{"go.mod": []byte("module m\n"), "ladder/01-hit-counter/spec/spec.go": []byte(spec)},
			stubs: map[string][]byte{"ladder/01-hit-counter/hitcounter.go": []byte(stub)},
		}
	}
	key := plan("package spec\n", "package hitcounter\n").warmKey("go1.26 linux amd64")
	for _, tc := range []struct {
		name string
		key  string
		same bool
	}{
		{"the same files and toolchain", plan("package spec\n", "package hitcounter\n").warmKey("go1.26 linux amd64"), true},
		{"a spec edited", plan("package spec // edited\n", "package hitcounter\n").warmKey("go1.26 linux amd64"), false},
		{"a stub edited", plan("package spec\n", "package hitcounter // edited\n").warmKey("go1.26 linux amd64"), false},
		{"another toolchain", plan("package spec\n", "package hitcounter\n").warmKey("go1.27 linux amd64"), false},
	} {
		if (tc.key == key) != tc.same {
			t.Errorf("%s: key %s, first key %s; want the same: %v", tc.name, tc.key, key, tc.same)
		}
	}
	// Names and contents are framed: bytes moved from one file's end to
	// the next one's name give another key.
	a := (&gradingPlan{base: map[string][]byte{"a": []byte("xb"), "c": nil}}).warmKey("")
	b := (&gradingPlan{base: map[string][]byte{"a": []byte("x"), "bc": nil}}).warmKey("")
	if a == b {
		t.Errorf("warmKey gives %s both for a=xb, c= and for a=x, bc=", a)
	}
}

func TestKeptCheckersComeBackWhole(t *testing.T) {
	cache, report := t.TempDir(), t.TempDir()
	store := filepath.Join(cache, storeDir, "k1")
	require.Nil(t, keptChecker(store, filepath.Join(report, "checker"), 7), "an empty store")

	c := &checker{dir: t.TempDir(), levels: []int{1, 8}, Seed: 7}
	require.NoError(t, os.WriteFile(filepath.Join(c.dir, "test2json"), []byte{0}, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(c.dir, levelsFile), []byte("1 8\n"), 0o644))
	for _, n := range c.levels {
		require.NoError(t, os.WriteFile(c.binary(n), []byte{byte(n)}, 0o755))
	}
	c.keep(store)

	got := keptChecker(store, filepath.Join(report, "checker"), 0)
	require.NotNil(t, got, "the kept set")
	if got.Seed == 0 {
		t.Error("keptChecker(seed 0) kept seed 0, want a new one drawn")
	}
	if len(got.levels) != 2 {
		t.Fatalf("keptChecker gave levels %v, want 1 and 8", got.levels)
	}
	for _, n := range got.levels {
		bin := got.binary(n)
		data, err := os.ReadFile(bin)
		require.NoError(t, err)
		info, err := os.Stat(bin)
		require.NoError(t, err)
		if filepath.Dir(bin) != filepath.Join(report, "checker") || len(data) != 1 || int(data[0]) != n || info.Mode().Perm() != 0o755 {
			t.Errorf("level %d's checker is %s (%v, mode %v), want a copy in %s of the kept one, mode 0755", n, bin, data, info.Mode().Perm(), report)
		}
	}

	// A set missing a binary is not a set.
	require.NoError(t, os.Remove(filepath.Join(store, "level8.test")))
	require.Nil(t, keptChecker(store, filepath.Join(t.TempDir(), "checker"), 7), "a set without level 8's checker")
}
