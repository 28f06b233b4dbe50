package remote_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/instructor/remote"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// The test binary is its own child: with childEnv set, it serves a toy.
const childEnv = "REMOTE_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		remote.Main(newToy, errNegative)
	}
	os.Exit(m.Run())
}

var errNegative = errors.New("toy: negative")

type pair struct {
	Name string
	N    int
}

type toy struct {
	clk clock.Clock
	sum int
}

func newToy(clk clock.Clock, start int) (*toy, error) {
	if start < 0 {
		return nil, fmt.Errorf("newToy(%d): %w", start, errNegative)
	}
	if start == 99 {
		panic(fmt.Sprintf("newToy: start %d is unlucky", start))
	}
	return &toy{clk: clk, sum: start}, nil
}

func (t *toy) Add(n int) int  { t.sum += n; return t.sum }
func (t *toy) Now() time.Time { return t.clk.Now() }
func (t *toy) Check(n int) error {
	if n < 0 {
		return fmt.Errorf("check %d: %w", n, errNegative)
	}
	if n == 0 {
		return errors.New("zero is not negative")
	}
	return nil
}
func (t *toy) Shapes(s string, f float64) (map[string]int, []pair, float64, bool) {
	return map[string]int{s: 1, "b": 2}, []pair{{s, 1}, {"ü", -3}}, f * 2, s == ""
}
func (t *toy) Empty() (map[string]int, []pair, map[string]int, []pair) {
	return map[string]int{}, []pair{}, nil, nil
}
func (t *toy) Panic(s string) { panic(errors.New(s)) }
func (t *toy) Exit(code int)  { fmt.Println("bye"); os.Exit(code) }
func (t *toy) Hang()          { time.Sleep(time.Hour) }

// Spin works the CPU for d of its own time.
func (t *toy) Spin(d time.Duration) {
	for start, _ := procgroup.SelfCPU(); ; {
		if now, _ := procgroup.SelfCPU(); now-start >= d {
			return
		}
	}
}
func (t *toy) Goexit() { runtime.Goexit() }

// Flood announces a gob message of 2 GiB, and sends zeros until stopped.
func (t *toy) Flood() {
	f := os.NewFile(4, "answers")
	f.Write([]byte{0xfc, 0x7f, 0xff, 0xff, 0xff})
	for zeros := make([]byte, 1<<20); ; {
		if _, err := f.Write(zeros); err != nil {
			os.Exit(1)
		}
	}
}

// Nonsense answers with what is not gob.
func (t *toy) Nonsense() {
	os.NewFile(4, "answers").Write([]byte("\x03abc"))
	select {}
}

// proxy is what a spec's proxy is: methods that forward.
type proxy struct{ o *remote.Object }

func newProxy(c *remote.Conn, clk clock.Clock, start int) (proxy, error) {
	var err error
	o := c.New("New", []any{&err}, clk, start)
	return proxy{o}, err
}

func (p proxy) Add(n int) (sum int)     { p.o.Call("Add", []any{&sum}, n); return }
func (p proxy) Now() (t time.Time)      { p.o.Call("Now", []any{&t}); return }
func (p proxy) Check(n int) (err error) { p.o.Call("Check", []any{&err}, n); return }
func (p proxy) Shapes(s string, f float64) (m map[string]int, ps []pair, g float64, empty bool) {
	p.o.Call("Shapes", []any{&m, &ps, &g, &empty}, s, f)
	return
}

func conn(t testing.TB) *remote.Conn {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	launch, _ := json.Marshal(protocol.Launch{Path: exe, Args: []string{exe}, Env: append(os.Environ(), childEnv+"=1")})
	t.Setenv(protocol.LaunchEnv, string(launch))
	c, err := remote.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// failure runs f and returns what it panicked with, as text.
func failure(f func()) (text string, failed bool) {
	defer func() {
		if v := recover(); v != nil {
			text, failed = fmt.Sprint(v), true
			if f, ok := v.(*remote.Failure); ok {
				text = "Failure: " + f.What
			}
		}
	}()
	f()
	return "", false
}

func TestCallsCrossWithTheirResults(t *testing.T) {
	c := conn(t)
	clk := clock.NewFake()
	p, err := newProxy(c, clk, 10)
	if err != nil {
		t.Fatalf("newProxy(10) error = %v, want nil", err)
	}
	if got := p.Add(5); got != 15 {
		t.Errorf("Add(5) = %d, want 15", got)
	}
	if got := p.Add(-20); got != -5 {
		t.Errorf("Add(-20) = %d, want -5", got)
	}
	for _, want := range []time.Time{
		clock.Epoch.Add(90 * time.Minute),
		time.Unix(0, math.MinInt64).UTC(),
		time.Unix(0, math.MaxInt64).In(time.FixedZone("east", 5*3600)),
		{},
	} {
		clk.Set(want)
		got := p.Now()
		_, gotOffset := got.Zone()
		if _, offset := want.Zone(); !got.Equal(want) || gotOffset != offset {
			t.Errorf("Now() = %v, want %v: the child's clock reads the checker's, to the nanosecond and the zone's offset", got, want)
		}
	}
	m, ps, g, empty := p.Shapes("a", 0.1)
	if diff := cmp.Diff(map[string]int{"a": 1, "b": 2}, m); diff != "" {
		t.Errorf("Shapes map (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]pair{{"a", 1}, {"ü", -3}}, ps); diff != "" {
		t.Errorf("Shapes slice (-want +got):\n%s", diff)
	}
	if g != 0.2 || empty {
		t.Errorf("Shapes = %v, %v, want 0.2, false", g, empty)
	}
	var none map[string]int
	var nothing []pair
	p.o.Call("Empty", []any{&m, &ps, &none, &nothing})
	if m == nil || len(m) != 0 || ps == nil || len(ps) != 0 || none != nil || nothing != nil {
		t.Errorf("Empty() = %#v, %#v, %#v, %#v, want an empty map and slice, then nil ones", m, ps, none, nothing)
	}
}

// The checker judges a slow case by the CPU time its calls used, and
// they run in the child.
func TestCPUCountsTheChilds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux shows another process's CPU time here")
	}
	c := conn(t)
	p, err := newProxy(c, clock.NewFake(), 1)
	if err != nil {
		t.Fatal(err)
	}
	before, ok := c.CPU()
	if !ok {
		t.Fatal("CPU() = false on Linux")
	}
	self, _ := procgroup.SelfCPU()
	p.o.Call("Spin", nil, 200*time.Millisecond)
	after, _ := c.CPU()
	selfAfter, _ := procgroup.SelfCPU()
	if child := (after - before) - (selfAfter - self); child < 150*time.Millisecond {
		t.Errorf("CPU() grew by %v, this process by %v, during a call that spun 200ms in the child: want the child's time counted", after-before, selfAfter-self)
	}
}

func TestErrorsKeepTheirMessageAndIdentity(t *testing.T) {
	c := conn(t)
	p, _ := newProxy(c, nil, 0)
	err := p.Check(-1)
	if err == nil || err.Error() != "check -1: toy: negative" || !errors.Is(err, errNegative) {
		t.Errorf("Check(-1) = %v, want an error that is errNegative, with the child's message", err)
	}
	if err := p.Check(0); err == nil || errors.Is(err, errNegative) {
		t.Errorf("Check(0) = %v, want an error that is not errNegative", err)
	}
	if err := p.Check(1); err != nil {
		t.Errorf("Check(1) = %v, want nil", err)
	}
	if _, err := newProxy(c, nil, -1); !errors.Is(err, errNegative) {
		t.Errorf("newProxy(-1) error = %v, want errNegative", err)
	}
}

func TestPanicsAreRaisedAgainWithTheirText(t *testing.T) {
	c := conn(t)
	p, _ := newProxy(c, nil, 0)
	if got, _ := failure(func() { p.o.Call("Panic", nil, "not implemented: Toy.Panic") }); got != "not implemented: Toy.Panic" {
		t.Errorf("Panic panicked with %q, want the child's text", got)
	}
	if got, _ := failure(func() { newProxy(c, nil, 99) }); got != "newToy: start 99 is unlucky" {
		t.Errorf("newProxy(99) panicked with %q, want the constructor's text", got)
	}
	if got := p.Add(1); got != 1 {
		t.Errorf("Add(1) after a panic = %d, want 1: the child goes on", got)
	}
}

func TestAChildThatDiesFailsTheCallAndANewOneStarts(t *testing.T) {
	for _, tc := range []struct {
		method string
		args   []any
		want   string
	}{
		{"Exit", []any{3}, "Failure: the level's process ended during Exit(…): exit status 3; it printed:\nbye"},
		{"Hang", nil, "Failure: Hang(…) did not return within"},
		{"Goexit", nil, "Failure: the level's process ended during Goexit(…): exit status 2; it printed:\nfatal error: no goroutines (main called runtime.Goexit) - deadlock!"},
		{"Flood", nil, "Failure: the level's process, during Flood(…): sent an answer larger than 8 MiB"},
		{"Nonsense", nil, "Failure: the level's process, during Nonsense(…): gob: "},
		{"Nope", nil, "Failure: the level's process could not make the call Nope: *remote_test.toy has no method Nope"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			c := conn(t)
			p, _ := newProxy(c, nil, 1)
			if tc.method == "Hang" {
				// Short, once the child is up: starting it takes longer
				// on a busy machine, and the other calls end by themselves.
				remote.SetCallLimit(c, 300*time.Millisecond)
			}
			got, failed := failure(func() { p.o.Call(tc.method, nil, tc.args...) })
			if !failed || !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s failed with %q, want %q", tc.method, got, tc.want)
			}
			remote.SetCallLimit(c, remote.CallLimit) // for the new child's start
			if _, failed := failure(func() { p.Add(1) }); !failed {
				t.Errorf("Add on an object of a child that died returned, want a failure")
			}
			q, _ := newProxy(c, nil, 5)
			if got := q.Add(1); got != 6 {
				t.Errorf("Add(1) on a new child = %d, want 6", got)
			}
		})
	}
}

// BenchmarkCall is one call's round trip to the child and back, what a
// checker pays for each call a case makes: 15,000 times in level 2's
// steady stream. cpu-ns/op counts both processes' CPU time.
func BenchmarkCall(b *testing.B) {
	c := conn(b)
	p, err := newProxy(c, clock.NewFake(), 0)
	if err != nil {
		b.Fatal(err)
	}
	p.Add(1)
	start, _ := c.CPU()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		p.Add(1)
		n++
	}
	end, _ := c.CPU()
	b.ReportMetric(float64(end-start)/float64(n), "cpu-ns/op")
}
