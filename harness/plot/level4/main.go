// Command level4 draws level 4 as run by your code in ladder/04-cafe-counts: make
// plot-level-4 runs it and prints where the pictures are.
package main

import (
	"github.com/rateladder/rateladder/harness/plot"
	"github.com/rateladder/rateladder/ladder/04-cafe-counts"
)

func main() {
	plot.Main(plot.Learner, plot.Level4(cafe.New))
}
