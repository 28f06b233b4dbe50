// Command level1 draws level 1 as run by your code in ladder/01-hit-counter: make
// plot-level-1 runs it and prints where the pictures are.
package main

import (
	"github.com/rateladder/rateladder/harness/plot"
	"github.com/rateladder/rateladder/ladder/01-hit-counter"
)

func main() {
	plot.Main(plot.Learner, plot.Level1(hitcounter.New))
}
