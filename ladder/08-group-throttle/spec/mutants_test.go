package spec

import (
	"container/list"
	"errors"
	"math"
	"math/big"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// Wrong implementations that the spec must catch, each with the part
// whose cases must catch it. Every one is built around the model, which
// itself stays plainly right: a wrapper that spoils its decisions, a book
// that counts one limit wrongly, or a clock that reads wrongly. If an edit
// to the spec lets one of them pass, this test fails.

// theModel is the model as a constructor.
func theModel(c clock.Clock, cfg limits.Config) (Throttler, error) { return newModel(c, cfg) }

// TestModelPassesTheSpec keeps the fuzz target's oracle honest: the model
// passes every case.
func TestModelPassesTheSpec(t *testing.T) {
	slowUnderRace(t)
	mustPass(t, cases(theModel, 0))
}

// mustPass plays the cases and reports every one that does not pass. It
// does not go through timeline.Run, whose stub-check mode would expect
// every case to be "not implemented".
func mustPass(t *testing.T, cs []timeline.Case[Throttler]) {
	t.Helper()
	for _, o := range timeline.PlayAll(cs) {
		if o.Verdict != timeline.Pass {
			t.Errorf("part %d, %s", o.Part, o.Report)
		}
	}
}

// slowUnderRace gives each case more time when the race detector slows
// the model down: its part 5 sends hundreds of thousands of requests.
func slowUnderRace(t *testing.T) {
	if raceEnabled && os.Getenv(timeline.TimeoutEnv) == "" {
		t.Setenv(timeline.TimeoutEnv, "2m")
	}
}

// wrapper is a model whose decisions go through allow, under the model's
// lock.
type wrapper struct {
	mu    sync.Mutex
	m     *core
	allow func(m *core, client string, n int) limits.Decision
}

func (w *wrapper) Allow(client string) limits.Decision { return w.AllowN(client, 1) }

func (w *wrapper) AllowN(client string, n int) limits.Decision {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.allow(w.m, client, n)
}

func (w *wrapper) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m.Len()
}

// wrapped builds wrappers around a fresh model.
func wrapped(allow func(m *core, client string, n int) limits.Decision) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		m, err := newCore(c, cfg, newPlainBook)
		if err != nil {
			return nil, err
		}
		return &wrapper{m: m, allow: allow}, nil
	}
}

// withBooks builds the model with other books for some limits.
func withBooks(newBook func(limits.Limit) book) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		m, err := newCore(c, cfg, newBook)
		if err != nil {
			return nil, err
		}
		return &model{core: m}, nil
	}
}

// slidingBooks uses a wrong sliding-window book, and the model's others.
func slidingBooks(wrong func(charges) book) func(limits.Limit) book {
	return func(l limits.Limit) book {
		if l.Algorithm == limits.SlidingWindow {
			return wrong(charges{lim: l})
		}
		return newPlainBook(l)
	}
}

// oldestWhole is a sliding window that counts its oldest bucket whole.
type oldestWhole struct{ slidingBook }

func (b *oldestWhole) room(t *big.Int) *big.Int {
	whole, oldest, _ := b.window(t)
	return roomOf(b.lim, whole.Add(whole, oldest))
}

// oldestIgnored is a sliding window that leaves its oldest bucket out.
type oldestIgnored struct{ slidingBook }

func (b *oldestIgnored) room(t *big.Int) *big.Int {
	whole, _, _ := b.window(t)
	return roomOf(b.lim, whole)
}

// now is the time the model is about to decide at.
func (m *core) now() int64 { return max(m.latest, unixNano(m.clk.Now())) }

// idle is how long after its last charge a client's state under l is
// surely fresh, as an int64 that may have wrapped: Per, or Per plus a
// bucket for a sliding window.
func idle(l limits.Limit) int64 {
	if l.Algorithm == limits.SlidingWindow {
		return int64(l.Per) + int64(l.Per)/(buckets(l)-1)
	}
	return int64(l.Per)
}

// lru forgets the least recently used client beyond capacity.
func lru(capacity int) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		order := list.New()
		at := map[string]*list.Element{}
		return wrapped(func(m *core, client string, n int) limits.Decision {
			if e, ok := at[client]; ok {
				order.MoveToBack(e)
			} else {
				at[client] = order.PushBack(client)
				if order.Len() > capacity {
					old := order.Remove(order.Front()).(string)
					delete(at, old)
					m.forget(old)
				}
			}
			return m.AllowN(client, n)
		})(c, cfg)
	}
}

// wrappingClock reads time as UnixNano does outside its range: it wraps
// around, so that 2263 reads as 1678.
type wrappingClock struct{ clock.Clock }

func (w wrappingClock) Now() time.Time { return time.Unix(0, w.Clock.Now().UnixNano()) }

// anyBounds accepts a ring of any size and a window of any length, by
// building the model with a config it accepts instead.
func anyBounds(c clock.Clock, cfg limits.Config) (Throttler, error) {
	relax := func(l limits.Limit) limits.Limit {
		if l.Algorithm == limits.SlidingWindow && (l.Buckets > limits.MaxBuckets || int64(l.Per) > math.MaxInt64/2) {
			l.Buckets, l.Per = 2, minute
		}
		return l
	}
	cfg.PerClient = relax(cfg.PerClient)
	cfg.Groups = slices.Clone(cfg.Groups)
	for i := range cfg.Groups {
		cfg.Groups[i].Limit = relax(cfg.Groups[i].Limit)
	}
	return newModel(c, cfg)
}

func TestSpecCatchesMutants(t *testing.T) {
	slowUnderRace(t)
	mutants := []struct {
		name  string
		parts []int // the parts whose cases must each catch it
		new   ctor
	}{
		{"a group denial still charges the client", []int{4}, wrapped(func(m *core, client string, n int) limits.Decision {
			d := m.AllowN(client, n)
			if own := m.clientBook(client); !d.Allowed && own.room(big.NewInt(m.latest)).Cmp(big.NewInt(int64(n))) >= 0 {
				own.add(m.latest, int64(n))
			}
			return d
		})},
		{"a sliding window counts its oldest bucket whole", []int{2}, withBooks(slidingBooks(func(c charges) book { return &oldestWhole{slidingBook{c}} }))},
		{"a sliding window ignores its oldest bucket", []int{2}, withBooks(slidingBooks(func(c charges) book { return &oldestIgnored{slidingBook{c}} }))},
		{"RetryAfter one nanosecond early", []int{1, 2, 3, 4}, wrapped(func(m *core, client string, n int) limits.Decision {
			d := m.AllowN(client, n)
			if d.RetryAfter > 0 {
				d.RetryAfter--
			}
			return d
		})},
		{"eviction forgets a client one Per after its last request, with its sliding window not yet empty", []int{5}, wrapped(func(m *core, client string, n int) limits.Decision {
			if last, ok := m.clientBook(client).last(); ok && big.NewInt(last).Cmp(new(big.Int).Sub(big.NewInt(m.now()), big.NewInt(int64(m.client.Per)))) <= 0 {
				m.forget(client)
			}
			return m.AllowN(client, n)
		})},
		{"LRU eviction at 10,000 clients: a flood of new clients resets a busy one", []int{5}, lru(10_000)},
		{"uses the clock as it reads, even when it went back", []int{1, 2, 3}, wrapped(func(m *core, client string, n int) limits.Decision {
			m.latest = math.MinInt64
			return m.AllowN(client, n)
		})},
		{"Remaining ignores the group", []int{4}, wrapped(func(m *core, client string, n int) limits.Decision {
			d := m.AllowN(client, n)
			d.Remaining = int(m.clientBook(client).room(big.NewInt(m.latest)).Int64())
			return d
		})},
		{"forgets a client once now−idle, in int64, passes its last request, though the subtraction wrapped", []int{1, 2, 3}, wrapped(func(m *core, client string, n int) limits.Decision {
			if last, ok := m.clientBook(client).last(); ok && last <= m.now()-idle(m.client) {
				m.forget(client)
			}
			return m.AllowN(client, n)
		})},
		{"the ready instant in int64: a wait past 2262 wraps and reads as never", []int{1, 2, 3}, wrapped(func(m *core, client string, n int) limits.Decision {
			d, retry := m.decide(client, n)
			clockNow := unixNano(m.clk.Now())
			if !new(big.Int).Add(big.NewInt(clockNow), retry).IsInt64() {
				retry = big.NewInt(m.latest - clockNow)
			}
			d.RetryAfter = time.Duration(retry.Int64())
			return d
		})},
		{"RetryAfter wraps around instead of stopping at the longest Duration", []int{1}, wrapped(func(m *core, client string, n int) limits.Decision {
			d, retry := m.decide(client, n)
			d.RetryAfter = time.Duration(new(big.Int).And(retry, new(big.Int).SetUint64(math.MaxUint64)).Uint64())
			return d
		})},
		{"the clock read with UnixNano, which wraps around past 2262", []int{1}, func(c clock.Clock, cfg limits.Config) (Throttler, error) {
			return newModel(wrappingClock{c}, cfg)
		}},
		{"New accepts a ring of any size, and a window whose wait a Duration cannot hold", []int{2}, anyBounds},
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			for _, part := range m.parts {
				caught := timeline.Catches(t, m.name, part, partCases(m.new, part))
				t.Logf("part %d: caught by %q", part, caught)
			}
		})
	}
}

// partCases are the cases of one part: a mutant meant for part 2 need not
// send the 100,000 requests of part 5.
func partCases(newThrottler ctor, part int) []timeline.Case[Throttler] {
	var out []timeline.Case[Throttler]
	for _, c := range cases(newThrottler, 0) {
		if c.Part == part {
			out = append(out, c)
		}
	}
	return out
}

// The unsynchronised mutant has no lock at all. Its mistake shows as a
// data race, which the race detector reports by failing the whole test
// binary, and sometimes as a crash ("concurrent map writes"): neither is
// something timeline.Catches can observe from inside the same process. So
// the check runs the mutant's part 5 cases in a child process built with
// -race, and expects that child to fail. When this test binary was itself
// built with -race, the child is this binary; otherwise it is
// "go test -race", which compiles the package once more (cached after the
// first run).

const childEnv = "THROTTLE_SPEC_RACY_CHILD"

func TestSpecCatchesUnsynchronisedMap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a child test process with -race")
	}
	var cmd *exec.Cmd
	if raceEnabled {
		cmd = exec.Command(os.Args[0], "-test.run=^TestRacyChild$", "-test.count=1")
	} else {
		gotool, err := exec.LookPath("go")
		if err != nil {
			t.Skipf("no go command to build the race-enabled child: %v", err)
		}
		cmd = exec.Command(gotool, "test", "-race", "-count=1", "-run=^TestRacyChild$", ".")
	}
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child test did not fail, so the spec misses an unsynchronised throttler (err = %v). Its output:\n%s", err, out)
	}
	switch s := string(out); {
	case strings.Contains(s, "-race requires cgo") || strings.Contains(s, "-race is not supported"):
		t.Skipf("this machine cannot build with -race, so the unsynchronised mutant goes unchecked:\n%s", out)
	case strings.Contains(s, "WARNING: DATA RACE"):
		t.Log("caught: the race detector reported a data race in the child")
	case strings.Contains(s, "concurrent map"):
		t.Log("caught: the child crashed with a concurrent map access")
	case strings.Contains(s, "--- FAIL: TestRacyChild"):
		t.Log("caught: a part 5 case failed in the child")
	default:
		t.Fatalf("the child failed, but not because of the unsynchronised map. Its output:\n%s", out)
	}
}

// TestRacyChild runs the unsynchronised mutant's part 5 cases that use
// goroutines. It does nothing unless TestSpecCatchesUnsynchronisedMap
// started it.
func TestRacyChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("run only as the child of TestSpecCatchesUnsynchronisedMap")
	}
	var concurrent []timeline.Case[Throttler]
	unsynchronised := func(c clock.Clock, cfg limits.Config) (Throttler, error) { return newCore(c, cfg, newPlainBook) }
	for _, c := range partCases(unsynchronised, 5) {
		if strings.Contains(c.Name, "goroutines") || strings.Contains(c.Name, "concurrency") {
			concurrent = append(concurrent, c)
		}
	}
	mustPass(t, concurrent)
}
