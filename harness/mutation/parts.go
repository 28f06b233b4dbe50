package mutation

import (
	"fmt"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Unwritten panics the way a stub's method does, with "not implemented:
// Type.Method". An implementation of the first parts of a level calls it
// in a method that a later part introduces, since a learner who has done
// only those parts has left that method as the stub wrote it.
func Unwritten(method string) {
	panic("not implemented: " + method)
}

// SeedCases builds the case of each of a fuzz target's seeds with build,
// and names it after its place in the list: "fuzz seed 2". A spec passes
// them to DoneThrough with its table's cases, so that the part each seed
// is labelled with is checked too.
func SeedCases[T any](seeds [][]byte, build func(data []byte) timeline.Case[T]) []timeline.Case[T] {
	out := make([]timeline.Case[T], len(seeds))
	for i, s := range seeds {
		out[i] = build(s)
		out[i].Name = fmt.Sprintf("fuzz seed %d", i+1)
	}
	return out
}
