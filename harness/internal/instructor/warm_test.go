package instructor

import (
	"fmt"
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
	require.Nil(t, keptChecker(store, report, 7), "an empty store")

	built := t.TempDir()
	c := &checker{binaries: map[int]string{}, test2json: filepath.Join(built, "test2json"), Seed: 7}
	require.NoError(t, os.WriteFile(c.test2json, []byte{0}, 0o755))
	for _, n := range []int{1, 8} {
		c.binaries[n] = filepath.Join(built, fmt.Sprintf("level%d.test", n))
		require.NoError(t, os.WriteFile(c.binaries[n], []byte{byte(n)}, 0o755))
	}
	c.keep(store)

	got := keptChecker(store, report, 0)
	require.NotNil(t, got, "the kept set")
	if got.Seed == 0 {
		t.Error("keptChecker(seed 0) kept seed 0, want a new one drawn")
	}
	if len(got.binaries) != 2 {
		t.Fatalf("keptChecker gave levels %v, want 1 and 8", got.binaries)
	}
	for n, bin := range got.binaries {
		data, err := os.ReadFile(bin)
		require.NoError(t, err)
		info, err := os.Stat(bin)
		require.NoError(t, err)
		if filepath.Dir(bin) != report || len(data) != 1 || int(data[0]) != n || info.Mode().Perm() != 0o755 {
			t.Errorf("level %d's checker is %s (%v, mode %v), want a copy in %s of the kept one, mode 0755", n, bin, data, info.Mode().Perm(), report)
		}
	}

	// A set missing a binary is not a set.
	require.NoError(t, os.Remove(filepath.Join(store, "level8.test")))
	require.Nil(t, keptChecker(store, t.TempDir(), 7), "a set without level 8's checker")
}
