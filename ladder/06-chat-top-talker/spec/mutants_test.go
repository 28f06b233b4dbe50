package spec

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// Wrong implementations that the spec must catch. Each is a complete
// aggregator with one mistake a learner makes; if an edit to the spec lets
// one of them pass, this test fails.

// naive is a plain aggregator: a slice of messages for a queue, maps of
// counts, and a heap of users that knows where each user sits, for the
// top. The mutants are naive with one thing changed, by a knob or by a
// method of their own.
type naive struct {
	window   time.Duration
	msgs     []Message
	users    map[string]int
	channels map[string]int
	since    map[string]int // when each user entered the window, by arrival number; nil unless a mutant orders by it
	arrivals int

	inclusive     bool                     // keeps a message exactly one window old
	lazyRecord    bool                     // Record never drops old messages; only queries do
	keepZeros     bool                     // a count that reaches zero stays in its map
	channelOfLast bool                     // expiry takes the channel from the user's latest message
	lastChannel   map[string]string        // nil unless channelOfLast
	onCount       func(user string, n int) // called with a user's count after every change
	rank          *userHeap
	maxDepth      int // if > 0, TopTalkers looks at heap places below maxDepth only
}

func newNaive(w time.Duration) *naive {
	if w <= 0 {
		panic(fmt.Sprintf("window must be positive, got %v", w))
	}
	// since and lastChannel stay nil unless a mutant needs them: each is a
	// map write per message, and the complexity cases send 100,000.
	a := &naive{window: w, users: map[string]int{}, channels: map[string]int{}}
	a.rank = &userHeap{counts: a.users, pos: map[string]int{}}
	return a
}

func (a *naive) expire(now time.Time) {
	cutoff := now.Add(-a.window)
	for len(a.msgs) > 0 && (!a.msgs[0].At.After(cutoff) && !(a.inclusive && a.msgs[0].At.Equal(cutoff))) {
		m := a.msgs[0]
		a.msgs = a.msgs[1:]
		channel := m.Channel
		if a.channelOfLast {
			channel = a.lastChannel[m.User]
		}
		a.addUser(m.User, -1)
		a.add(a.channels, channel, -1)
	}
}

func (a *naive) addUser(user string, d int) {
	a.add(a.users, user, d)
	a.rank.update(user)
	if _, ok := a.users[user]; !ok {
		delete(a.since, user)
		delete(a.lastChannel, user)
	}
	if a.onCount != nil {
		a.onCount(user, a.users[user])
	}
}

func (a *naive) add(counts map[string]int, name string, d int) {
	counts[name] += d
	if counts[name] == 0 && !a.keepZeros {
		delete(counts, name)
	}
}

func (a *naive) Record(m Message) {
	if !a.lazyRecord {
		a.expire(m.At)
	}
	if a.since != nil && a.users[m.User] == 0 {
		a.since[m.User] = a.arrivals
	}
	a.arrivals++
	a.msgs = append(a.msgs, m)
	if a.lastChannel != nil {
		a.lastChannel[m.User] = m.Channel
	}
	a.addUser(m.User, +1)
	a.add(a.channels, m.Channel, +1)
}

func (a *naive) Total(now time.Time) int { a.expire(now); return len(a.msgs) }

func (a *naive) ByUser(now time.Time, user string) int { a.expire(now); return a.users[user] }

func (a *naive) ByChannel(now time.Time, channel string) int {
	a.expire(now)
	return a.channels[channel]
}

func (a *naive) TopTalker(now time.Time) (Talker, bool) {
	a.expire(now)
	if len(a.rank.users) == 0 {
		return Talker{}, false
	}
	return a.rank.talker(0), true
}

// TopTalkers walks the heap from the root: the next best user is always
// a child of one already taken. The frontier is a plain slice, searched
// for its best, which is O(k) a step: O(k²) in all, and k is small.
func (a *naive) TopTalkers(now time.Time, k int) []Talker {
	a.expire(now)
	out := []Talker{}
	h := a.rank
	frontier := []int{}
	if len(h.users) > 0 {
		frontier = append(frontier, 0)
	}
	for len(out) < k && len(frontier) > 0 {
		best := 0
		for j := range frontier {
			if h.less(frontier[j], frontier[best]) {
				best = j
			}
		}
		i := frontier[best]
		frontier = slices.Delete(frontier, best, best+1)
		out = append(out, h.talker(i))
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(h.users) && (a.maxDepth == 0 || c < a.maxDepth) {
				frontier = append(frontier, c)
			}
		}
	}
	return out
}

// userHeap is a binary heap of the users with messages, most first and
// then by name; pos says where each user sits, so that a user whose count
// changed is sifted from there. Each place keeps its user's count, as
// update last read it from counts, so that a comparison reads no map.
type userHeap struct {
	counts map[string]int
	users  []Talker
	pos    map[string]int
}

func (h *userHeap) talker(i int) Talker { return h.users[i] }

func (h *userHeap) Len() int { return len(h.users) }
func (h *userHeap) less(i, j int) bool {
	ui, uj := h.users[i], h.users[j]
	return ui.Messages > uj.Messages || ui.Messages == uj.Messages && ui.User < uj.User
}
func (h *userHeap) Less(i, j int) bool { return h.less(i, j) }
func (h *userHeap) Swap(i, j int) {
	h.users[i], h.users[j] = h.users[j], h.users[i]
	h.pos[h.users[i].User], h.pos[h.users[j].User] = i, j
}
func (h *userHeap) Push(x any) {
	h.pos[x.(Talker).User] = len(h.users)
	h.users = append(h.users, x.(Talker))
}
func (h *userHeap) Pop() any {
	u := h.users[len(h.users)-1]
	h.users = h.users[:len(h.users)-1]
	delete(h.pos, u.User)
	return u
}

// update puts user where their count, just changed, belongs.
func (h *userHeap) update(user string) {
	i, in := h.pos[user]
	n := h.counts[user]
	switch {
	case n > 0 && in:
		h.users[i].Messages = n
		heap.Fix(h, i)
	case n > 0:
		heap.Push(h, tk(user, n))
	case in:
		heap.Remove(h, i)
	}
}

// ranked sorts the users with messages, most first and then by tie.
// Each user's arrival is read once, before the sort, rather than in
// every comparison: the sort is the mutant's mistake, the map reads are
// not.
func (a *naive) ranked(tie func(x, y ranking) int) []Talker {
	all := []ranking{}
	for u, n := range a.users {
		if n > 0 {
			all = append(all, ranking{tk(u, n), a.since[u]})
		}
	}
	slices.SortFunc(all, func(x, y ranking) int {
		if x.Messages != y.Messages {
			return y.Messages - x.Messages
		}
		return tie(x, y)
	})
	out := make([]Talker, len(all))
	for i, r := range all {
		out[i] = r.Talker
	}
	return out
}

// ranking is a user as ranked sorts them: their count, and when they
// entered the window.
type ranking struct {
	Talker
	since int
}

func byName(x, y ranking) int { return strings.Compare(x.User, y.User) }

// firstToArrive orders tied users by when they entered the window, as a
// list that appends newcomers at the back would.
func firstToArrive(x, y ranking) int { return x.since - y.since }

func first(all []Talker) (Talker, bool) {
	if len(all) == 0 {
		return Talker{}, false
	}
	return all[0], true
}

// flippedTies scans every user, but a tie goes to the larger name.
type flippedTies struct{ *naive }

func (a flippedTies) TopTalker(now time.Time) (Talker, bool) {
	a.expire(now)
	var best Talker
	for u, n := range a.users {
		if n > best.Messages || n == best.Messages && u > best.User {
			best = tk(u, n)
		}
	}
	return best, best.Messages > 0
}

// tiesByArrival gives a tie to the user who entered the window first.
type tiesByArrival struct{ *naive }

func (a tiesByArrival) TopTalker(now time.Time) (Talker, bool) {
	a.expire(now)
	return first(a.ranked(firstToArrive))
}

// cutOffByArrival has the right leader, but orders TopTalkers' ties by
// arrival.
type cutOffByArrival struct{ *naive }

func (a cutOffByArrival) TopTalkers(now time.Time, k int) []Talker {
	a.expire(now)
	all := a.ranked(firstToArrive)
	return all[:max(0, min(k, len(all)))]
}

// countsOnlyGrow ranks users by a second count that arrivals raise and
// expiry never lowers.
type countsOnlyGrow struct {
	*naive
	sent map[string]int
}

func (a countsOnlyGrow) Record(m Message) { a.naive.Record(m); a.sent[m.User]++ }

func (a countsOnlyGrow) TopTalker(now time.Time) (Talker, bool) {
	a.expire(now)
	return first(ranked(a.sent))
}

// cachedLeader updates the leader when a message arrives and never looks
// at it again when messages expire.
type cachedLeader struct {
	*naive
	best *Talker
}

func (a cachedLeader) Record(m Message) {
	a.naive.Record(m)
	n := a.users[m.User]
	if n > a.best.Messages || n == a.best.Messages && m.User < a.best.User {
		*a.best = tk(m.User, n)
	}
}

func (a cachedLeader) TopTalker(now time.Time) (Talker, bool) {
	a.expire(now)
	return *a.best, a.best.Messages > 0
}

// staleHeap is a heap with lazy deletion that forgets the second half of
// the idea: it pushes a user's new count on every change and skips entries
// of users who left, but trusts any entry of a user still present, though
// their count may have fallen since it was pushed.
type staleHeap struct {
	*naive
	h *talkerHeap
}

func newStaleHeap(w time.Duration) Aggregator {
	a := staleHeap{naive: newNaive(w), h: &talkerHeap{}}
	a.onCount = func(user string, n int) {
		if n > 0 {
			heap.Push(a.h, tk(user, n))
		}
	}
	return a
}

func (a staleHeap) TopTalker(now time.Time) (Talker, bool) {
	a.expire(now)
	for a.h.Len() > 0 && a.users[(*a.h)[0].User] == 0 {
		heap.Pop(a.h)
	}
	if a.h.Len() == 0 {
		return Talker{}, false
	}
	return (*a.h)[0], true
}

type talkerHeap []Talker

func (h talkerHeap) Len() int { return len(h) }
func (h talkerHeap) Less(i, j int) bool {
	if h[i].Messages != h[j].Messages {
		return h[i].Messages > h[j].Messages
	}
	return h[i].User < h[j].User
}
func (h talkerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *talkerHeap) Push(x any)   { *h = append(*h, x.(Talker)) }
func (h *talkerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// scansForTop finds the top talker by a scan over every user: right, and
// O(U) a query.
type scansForTop struct{ *naive }

func (a scansForTop) TopTalker(now time.Time) (Talker, bool) {
	a.expire(now)
	var best Talker
	for u, n := range a.users {
		if n > best.Messages || n == best.Messages && u < best.User {
			best = tk(u, n)
		}
	}
	return best, best.Messages > 0
}

// sortsForTopK sorts every user to show k: right, and O(U log U) a query.
type sortsForTopK struct{ *naive }

func (a sortsForTopK) TopTalkers(now time.Time, k int) []Talker {
	a.expire(now)
	all := a.ranked(byName)
	return all[:max(0, min(k, len(all)))]
}

// nilForNoK returns nil rather than an empty slice when k <= 0.
type nilForNoK struct{ *naive }

func (a nilForNoK) TopTalkers(now time.Time, k int) []Talker {
	if k <= 0 {
		return nil
	}
	return a.naive.TopTalkers(now, k)
}

// paddedToK makes a slice of length k and fills what it can.
type paddedToK struct{ *naive }

func (a paddedToK) TopTalkers(now time.Time, k int) []Talker {
	out := make([]Talker, max(k, 0))
	copy(out, a.naive.TopTalkers(now, k))
	return out
}

// listsZeros keeps users whose messages all left, with a count of zero,
// and TopTalkers lists them.
type listsZeros struct{ *naive }

func (a listsZeros) TopTalkers(now time.Time, k int) []Talker {
	a.expire(now)
	all := ranked(a.users)
	return all[:max(0, min(k, len(all)))]
}

// arrivalOrdered is naive, keeping when each user entered the window.
func arrivalOrdered(w time.Duration) *naive {
	a := newNaive(w)
	a.since = map[string]int{}
	return a
}

func with(knob func(a *naive)) func(time.Duration) Aggregator {
	return func(w time.Duration) Aggregator {
		a := newNaive(w)
		knob(a)
		return a
	}
}

// suite is the spec as its own tests check it: its cases, and its fuzz
// target's seeds.
var suite = mutation.SpecOf(cases, fuzzSeeds, fuzzCase)

// mutants are the spec's wrong implementations, each with the part meant
// to catch it. TestSpecCatchesMutants checks that it does, and keeps
// testdata/mistakes.json, what each fails: after a change to the spec or
// the mutants, LADDER_UPDATE_MISTAKES=1 go test -run TestSpecCatchesMutants .
// in this folder writes it again.
var mutants = []mutation.Impl[func(time.Duration) Aggregator]{
	{Name: "inclusive boundary: still counts a message exactly one window old", Part: 1,
		New: with(func(a *naive) { a.inclusive = true })},
	{Name: "expiry takes the channel from the user's latest message", Part: 1,
		New: with(func(a *naive) { a.channelOfLast, a.lastChannel = true, map[string]string{} })},
	{Name: "one map for users and channels", Part: 1,
		New: with(func(a *naive) { a.channels = a.users })},
	{Name: "a window that is not positive taken as one second, not a panic", Part: 1, New: func(w time.Duration) Aggregator {
		if w <= 0 {
			w = time.Second
		}
		return newNaive(w)
	}},
	{Name: "right answers, but zero counts are never forgotten", Part: 1,
		New: with(func(a *naive) { a.keepZeros = true })},
	{Name: "right answers, but Record never drops old messages", Part: 1,
		New: with(func(a *naive) { a.lazyRecord = true })},

	{Name: "scans all users, but a tie goes to the larger name", Part: 2, New: func(w time.Duration) Aggregator {
		return flippedTies{newNaive(w)}
	}},
	{Name: "never decreases counts: the ranking counts arrivals only", Part: 2, New: func(w time.Duration) Aggregator {
		return countsOnlyGrow{newNaive(w), map[string]int{}}
	}},
	{Name: "a leader cached on arrival and never revisited on expiry", Part: 2, New: func(w time.Duration) Aggregator {
		return cachedLeader{newNaive(w), &Talker{}}
	}},
	{Name: "a lazy heap that returns stale entries", Part: 2, New: newStaleHeap},
	{Name: "ties by insertion order: the first to enter the window wins", Part: 2, New: func(w time.Duration) Aggregator {
		return tiesByArrival{arrivalOrdered(w)}
	}},

	{Name: "a scan over every user for the top talker: right, and O(U)", Part: 2, New: func(w time.Duration) Aggregator {
		return scansForTop{newNaive(w)}
	}},
	{Name: "a sort of every user for the top k: right, and O(U log U)", Part: 3, New: func(w time.Duration) Aggregator {
		return sortsForTopK{newNaive(w)}
	}},
	{Name: "a heap walk for the top k that stops at heap index 6", Part: 3,
		New: with(func(a *naive) { a.maxDepth = 7 })},
	{Name: "a heap walk for the top k that stops at heap index 30", Part: 3,
		New: with(func(a *naive) { a.maxDepth = 31 })},
	{Name: "k <= 0 returns nil", Part: 3, New: func(w time.Duration) Aggregator { return nilForNoK{newNaive(w)} }},
	{Name: "ties at the cut-off by insertion order", Part: 3, New: func(w time.Duration) Aggregator {
		return cutOffByArrival{arrivalOrdered(w)}
	}},
	{Name: "lists users whose messages all expired, with 0", Part: 3, New: func(w time.Duration) Aggregator {
		return listsZeros{with(func(a *naive) { a.keepZeros = true })(w).(*naive)}
	}},
	{Name: "pads the result to k with zero talkers", Part: 3, New: func(w time.Duration) Aggregator {
		return paddedToK{newNaive(w)}
	}},
}

func TestSpecCatchesMutants(t *testing.T) { suite.CatchesMutants(t, mutants) }

// TestRightImplementationPasses plays every case against naive with no
// knob turned, the base of the mutants, so that each one is wrong in its
// knob alone.
func TestRightImplementationPasses(t *testing.T) {
	mutation.Passes(t, "the naive aggregator with no knob turned", 0, cases(func(w time.Duration) Aggregator { return newNaive(w) }))
}
