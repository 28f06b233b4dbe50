// Command level5 draws level 5 as run by your code in ladder/05-page-views: make
// plot-level-5 runs it and prints where the pictures are.
package main

import (
	"github.com/rateladder/rateladder/harness/plot"
	"github.com/rateladder/rateladder/ladder/05-page-views"
)

func main() {
	plot.Main(plot.Learner, plot.Level5(pageviews.New))
}
