// Command level7 draws level 7 as run by your code in ladder/07-qps-store: make
// plot-level-7 runs it and prints where the pictures are.
package main

import (
	"github.com/rateladder/rateladder/harness/plot"
	"github.com/rateladder/rateladder/ladder/07-qps-store"
)

func main() {
	plot.Main(plot.Learner, plot.Level7(qpsstore.New, qpsstore.Put))
}
