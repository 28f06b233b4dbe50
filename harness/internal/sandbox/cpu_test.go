package sandbox

import (
	"slices"
	"testing"
)

func TestCPUListReadsLinuxRanges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"0", []int{0}},
		{"0-1", []int{0, 1}},
		{"0-2,5,7-8", []int{0, 1, 2, 5, 7, 8}},
		{"", nil},
		{"3-1", nil},
		{"x", nil},
	} {
		if got := cpuList(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("cpuList(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
