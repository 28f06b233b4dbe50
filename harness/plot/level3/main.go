// Command level3 draws level 3 as run by your code in ladder/03-token-bucket: make
// plot-level-3 runs it and prints where the pictures are.
package main

import (
	"github.com/rateladder/rateladder/harness/plot"
	"github.com/rateladder/rateladder/ladder/03-token-bucket"
)

func main() {
	plot.Main(plot.Learner, plot.Level3(tokenbucket.New))
}
