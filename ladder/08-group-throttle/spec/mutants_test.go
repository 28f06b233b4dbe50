package spec

import (
	"container/list"
	"math"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/mutation"
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

// TestRightImplementationPasses plays every case against the model, the
// mutants' base with no mistake, which also keeps the fuzz target's oracle
// honest.
func TestRightImplementationPasses(t *testing.T) {
	slowUnderRace(t)
	mutation.Passes(t, "the model", 0, cases(theModel, 0))
}

// slowUnderRace gives each case more time when the race detector slows
// the model down: its part 5 sends hundreds of thousands of requests.
func slowUnderRace(t *testing.T) {
	if timeline.RaceEnabled && os.Getenv(timeline.TimeoutEnv) == "" {
		t.Setenv(timeline.TimeoutEnv, "2m")
	}
}

// wrapper is a model whose decisions go through allow, under the model's
// lock. Its Len is the model's.
type wrapper struct {
	*model
	allow func(m *core, client string, n int) limits.Decision
}

func (w *wrapper) Allow(client string) limits.Decision { return w.AllowN(client, 1) }

func (w *wrapper) AllowN(client string, n int) limits.Decision {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.allow(w.core, client, n)
}

// wrapped builds wrappers around a fresh model.
func wrapped(allow func(m *core, client string, n int) limits.Decision) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		m, err := newCore(c, cfg, newPlainBook)
		if err != nil {
			return nil, err
		}
		return &wrapper{model: &model{core: m}, allow: allow}, nil
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

// mutants are the spec's wrong implementations, each with the part meant
// to catch it. TestSpecCatchesMutants checks that it does, and
// TestMistakesTableIsCurrent keeps testdata/mistakes.json, what each fails.
var mutants = []struct {
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
	{"forgets a client once now−idle, in int64, passes its last request, though the subtraction wrapped", []int{5}, wrapped(func(m *core, client string, n int) limits.Decision {
		if last, ok := m.clientBook(client).last(); ok && last <= m.now()-idle(m.client) {
			m.forget(client)
		}
		return m.AllowN(client, n)
	})},
	{"the ready instant in int64: a wait past 2262 wraps and reads as never", []int{5}, wrapped(func(m *core, client string, n int) limits.Decision {
		d, retry := m.decide(client, n)
		clockNow := unixNano(m.clk.Now())
		if !new(big.Int).Add(big.NewInt(clockNow), retry).IsInt64() {
			retry = big.NewInt(m.latest - clockNow)
		}
		d.RetryAfter = time.Duration(retry.Int64())
		return d
	})},
	{"RetryAfter wraps around instead of stopping at the longest Duration", []int{5}, wrapped(func(m *core, client string, n int) limits.Decision {
		d, retry := m.decide(client, n)
		d.RetryAfter = time.Duration(new(big.Int).And(retry, new(big.Int).SetUint64(math.MaxUint64)).Uint64())
		return d
	})},
	{"the clock read with UnixNano, which wraps around past 2262", []int{5}, func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		return newModel(wrappingClock{c}, cfg)
	}},
	{"New accepts a ring of any size, and a window whose wait a Duration cannot hold", []int{2}, anyBounds},
}

func TestSpecCatchesMutants(t *testing.T) {
	mutation.SkipSweepIfShort(t)
	slowUnderRace(t)
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			for _, part := range m.parts {
				caught := mutation.JudgeOutcomes(t, m.name, part, played(m.name, m.new, slices.Max(m.parts)))
				t.Logf("part %d: caught by %q", part, caught)
			}
		})
	}
}

// plays keeps what each mutant's cases gave, by its name, so that
// TestSpecCatchesMutants and TestMistakesTableIsCurrent judge one play.
var plays = map[string][]timeline.Outcome{}

// played plays the cases of parts 1 to upTo built with newThrottler, once
// per mutant: a mutant meant for part 2 need not send the 100,000
// requests of part 5.
func played(name string, newThrottler ctor, upTo int) []timeline.Outcome {
	if o, ok := plays[name]; ok {
		return o
	}
	var cs []timeline.Case[Throttler]
	for _, c := range cases(newThrottler, 0) {
		if c.Part <= upTo {
			cs = append(cs, c)
		}
	}
	plays[name] = timeline.PlayAll(0, cs)
	return plays[name]
}

// TestSpecCatchesRaces checks that part 5 catches throttlers whose
// mistake shows as a data race, which the race detector reports by
// failing the whole test binary, and sometimes as a crash ("concurrent map
// writes"), so their cases run in a child process built with -race. Each
// mutant is a subtest of its own, so that the child runs that one alone.
func TestSpecCatchesRaces(t *testing.T) {
	t.Run("no lock", func(t *testing.T) {
		mutation.CaughtUnderRace(t, "an unsynchronised map", func(t *testing.T) {
			unsynchronised := func(c clock.Clock, cfg limits.Config) (Throttler, error) { return newCore(c, cfg, newPlainBook) }
			for _, c := range partCases(unsynchronised, 5) {
				if strings.Contains(c.Name, "goroutines") || strings.Contains(c.Name, "concurrency") {
					timeline.Play(c)
				}
			}
		})
	})
	t.Run("Len without the lock", func(t *testing.T) {
		mutation.CaughtUnderRace(t, "Len reads the table without the lock", func(t *testing.T) {
			for _, c := range partCases(withUnlockedLen, 5) {
				if c.Name == "Len is safe beside Allow from 8 goroutines" {
					timeline.Play(c)
				}
			}
		})
	})
}

// unlockedLen is the model with a Len that takes no lock: AllowN is safe,
// Len beside it is not.
type unlockedLen struct{ *model }

func (u unlockedLen) Len() int { return u.core.Len() }

func withUnlockedLen(c clock.Clock, cfg limits.Config) (Throttler, error) {
	m, err := newModel(c, cfg)
	if err != nil {
		return nil, err
	}
	return unlockedLen{m}, nil
}

// partCases are the cases of one part.
func partCases(newThrottler ctor, part int) []timeline.Case[Throttler] {
	var out []timeline.Case[Throttler]
	for _, c := range cases(newThrottler, 0) {
		if c.Part == part {
			out = append(out, c)
		}
	}
	return out
}
