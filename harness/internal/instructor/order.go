package instructor

import (
	"cmp"
	"slices"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// HeaviestFirst returns the indexes of the students' folders dirs in the
// order the report grades them: the most work first, so that the longest
// gradings overlap the short ones instead of ending the report alone.
// Level 8's Redis cases wait seconds on deadlines, a whole level 2 makes
// its checker play a hundred thousand calls: a student who reached level
// 8 takes several times as long as one at level 2. The work of a folder
// is the sum of the numbers of the levels it has started, read from its
// files alone (shipped.Untouched); ties keep the order given.
func HeaviestFirst(dirs []string) []int {
	return heaviestFirst(dirs, func(dir string) int {
		work := 0
		for _, l := range levels.All {
			if !shipped.Untouched(dir, l) {
				work += l.Number
			}
		}
		return work
	})
}

func heaviestFirst(dirs []string, work func(dir string) int) []int {
	weights := make([]int, len(dirs))
	order := make([]int, len(dirs))
	for i, dir := range dirs {
		weights[i], order[i] = work(dir), i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weights[b], weights[a]) })
	return order
}
