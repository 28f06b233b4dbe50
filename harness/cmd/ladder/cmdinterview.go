package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

// cmdInterview is ladder interview [--time 45m] N.
func cmdInterview(root string, args []string, stdout, stderr io.Writer) int {
	var budgetFlag string
	var every time.Duration
	l, ok := levelArg("interview", args, stderr, nil, "", func(fs *flag.FlagSet) {
		fs.StringVar(&budgetFlag, "time", "", "the interview's length, such as 45m or 30 (minutes); 45m when not given")
		fs.DurationVar(&every, "every", 500*time.Millisecond, "how often to look for changes")
	})
	if !ok {
		return 2
	}
	var budget time.Duration // 0: the guide's scope says, in Prepare
	if budgetFlag != "" {
		var err error
		if budget, err = interview.ParseBudget(budgetFlag); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	iv := &interview.Interview{
		Root: root, Level: l, Budget: budget, Clock: clock.System{}, Out: stdout,
		St:    grade.Style{Color: useColor(stdout)},
		Grade: func(upTo int) (grade.Level, error) { return gradeUpTo(root, l, upTo) },
		// Reset keeps the learner's files in a backup, and asks first.
		Reset:  func() int { return cmdReset(root, []string{strconv.Itoa(l.Number)}, stdout, stderr) },
		Settle: 150 * time.Millisecond,
	}
	if err := iv.Prepare(); err != nil {
		return failed(stderr, "ladder interview:", err)
	}
	// From here on Ctrl-C ends the interview with a summary. So does a
	// closed terminal, whose SIGHUP would leave the running record behind.
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGHUP)
	defer signal.Stop(interrupt)
	iv.Interrupt = interrupt
	keys, out, errOut, restore := terminalKeys(stdout, stderr, interrupt)
	defer restore()
	iv.Out, iv.Keys = out, keys
	iv.Hint = func() { cmdHint(root, []string{strconv.Itoa(l.Number)}, out, errOut) }
	src := interview.PollChanges(iv.Dir(), every)
	defer src.Close()
	iv.Changes = src.C()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	iv.Ticks = ticker.C
	if _, err := iv.Hold(); err != nil {
		return failed(errOut, "ladder interview:", err)
	}
	return 0
}

// gradeUpTo grades parts 1 to upTo of a level, or the whole level when
// upTo is 0 or its last part: the candidate has not seen the later parts.
func gradeUpTo(root string, l levels.Level, upTo int) (grade.Level, error) {
	if upTo == 0 || upTo >= l.Parts[len(l.Parts)-1].Number {
		return grade.TestLevel(root, l, 0)
	}
	return grade.Through(context.Background(), root, l, upTo)
}
