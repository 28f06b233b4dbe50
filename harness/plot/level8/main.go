// Command level8 draws level 8 as run by your code in ladder/08-group-throttle: make
// plot-level-8 runs it and prints where the pictures are.
package main

import (
	"github.com/rateladder/rateladder/harness/plot"
	"github.com/rateladder/rateladder/ladder/08-group-throttle"
)

func main() {
	plot.Main(plot.Learner, plot.Level8(throttle.New))
}
