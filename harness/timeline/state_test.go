package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

func TestStateTrustsOnlyEventsTheRunnerCouldHaveWritten(t *testing.T) {
	var st state
	st.read(strings.NewReader(`{"e":"run-start","test":"TestX"}
{"e":"case-start","test":"TestX/part_1/a","case":"a","part":1}
{"e":"case-end","test":"TestX/part_1/a","case":"a","part":1,"verdict":"pass"}
{"e":"case-end","test":"TestX/part_2/forged","case":"forged","part":2,"verdict":"pass"}
{"e":"exit","complete":true}
{"e":"run-end","test":"TestX"}
`))
	var kinds []string
	for _, e := range st.events {
		kinds = append(kinds, e.Kind+" "+e.Case)
	}
	if got, want := strings.Join(kinds, ", "), "run-start , case-start a, case-end a, run-end "; got != want {
		t.Errorf("events kept = %q, want %q", got, want)
	}
	complete, why := st.judge(protocol.Event{}, "PASS")
	want := `something other than the runner wrote to the runner's results channel (file descriptor 3) after case "a" of part 1 ended, outside any case`
	if complete || !strings.HasPrefix(why, want) {
		t.Errorf("judge = %v, %q; want false, starting %q", complete, why, want)
	}
}

func TestJudgeNamesTheSupervisorsFindings(t *testing.T) {
	open := `{"e":"run-start","test":"TestX"}` + "\n" + `{"e":"case-start","test":"TestX/part_3/b","case":"b","part":3}` + "\n"
	for _, tc := range []struct {
		name   string
		events string
		set    func(*state)
		exit   protocol.Event
		last   string
		want   string
	}{
		{"PASS, but the testing package never ended", "", func(s *state) { s.endKnown = true }, protocol.Event{}, "PASS",
			"the test binary exited with status 0 before any case started: does an init function in your code call os.Exit? Nothing in it counts as done."},
		{"status 2 with no crash printed", open, nil, protocol.Event{Status: 2}, "",
			`the test binary exited with status 2 during case "b" of part 3: does your code call os.Exit(2)? A crash prints a message, and none came. Nothing in it counts as done.`},
		{"a crash", open, func(s *state) {
			s.crash = &crash{message: []string{"fatal error: concurrent map writes"}, frames: []frame{{function: "(*Store).Put", file: "ladder/07-qps-store/qpsstore.go", line: 41}}}
		}, protocol.Event{Status: 2}, "",
			`the test binary crashed during case "b" of part 3: fatal error: concurrent map writes (ladder/07-qps-store/qpsstore.go:41). Nothing in it counts as done.`},
		{"go test's timeout", open, func(s *state) { s.crash = &crash{message: []string{"panic: test timed out after 10m0s"}} }, protocol.Event{Status: 2}, "",
			`the test binary reached go test's time limit (-timeout 10m0s) during case "b" of part 3. Nothing in it counts as done.`},
		{"stderr closed", open, func(s *state) { s.noteClosed("stderr", true) }, protocol.Event{}, "PASS",
			`your code closed the test binary's standard error (os.Stderr.Close?) during case "b" of part 3. Nothing in it counts as done.`},
		{"a race outside the cases", "", func(s *state) {
			s.addRace("WARNING: DATA RACE\nWrite at 0x1 by goroutine 8:\n  (*Store).Put  ladder/07-qps-store/qpsstore.go:41")
		}, protocol.Event{Status: 66}, "",
			"the race detector found a data race outside the cases (ladder/07-qps-store/qpsstore.go:41). Nothing in this test binary counts as done."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st state
			st.read(strings.NewReader(tc.events))
			if tc.set != nil {
				tc.set(&st)
			}
			complete, why := st.judge(tc.exit, tc.last)
			if complete || why != tc.want {
				t.Errorf("judge = %v, %q\nwant false, %q", complete, why, tc.want)
			}
		})
	}
}

func TestAStreamClosedAsTheChildEndsIsNotNamed(t *testing.T) {
	var st state
	st.noteClosed("stdout", false) // unsure, and just now
	st.settleClosings(time.Now())
	st.noteClosed("events", false) // after the child was waited for
	if complete, why := st.judge(protocol.Event{Status: 1}, "FAIL"); !complete {
		t.Errorf("judge = false, %q; want a normal failure", why)
	}
}
