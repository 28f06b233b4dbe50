// Package probe is a fixture level of the grader's tests: its one method
// misbehaves in the way the environment variable LADDER_TEST_PROBE names,
// as a learner's code might.
package probe

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// GrandchildSleep is how long the grandchild probe's process sleeps, in
// seconds: a number no other process is likely to sleep.
const GrandchildSleep = "61.25"

// Thing is the fixture's implementation.
type Thing struct{ calls int }

// Do misbehaves as the probe says, the third time it is called: the
// first case calls it twice and passes, the second case calls it once.
func (t *Thing) Do() int {
	t.calls++
	if t.calls < 3 {
		return t.calls
	}
	switch os.Getenv("LADDER_TEST_PROBE") {
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
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 1_000_000 {
					m[j%64] = i
				}
			}()
		}
		wg.Wait()
	case "race":
		n := 0
		done := make(chan bool)
		go func() { n++; done <- true }()
		n++
		<-done
	case "flood":
		w := bufio.NewWriterSize(os.Stdout, 1<<20)
		line := strings.Repeat("x", 1023) + "\n"
		for range 8 << 10 { // 8 MiB
			w.WriteString(line)
		}
		w.Flush()
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
