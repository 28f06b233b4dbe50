package mutation

import (
	"fmt"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Unwritten panics the way a stub's method does: "not implemented: T.M".
func Unwritten(method string) {
	panic("not implemented: " + method)
}

// SeedCases builds the case of each fuzz seed, named "fuzz seed 2".
func SeedCases[T any](seeds [][]byte, build func(data []byte) timeline.Case[T]) []timeline.Case[T] {
	out := make([]timeline.Case[T], len(seeds))
	for i, s := range seeds {
		out[i] = build(s)
		out[i].Name = fmt.Sprintf("fuzz seed %d", i+1)
	}
	return out
}
