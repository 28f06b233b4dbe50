package spec

import (
	"fmt"
	"math"
	"math/big"
	"sync"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// This file is the instructor's: a student copy leaves it out, since the
// model is a whole, exact throttler, an answer to every part. Without it
// the fuzz target has no wants, and skips (see fuzzModel).
func init() {
	fuzzModel = func(c clock.Clock, cfg limits.Config) (interface {
		AllowN(client string, n int) limits.Decision
	}, error) {
		return newModel(c, cfg)
	}
}

// model is a plain, slow throttler that the fuzz target trusts. It keeps
// every allowed request and works each limit out from that log in exact
// arithmetic (big integers and rationals, so that nothing near the ends of
// the int64 range overflows), and it finds RetryAfter by binary search over
// time rather than by a formula.
//
// The wrong throttlers of mutants_test.go are built around it, never
// inside it: the model itself has no switch for a mistake.
type model struct {
	mu sync.Mutex
	*core
}

// core is the model without its lock.
type core struct {
	clk     clock.Clock
	client  limits.Limit
	groups  map[string]limits.Limit // group name → limit
	groupOf map[string]string       // client → group name
	latest  int64                   // the throttler's time, Unix ns
	books   map[bookKey]book
	newBook func(limits.Limit) book
}

// bookKey names a client's book or a group's.
type bookKey struct {
	group bool
	name  string
}

// book is one client's or one group's log of allowed requests under one
// limit.
type book interface {
	limit() limits.Limit
	// room is the largest m such that m more requests would be allowed at
	// t, which may lie beyond the int64 range when RetryAfter is searched.
	room(t *big.Int) *big.Int
	// add charges n requests at the instant at.
	add(at, n int64)
	// last is the instant of the latest charge, and false if none.
	last() (int64, bool)
}

func newModel(c clock.Clock, cfg limits.Config) (*model, error) {
	co, err := newCore(c, cfg, newPlainBook)
	if err != nil {
		return nil, err
	}
	return &model{core: co}, nil
}

func newCore(c clock.Clock, cfg limits.Config, newBook func(limits.Limit) book) (*core, error) {
	if err := modelCheck("PerClient", cfg.PerClient); err != nil {
		return nil, err
	}
	m := &core{clk: c, client: cfg.PerClient, groups: map[string]limits.Limit{}, groupOf: map[string]string{},
		latest: math.MinInt64, books: map[bookKey]book{}, newBook: newBook}
	for i, g := range cfg.Groups {
		if g.Name == "" {
			return nil, fmt.Errorf("Groups[%d].Name is empty", i)
		}
		if err := modelCheck(fmt.Sprintf("Groups[%d].Limit", i), g.Limit); err != nil {
			return nil, err
		}
		m.groups[g.Name] = g.Limit
		for _, c := range g.Clients {
			if other, ok := m.groupOf[c]; ok && other != g.Name {
				return nil, fmt.Errorf("Groups[%d].Clients: %q is already in group %q", i, c, other)
			}
			m.groupOf[c] = g.Name
		}
	}
	return m, nil
}

func (m *model) Allow(client string) limits.Decision { return m.AllowN(client, 1) }

func (m *model) AllowN(client string, n int) limits.Decision {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.core.AllowN(client, n)
}

func (m *model) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.core.Len()
}

func (m *core) Allow(client string) limits.Decision { return m.AllowN(client, 1) }

// AllowN is decide with RetryAfter as a time.Duration: at most
// math.MaxInt64 nanoseconds.
func (m *core) AllowN(client string, n int) limits.Decision {
	d, retry := m.decide(client, n)
	if retry.Cmp(big.NewInt(math.MaxInt64)) > 0 {
		retry.SetInt64(math.MaxInt64)
	}
	d.RetryAfter = time.Duration(retry.Int64())
	return d
}

// decide makes the decision, with RetryAfter left out and returned exactly.
func (m *core) decide(client string, n int) (limits.Decision, *big.Int) {
	if n < 1 {
		panic(fmt.Sprintf("AllowN(%q, %d): n must be at least 1", client, n))
	}
	clockNow := unixNano(m.clk.Now())
	m.latest = max(m.latest, clockNow)
	now := m.latest
	want := big.NewInt(int64(n))

	limited := []book{m.clientBook(client)}
	if b := m.groupBook(client); b != nil {
		limited = append(limited, b)
	}
	var remaining *big.Int
	allowed, never := true, false
	for _, b := range limited {
		room := b.room(big.NewInt(now))
		if remaining == nil || room.Cmp(remaining) < 0 {
			remaining = room
		}
		allowed = allowed && want.Cmp(room) <= 0
		never = never || n > b.limit().Requests
	}
	if allowed {
		for _, b := range limited {
			b.add(now, int64(n))
		}
		return limits.Decision{Allowed: true, Remaining: int(remaining.Int64()) - n}, new(big.Int)
	}
	d := limits.Decision{Remaining: int(remaining.Int64())}
	if never {
		return d, new(big.Int)
	}
	// Each limit, left alone, only gets better with time, so the request
	// is allowed from the latest of the instants at which each would.
	ready := big.NewInt(now)
	for _, b := range limited {
		if at := readyAt(b, now, want); at.Cmp(ready) > 0 {
			ready = at
		}
	}
	return d, ready.Sub(ready, big.NewInt(clockNow))
}

// Len counts the clients and groups whose state differs from a fresh one.
func (m *core) Len() int {
	m.latest = max(m.latest, unixNano(m.clk.Now()))
	held := 0
	for _, b := range m.books {
		// Every limit is back to full within 2·Per of its latest charge.
		last, ok := b.last()
		if !ok || new(big.Int).Sub(big.NewInt(m.latest), big.NewInt(last)).Cmp(big.NewInt(2*int64(b.limit().Per))) >= 0 {
			continue
		}
		if b.room(big.NewInt(m.latest)).Cmp(big.NewInt(int64(b.limit().Requests))) < 0 {
			held++
		}
	}
	return held
}

func (m *core) clientBook(client string) book { return m.book(bookKey{false, client}, m.client) }

// groupBook returns the book of the client's group, or nil.
func (m *core) groupBook(client string) book {
	name, ok := m.groupOf[client]
	if !ok {
		return nil
	}
	return m.book(bookKey{true, name}, m.groups[name])
}

func (m *core) book(key bookKey, l limits.Limit) book {
	b := m.books[key]
	if b == nil {
		b = m.newBook(l)
		m.books[key] = b
	}
	return b
}

// forget drops a client's book, as if it had never asked.
func (m *core) forget(client string) { delete(m.books, bookKey{false, client}) }

// unixNano is t in Unix nanoseconds, taking an instant outside the range
// an int64 holds as the nearest end of it.
func unixNano(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, math.MinInt64)):
		return math.MinInt64
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// readyAt finds, by binary search, the first instant from now on at which
// room is at least n. Without new charges, room never falls as time goes
// on, and every limit is back to full within 2·Per.
func readyAt(b book, now int64, n *big.Int) *big.Int {
	lo := big.NewInt(now)
	hi := new(big.Int).Add(lo, new(big.Int).Mul(big.NewInt(3), big.NewInt(int64(b.limit().Per))))
	for lo.Cmp(hi) < 0 {
		mid := new(big.Int).Add(lo, hi)
		mid.Rsh(mid, 1)
		if b.room(mid).Cmp(n) >= 0 {
			hi = mid
		} else {
			lo = mid.Add(mid, big.NewInt(1))
		}
	}
	return lo
}

// charges is the log every book keeps: the allowed requests in order,
// those at one instant added up, each with the index of its window or
// bucket, the instant divided by span rounded down.
type charges struct {
	lim  limits.Limit
	span *big.Int
	log  []charge
}

type charge struct {
	at, n int64
	index *big.Int
}

func (c *charges) limit() limits.Limit { return c.lim }

func (c *charges) add(at, n int64) {
	if k := len(c.log) - 1; k >= 0 && c.log[k].at == at {
		c.log[k].n += n
		return
	}
	c.log = append(c.log, charge{at, n, div(big.NewInt(at), c.span)})
}

func (c *charges) last() (int64, bool) {
	if len(c.log) == 0 {
		return 0, false
	}
	return c.log[len(c.log)-1].at, true
}

// sum adds up the charges whose index is in [from, to].
func (c *charges) sum(from, to *big.Int) *big.Int {
	total := new(big.Int)
	for _, ch := range c.log {
		if ch.index.Cmp(from) >= 0 && ch.index.Cmp(to) <= 0 {
			total.Add(total, big.NewInt(ch.n))
		}
	}
	return total
}

func newPlainBook(l limits.Limit) book {
	switch l.Algorithm {
	case limits.FixedWindow:
		return &fixedBook{charges{lim: l, span: big.NewInt(int64(l.Per))}}
	case limits.SlidingWindow:
		return &slidingBook{charges{lim: l, span: big.NewInt(int64(l.Per) / (buckets(l) - 1))}}
	default:
		return &tokenBook{charges: charges{lim: l, span: big.NewInt(int64(l.Per))}}
	}
}

// fixedBook counts the charges in the window [k·Per, (k+1)·Per) of t.
type fixedBook struct{ charges }

func (b *fixedBook) room(t *big.Int) *big.Int {
	k := div(t, b.span)
	used := b.sum(k, k)
	return used.Sub(big.NewInt(int64(b.lim.Requests)), used)
}

// slidingBook estimates the window (t−Per, t] from its buckets: the
// newest B−1 whole, the oldest weighted by the part still inside.
type slidingBook struct{ charges }

func (b *slidingBook) room(t *big.Int) *big.Int {
	whole, oldest, e := b.window(t)
	// Requests − whole − oldest·(w−e)/w, multiplied through by w so that
	// it stays whole, then divided by w rounding down.
	left := new(big.Int).Sub(big.NewInt(int64(b.lim.Requests)), whole)
	left.Mul(left, b.span)
	left.Sub(left, oldest.Mul(oldest, e.Sub(b.span, e)))
	if left.Sign() < 0 {
		return new(big.Int)
	}
	return left.Div(left, b.span)
}

// window returns the requests in buckets k−B+2 … k, those in bucket k−B+1,
// and how far t is into bucket k, e: the part (w−e)/w of bucket k−B+1 is
// still inside (t−Per, t].
func (b *slidingBook) window(t *big.Int) (whole, oldest, e *big.Int) {
	width := b.span
	k := div(t, width)
	first := new(big.Int).Sub(k, big.NewInt(buckets(b.lim)-1)) // k−B+1
	e = new(big.Int).Sub(t, new(big.Int).Mul(k, width))
	whole = b.sum(new(big.Int).Add(first, big.NewInt(1)), k)
	oldest = b.sum(first, first)
	return whole, oldest, e
}

// roomOf is the largest whole m with estimate + m <= Requests, at least 0.
func roomOf(l limits.Limit, estimate *big.Int) *big.Int {
	return max0(new(big.Int).Sub(big.NewInt(int64(l.Requests)), estimate))
}

func max0(x *big.Int) *big.Int {
	if x.Sign() < 0 {
		return x.SetInt64(0)
	}
	return x
}

// tokenBook keeps its bucket's level after the latest charge, and when
// that was, rather than replaying every charge on every call. The level is
// counted in Per-ths of a token, so that the refill of Requests per Per is
// Requests of them a nanosecond, and every number is a whole one.
type tokenBook struct {
	charges
	level *big.Int // in Per-ths of a token; nil until the first charge
	at    int64
}

func (b *tokenBook) room(t *big.Int) *big.Int {
	if b.level == nil {
		return big.NewInt(int64(b.lim.Requests)) // never charged: full
	}
	return div(b.levelAt(t), b.span)
}

// levelAt is the level after the latest charge plus the refill since, at
// most full. An instant before the latest charge adds nothing.
func (b *tokenBook) levelAt(t *big.Int) *big.Int {
	level := new(big.Int).Set(b.level)
	if since := new(big.Int).Sub(t, big.NewInt(b.at)); since.Sign() > 0 {
		level.Add(level, since.Mul(since, big.NewInt(int64(b.lim.Requests))))
	}
	if full := new(big.Int).Mul(big.NewInt(int64(b.lim.Requests)), b.span); level.Cmp(full) > 0 {
		level = full
	}
	return level
}

func (b *tokenBook) add(at, n int64) {
	b.charges.add(at, n)
	if b.level == nil {
		b.level, b.at = new(big.Int).Mul(big.NewInt(int64(b.lim.Requests)), b.span), at
	}
	b.level = b.levelAt(big.NewInt(at))
	b.level.Sub(b.level, new(big.Int).Mul(big.NewInt(n), b.span))
	b.at = at
}

// div is a/b rounded towards minus infinity, for b > 0.
func div(a, b *big.Int) *big.Int {
	// Div is Euclidean division; with a positive divisor, the floor.
	return new(big.Int).Div(a, b)
}
