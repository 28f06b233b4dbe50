// Package probe is a fixture level of the grader's tests: its one method
// misbehaves as the folder of the test package names (each folder below
// this one is a probe, so that one go test run plays them all).
package probe

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// probe is the probe of the test binary, which runs in its package's folder.
var probe = func() string { wd, _ := os.Getwd(); return filepath.Base(wd) }()

func init() {
	switch probe {
	case "init-exit":
		os.Exit(0)
	case "skip":
		os.Args = append(os.Args, "-test.skip=/part_2/")
	case "parent": // no test binary runs this one again as its child
		parent, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", os.Getppid()))
		if err == nil && strings.HasSuffix(parent, ".test") {
			panic(fmt.Sprintf("the parent of this test binary is %q (%v)", parent, err))
		}
	}
}

// Test is each probe's test: part 1 passes, then part 2's first case misbehaves.
func Test(t *testing.T) {
	if probe == "no-runner" {
		return // a test of the learner's own, which passes
	}
	do := func(want int) timeline.Call[*Thing] {
		return timeline.Call[*Thing]{Method: "Do", Want: want, Do: func(t *Thing, _ time.Time) any { return t.Do() }}
	}
	newThing := func(clock.Clock) *Thing { return &Thing{} }
	timeline.Run(t, []timeline.Case[*Thing]{
		{Name: "first", Part: 1, Setup: "New()", New: newThing, Steps: []timeline.Step[*Thing]{timeline.At(0, do(1)), timeline.At(0, do(2))}},
		{Name: "the probe", Part: 2, Setup: "New()", New: func(clock.Clock) *Thing { return &Thing{calls: 2} },
			Steps: []timeline.Step[*Thing]{timeline.At(0, do(3))}},
		{Name: "after", Part: 2, Setup: "New()", New: newThing, Steps: []timeline.Step[*Thing]{timeline.At(0, do(1))}},
	})
}

// GrandchildSleep is how long the grandchild sleeps: a number no other process sleeps.
const GrandchildSleep = "61.25"

// Thing is the fixture's implementation.
type Thing struct{ calls int }

// Do misbehaves as the probe says from its third call on: in the probe case.
func (t *Thing) Do() int {
	t.calls++
	if t.calls < 3 {
		return t.calls
	}
	switch probe {
	case "os-exit-0":
		os.Exit(0)
	case "os-exit-1":
		os.Exit(1)
	case "syscall-exit-0":
		syscall.Exit(0)
	case "goexit":
		runtime.Goexit()
	case "panic-in-goroutine":
		go func() { panic("probe: boom") }()
		select {} // the panic ends the process first
	case "concurrent-map-writes":
		m := map[int]int{}
		for i := range 4 {
			go func() {
				for j := 0; ; j++ {
					m[j%64] = i
				}
			}()
		}
		select {} // the crash ends the process
	case "race":
		n := 0
		done := make(chan bool)
		go func() { n++; done <- true }()
		n++
		<-done
	case "flood":
		os.Stdout.WriteString(strings.Repeat(strings.Repeat("x", 1023)+"\n", 8<<10)) // 8 MiB
	case "hang":
		select {}
	case "grandchild":
		cmd := exec.Command("sleep", GrandchildSleep)
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			panic(err)
		}
	case "wrong":
		return 42
	}
	return t.calls
}
