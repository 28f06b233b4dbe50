package fast

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDivider checks the divider against the DIV instruction on the
// divisors and numerators where a rounding mistake would show: powers of
// two and their neighbours, the ends of the range, and random ones.
func TestDivider(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var ds, ns []uint64
	for k := range 64 {
		p := uint64(1) << k
		ds = append(ds, p, p+1, p-1, p+p/2)
		ns = append(ns, p, p+1, p-1)
	}
	ds = append(ds, 3, 7, 3600, 1_000_000_007, math.MaxInt64, math.MaxInt64/7, math.MaxUint64, math.MaxUint64-1)
	ns = append(ns, 0, 1, math.MaxInt64, math.MaxUint64, math.MaxUint64-1)
	for range 200 {
		ds = append(ds, r.Uint64(), r.Uint64()>>r.IntN(64))
		ns = append(ns, r.Uint64(), r.Uint64()>>r.IntN(64))
	}
	for _, d := range ds {
		if d == 0 {
			continue
		}
		v := newDivider(d)
		for _, n := range ns {
			if got, want := v.div(n), n/d; got != want {
				t.Fatalf("newDivider(%d).div(%d) = %d, want %d", d, n, got, want)
			}
		}
	}
}

func FuzzDivider(f *testing.F) {
	f.Add(uint64(3600), uint64(1e12))
	f.Fuzz(func(t *testing.T, d, n uint64) {
		if d == 0 {
			return
		}
		if got, want := newDivider(d).div(n), n/d; got != want {
			t.Fatalf("newDivider(%d).div(%d) = %d, want %d", d, n, got, want)
		}
	})
}
