package instructor

import (
	"cmp"
	"slices"

	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

// HeaviestFirst returns the indexes of dirs in the order the report grades
// them: the most work (the sum of the started levels' numbers) first, so
// that the longest gradings overlap the short ones; ties keep the order.
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
