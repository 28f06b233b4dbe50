package timeline

import (
	"strings"
	"testing"
)

func TestRelayCountsFramingLinesAgainstTheBudget(t *testing.T) {
	var out strings.Builder
	const budget = 4 << 10
	r := &relay{dst: &out, budget: &relayBudget{left: budget}}
	var in strings.Builder
	for range 100000 {
		in.WriteString("=== RUN   x\n") // a learner's print that looks like the testing package's
	}
	in.WriteString("--- FAIL: TestX (0.00s)\nFAIL\n")
	r.copy(strings.NewReader(in.String()))
	got := out.String()
	if len(got) > budget+len(limitNotice)+len("FAIL\n") {
		t.Errorf("relayed %d bytes of %d with a budget of %d", len(got), in.Len(), budget)
	}
	if n := strings.Count(got, "output limit of 8 MB reached"); n != 1 {
		t.Errorf("the limit's notice appears %d times, want once", n)
	}
	if !strings.HasSuffix(got, "the rest is cut]\nFAIL\n") {
		t.Errorf("relayed output ends %q, want the notice, then the binary's last line", got[max(0, len(got)-80):])
	}
	if r.lastLine() != "FAIL" {
		t.Errorf("lastLine() = %q, want FAIL", r.lastLine())
	}
}
