package instructor

import (
	"slices"
	"testing"
)

func TestHeaviestFirstGradesTheMostWorkFirstAndKeepsTies(t *testing.T) {
	work := map[string]int{"alice": 0, "bob": 3, "carol": 36, "dave": 3, "eve": 15}
	dirs := []string{"alice", "bob", "carol", "dave", "eve"}
	got := heaviestFirst(dirs, func(dir string) int { return work[dir] })
	if want := []int{2, 4, 1, 3, 0}; !slices.Equal(got, want) {
		t.Errorf("heaviestFirst(%v) = %v, want %v: carol (36), eve (15), then bob and dave (3) as given, alice (0) last", dirs, got, want)
	}
}
