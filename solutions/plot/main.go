// Command plot draws a level's pictures with the reference solutions:
// make plot-level-N REF=1 runs it as plot -level N. The learner's own
// code is drawn by the commands in harness/plot instead, which cannot
// import this folder: a workshop copy has no solutions/.
package main

import (
	"github.com/rateladder/rateladder/harness/plot"
	ref1 "github.com/rateladder/rateladder/solutions/01-hit-counter"
	ref3 "github.com/rateladder/rateladder/solutions/03-token-bucket"
	ref4 "github.com/rateladder/rateladder/solutions/04-cafe-counts"
	ref5 "github.com/rateladder/rateladder/solutions/05-page-views"
	ref7 "github.com/rateladder/rateladder/solutions/07-qps-store"
	ref8 "github.com/rateladder/rateladder/solutions/08-group-throttle"
)

// levels are the reference's pictures, one per level that has any.
var levels = []plot.Level{
	plot.Level1(ref1.New),
	plot.Level3(ref3.New),
	plot.Level4(ref4.New),
	plot.Level5(ref5.New),
	plot.Level7(ref7.New, ref7.Put),
	plot.Level8(ref8.New),
}

func main() {
	plot.Main(plot.Reference, levels...)
}
