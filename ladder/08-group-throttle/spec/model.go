package spec

import (
	"container/list"
	"fmt"
	"math"
	"math/big"
	"sync"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// model is a plain, slow throttler that the fuzz target trusts: it keeps
// every allowed request and works each limit out from that log in exact
// rational arithmetic, and it finds RetryAfter by binary search over time
// rather than by a formula. The spec's own tests also build wrong
// throttlers from it, by switching on one of its bugs.
type model struct {
	mu      sync.Mutex
	clk     clock.Clock
	client  limits.Limit
	groups  map[string]limits.Limit // group name → limit
	groupOf map[string]string       // client → group name
	latest  int64                   // the throttler's time, Unix ns
	books   map[string]*book        // "client\x00alice", "group\x00team"
	bugs    bugs
	lru     *list.List               // bugs.lruCapacity only: client books, least recently used first
	lruAt   map[string]*list.Element // bugs.lruCapacity only
}

// bugs are the mistakes a wrong throttler built from the model makes.
type bugs struct {
	chargeClientOnGroupDenial bool // a group denial still charges the client
	oldestWhole               bool // the sliding window counts its oldest bucket whole
	oldestIgnored             bool // the sliding window ignores its oldest bucket
	retryEarly                bool // RetryAfter one nanosecond short
	forgetAfterPer            bool // a client whose last request is one Per old starts fresh
	lruCapacity               int  // keep at most this many clients, forgetting the least recently used
	unsynchronised            bool // no lock
	clockAsIs                 bool // use the clock's reading even when it went back
	remainingOfClient         bool // Remaining from the client's limit only
}

// book is one client's or one group's log of allowed requests.
type book struct {
	limit   limits.Limit
	charges []charge
	// A token bucket keeps its level after the last charge, and when that
	// was, rather than replaying every charge on every call.
	tokens     *big.Rat
	tokensTime int64
}

type charge struct{ at, n int64 }

func newModel(c clock.Clock, cfg limits.Config, b bugs) (*model, error) {
	if err := modelCheck("PerClient", cfg.PerClient); err != nil {
		return nil, err
	}
	m := &model{clk: c, client: cfg.PerClient, groups: map[string]limits.Limit{}, groupOf: map[string]string{},
		latest: math.MinInt64, books: map[string]*book{}, bugs: b}
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
	if b.lruCapacity > 0 {
		m.lru, m.lruAt = list.New(), map[string]*list.Element{}
	}
	return m, nil
}

func modelCheck(field string, l limits.Limit) error {
	switch {
	case l.Algorithm < limits.FixedWindow || l.Algorithm > limits.TokenBucket:
		return fmt.Errorf("%s.Algorithm is unknown", field)
	case l.Requests < 1:
		return fmt.Errorf("%s.Requests must be at least 1", field)
	case l.Per <= 0:
		return fmt.Errorf("%s.Per must be positive", field)
	case l.Algorithm == limits.SlidingWindow && (buckets(l) < 2 || int64(l.Per)%(buckets(l)-1) != 0):
		return fmt.Errorf("%s.Buckets must be 0 or at least 2, and divide Per", field)
	}
	return nil
}

func buckets(l limits.Limit) int64 {
	if l.Buckets == 0 {
		return 2
	}
	return int64(l.Buckets)
}

func (m *model) Allow(client string) limits.Decision { return m.AllowN(client, 1) }

func (m *model) AllowN(client string, n int) limits.Decision {
	if n < 1 {
		panic(fmt.Sprintf("AllowN(%q, %d): n must be at least 1", client, n))
	}
	if !m.bugs.unsynchronised {
		m.mu.Lock()
		defer m.mu.Unlock()
	}
	clockNow := m.clk.Now().UnixNano()
	now := m.advance(clockNow)
	chargeAt := now
	if m.bugs.clockAsIs {
		now, chargeAt = clockNow, clockNow
	}
	want := int64(n)

	cb := m.book("client\x00"+client, m.client)
	if m.bugs.forgetAfterPer && len(cb.charges) > 0 && cb.charges[len(cb.charges)-1].at <= now-int64(m.client.Per) {
		*cb = book{limit: cb.limit}
	}
	m.touch(client)
	room := cb.room(now, m.bugs)
	var gb *book
	groupRoom := int64(math.MaxInt64)
	if name, ok := m.groupOf[client]; ok {
		gb = m.book("group\x00"+name, m.groups[name])
		groupRoom = gb.room(now, m.bugs)
	}
	remaining := min(room, groupRoom)
	if m.bugs.remainingOfClient {
		remaining = room
	}
	if want <= room && want <= groupRoom {
		cb.add(chargeAt, want)
		if gb != nil {
			gb.add(chargeAt, want)
		}
		return limits.Decision{Allowed: true, Remaining: int(remaining - want)}
	}
	if m.bugs.chargeClientOnGroupDenial && want <= room {
		cb.add(chargeAt, want)
	}
	d := limits.Decision{Remaining: int(remaining)}
	if want > int64(cb.limit.Requests) || gb != nil && want > int64(gb.limit.Requests) {
		return d
	}
	ready := now
	if want > room {
		ready = max(ready, cb.readyAt(now, want, m.bugs))
	}
	if gb != nil && want > groupRoom {
		ready = max(ready, gb.readyAt(now, want, m.bugs))
	}
	d.RetryAfter = time.Duration(ready - clockNow)
	if m.bugs.retryEarly {
		d.RetryAfter--
	}
	return d
}

// Len counts the clients and groups whose state differs from a fresh one.
func (m *model) Len() int {
	if !m.bugs.unsynchronised {
		m.mu.Lock()
		defer m.mu.Unlock()
	}
	now := m.advance(m.clk.Now().UnixNano())
	held := 0
	for _, b := range m.books {
		if b.room(now, m.bugs) < int64(b.limit.Requests) {
			held++
		}
	}
	return held
}

func (m *model) advance(clockNow int64) int64 {
	m.latest = max(m.latest, clockNow)
	return m.latest
}

func (m *model) book(key string, l limits.Limit) *book {
	b := m.books[key]
	if b == nil {
		b = &book{limit: l}
		m.books[key] = b
	}
	return b
}

// touch keeps the LRU order of the lruCapacity bug, and forgets the least
// recently used client when there are too many.
func (m *model) touch(client string) {
	if m.lru == nil {
		return
	}
	if e, ok := m.lruAt[client]; ok {
		m.lru.MoveToBack(e)
		return
	}
	m.lruAt[client] = m.lru.PushBack(client)
	if m.lru.Len() > m.bugs.lruCapacity {
		old := m.lru.Remove(m.lru.Front()).(string)
		delete(m.lruAt, old)
		delete(m.books, "client\x00"+old)
	}
}

// room is the largest m such that m more requests would be allowed at now.
func (b *book) room(now int64, bg bugs) int64 {
	l := b.limit
	requests, per := int64(l.Requests), int64(l.Per)
	switch l.Algorithm {
	case limits.FixedWindow:
		used := int64(0)
		for _, c := range b.charges {
			if floorDiv(c.at, per) == floorDiv(now, per) {
				used += c.n
			}
		}
		return requests - used
	case limits.SlidingWindow:
		bk := buckets(l)
		width := per / (bk - 1)
		k := floorDiv(now, width)
		elapsed := now - k*width
		whole, oldest := int64(0), int64(0)
		for _, c := range b.charges {
			switch i := floorDiv(c.at, width); {
			case i > k-bk+1 && i <= k:
				whole += c.n
			case i == k-bk+1:
				oldest += c.n
			}
		}
		weight := big.NewRat(width-elapsed, width)
		switch {
		case bg.oldestWhole:
			weight = big.NewRat(1, 1)
		case bg.oldestIgnored:
			weight = new(big.Rat)
		}
		estimate := new(big.Rat).Mul(weight, big.NewRat(oldest, 1))
		estimate.Add(estimate, big.NewRat(whole, 1))
		return max(0, floorRat(estimate.Sub(big.NewRat(requests, 1), estimate)))
	default:
		if b.tokens == nil {
			return requests // never charged: full
		}
		return floorRat(b.tokensAt(now))
	}
}

// tokensAt is the token bucket's level at now: the level after its last
// charge plus the refill since, at most full. An instant before the last
// charge adds nothing.
func (b *book) tokensAt(now int64) *big.Rat {
	t := new(big.Rat).Set(b.tokens)
	if now > b.tokensTime {
		t.Add(t, big.NewRat((now-b.tokensTime)*int64(b.limit.Requests), int64(b.limit.Per)))
	}
	if full := big.NewRat(int64(b.limit.Requests), 1); t.Cmp(full) > 0 {
		t.Set(full)
	}
	return t
}

// add charges n requests at the instant at.
func (b *book) add(at, n int64) {
	b.charges = append(b.charges, charge{at, n})
	if b.limit.Algorithm != limits.TokenBucket {
		return
	}
	if b.tokens == nil {
		b.tokens = big.NewRat(int64(b.limit.Requests), 1)
		b.tokensTime = at
	}
	b.tokens = b.tokensAt(at)
	b.tokens.Sub(b.tokens, big.NewRat(n, 1))
	b.tokensTime = at
}

// readyAt finds, by binary search, the first instant from now on at which
// room is at least n. Without new charges, room never falls as time goes
// on, and every limit is back to full within 2·Per.
func (b *book) readyAt(now, n int64, bg bugs) int64 {
	lo, hi := now, now+3*int64(b.limit.Per)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if b.room(mid, bg) >= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

func floorRat(r *big.Rat) int64 {
	// Div is Euclidean division; with a positive denominator, the floor.
	return new(big.Int).Div(r.Num(), r.Denom()).Int64()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
