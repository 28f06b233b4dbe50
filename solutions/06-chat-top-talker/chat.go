// Package chat is the reference solution of level 6: one window of chat
// messages seen several ways at once (in total, per user, per channel) and
// the users who talk the most in it.
package chat

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/rateladder/rateladder/ladder/06-chat-top-talker/chatmsg"
)

// Message and Talker are defined once, in package chatmsg, and shared
// with the spec. These aliases let you write chat.Message and chat.Talker.
type (
	// Message is one chat message event: At, User and Channel.
	Message = chatmsg.Message
	// Talker is a user and the number of messages they sent in the
	// window: User and Messages.
	Talker = chatmsg.Talker
)

// Aggregator counts the chat messages of the last window, a message at m.At
// counting at now when now-window < m.At <= now, and ranks the users by
// how many they sent.
//
// Every message waits in one queue, oldest first, and adds one to its
// user's count and its channel's count. Every call first drops the messages
// that have left the window and takes each one off both counts, so the
// views move together and no view keeps a queue of its own.
//
// The users in the window also sit in a binary heap, most messages first
// and then by name. Each user knows its place in the heap, so when a count
// goes up or down by one the user is sifted from there in O(log U), U being
// the users in the window. The leader is the root. Record and every query
// are amortized O(log U): each message is stored once and expired once.
//
// An Aggregator is not safe for concurrent use.
type Aggregator struct {
	window   time.Duration
	queue    queue
	users    tally
	channels tally
	rank     ranking  // the users of a.users, best first
	walk     frontier // TopTalkers' scratch, kept between calls to save an allocation
}

// New returns an Aggregator for the given window. It panics if window <= 0.
func New(window time.Duration) *Aggregator {
	if window <= 0 {
		panic(fmt.Sprintf("chat.New: window must be positive, got %v", window))
	}
	a := &Aggregator{
		window:   window,
		queue:    newQueue(),
		users:    newTally(),
		channels: newTally(),
	}
	a.rank.users = &a.users
	a.walk.rank = &a.rank
	return a
}

// Record counts one message. Record times and query times together are
// non-decreasing.
func (a *Aggregator) Record(m Message) {
	a.expire(m.At)
	user, isNew := a.users.add(m.User)
	if isNew {
		a.rank.insert(user)
	} else {
		a.rank.moveUp(user)
	}
	channel, _ := a.channels.add(m.Channel)
	a.queue.push(entry{at: m.At, user: user, channel: channel})
}

// Total returns the number of messages in the window.
func (a *Aggregator) Total(now time.Time) int {
	a.expire(now)
	return a.queue.n
}

// ByUser returns the number of messages user sent in the window.
func (a *Aggregator) ByUser(now time.Time, user string) int {
	a.expire(now)
	return a.users.count(user)
}

// ByChannel returns the number of messages sent to channel in the window.
func (a *Aggregator) ByChannel(now time.Time, channel string) int {
	a.expire(now)
	return a.channels.count(channel)
}

// TopTalker returns the user with the most messages in the window; on a
// tie, the lexicographically smallest name. ok is false, and t the zero
// Talker, when the window is empty.
func (a *Aggregator) TopTalker(now time.Time) (t Talker, ok bool) {
	a.expire(now)
	if len(a.rank.heap) == 0 {
		return Talker{}, false
	}
	return a.talker(a.rank.heap[0]), true
}

// TopTalkers returns at most k users with the most messages in the window,
// most messages first and then by name. It never returns nil: with k <= 0
// or an empty window the result is empty.
//
// It costs O(k log k) after expiry and allocates only the result, which
// belongs to the caller.
func (a *Aggregator) TopTalkers(now time.Time, k int) []Talker {
	a.expire(now)
	k = max(0, min(k, len(a.rank.heap)))
	out := make([]Talker, 0, k)
	if k == 0 {
		return out
	}
	// The k best users form a connected top of the heap: the next best is
	// always a child of one already taken. The frontier holds those
	// children, best first, so the heap itself is read and never changed.
	a.walk.reset()
	a.walk.push(0)
	for len(out) < k {
		i := a.walk.pop()
		out = append(out, a.talker(a.rank.heap[i]))
		for _, child := range [2]int{2*i + 1, 2*i + 2} {
			if child < len(a.rank.heap) {
				a.walk.push(child)
			}
		}
	}
	return out
}

func (a *Aggregator) talker(user int32) Talker {
	return Talker{User: a.users.names[user], Messages: a.users.counts[user]}
}

// expire drops the messages at or before now-window: the window is
// half-open, so a message exactly one window old no longer counts.
func (a *Aggregator) expire(now time.Time) {
	cutoff := now.Add(-a.window)
	for a.queue.n > 0 && !a.queue.front().at.After(cutoff) {
		e := a.queue.pop()
		// Take the user out of the ranking while the tally still has
		// their place; a user whose count reaches zero is forgotten.
		if a.users.counts[e.user] == 1 {
			a.rank.remove(e.user)
		}
		if a.users.remove(e.user) > 0 {
			a.rank.moveDown(e.user)
		}
		a.channels.remove(e.channel)
	}
	a.queue.shrink()
}

// entry is one message in the queue. It holds ids from the tallies rather
// than the strings, so an expiring message is counted down without hashing
// its names.
type entry struct {
	at            time.Time
	user, channel int32
}

// minCapacity is the smallest ring the queue keeps. It is a power of two,
// like every capacity, so that wrapping an index is a mask.
const minCapacity = 16

// queue is a ring buffer of entries, oldest first. It grows by doubling
// and gives memory back after a burst, so it allocates only when the number
// of messages in the window doubles or falls to a quarter.
type queue struct {
	ring []entry // len is a power of two
	head int     // index of the oldest entry
	n    int     // entries held
}

func newQueue() queue { return queue{ring: make([]entry, minCapacity)} }

func (q *queue) push(e entry) {
	if q.n == len(q.ring) {
		q.resize(2 * len(q.ring))
	}
	q.ring[(q.head+q.n)&(len(q.ring)-1)] = e
	q.n++
}

func (q *queue) front() *entry { return &q.ring[q.head] }

func (q *queue) pop() entry {
	e := q.ring[q.head]
	q.head = (q.head + 1) & (len(q.ring) - 1)
	q.n--
	return e
}

// shrink halves the ring once it is a quarter full. Shrinking only then
// leaves room to grow again without resizing back and forth.
func (q *queue) shrink() {
	if len(q.ring) > minCapacity && q.n <= len(q.ring)/4 {
		q.resize(len(q.ring) / 2)
	}
}

func (q *queue) resize(capacity int) {
	ring := make([]entry, capacity)
	mask := len(q.ring) - 1
	for i := range q.n {
		ring[i] = q.ring[(q.head+i)&mask]
	}
	q.ring, q.head = ring, 0
}

// tally counts messages per name: per user, or per channel. Each name in
// the window has a small id, the index of its count. A name whose count
// drops to zero is forgotten, and its id is reused by the next new name, so
// memory follows the names in the window, not every name ever seen.
type tally struct {
	ids    map[string]int32
	names  []string // by id; "" for a free id
	counts []int    // by id; 0 for a free id
	free   []int32  // ids ready for reuse
}

func newTally() tally { return tally{ids: make(map[string]int32)} }

// add counts one message for name. It returns the name's id, and whether
// the name is new to the window.
func (t *tally) add(name string) (id int32, isNew bool) {
	id, ok := t.ids[name]
	if !ok {
		if n := len(t.free); n > 0 {
			id, t.free = t.free[n-1], t.free[:n-1]
			t.names[id] = name
		} else {
			id = int32(len(t.names))
			t.names = append(t.names, name)
			t.counts = append(t.counts, 0)
		}
		t.ids[name] = id
	}
	t.counts[id]++
	return id, !ok
}

// remove takes one message off id's count, forgets the name when the count
// reaches zero, and returns the count left.
func (t *tally) remove(id int32) int {
	t.counts[id]--
	if t.counts[id] == 0 {
		delete(t.ids, t.names[id])
		t.names[id] = "" // let go of the string
		t.free = append(t.free, id)
	}
	return t.counts[id]
}

func (t *tally) count(name string) int {
	if id, ok := t.ids[name]; ok {
		return t.counts[id]
	}
	return 0
}

// ranking is a binary heap of the user ids of a tally, most messages first
// and then by name, kept by container/heap. pos[id] is where user id sits
// in heap, which lets a user whose count changed by one be sifted from its
// place with heap.Fix, and a user who left be taken out with heap.Remove:
// the heap holds each user once, never a stale copy to skip later.
//
// container/heap calls Less and Swap through an interface, which the
// compiler cannot inline: BenchmarkChat's Record took about twice as long
// as with the same sift written out by hand (760 against 343 ns a message,
// in one run on a shared 2-core machine). The reference is meant to be
// read, so it pays that.
type ranking struct {
	users *tally
	heap  []int32
	pos   []int // by user id
}

// Len, Less, Swap, Push and Pop are heap.Interface, for container/heap.
func (r *ranking) Len() int { return len(r.heap) }

// Less reports whether the user at i ranks before the user at j.
func (r *ranking) Less(i, j int) bool { return r.better(r.heap[i], r.heap[j]) }

// Swap keeps pos up to date, which is what lets heap.Fix start from a
// user's place.
func (r *ranking) Swap(i, j int) {
	r.heap[i], r.heap[j] = r.heap[j], r.heap[i]
	r.pos[r.heap[i]] = i
	r.pos[r.heap[j]] = j
}

// Push appends the user id x. insert does not call heap.Push, which would
// put the id in an interface, an allocation for an id of 256 or more.
func (r *ranking) Push(x any) {
	id := x.(int32)
	r.pos[id] = len(r.heap)
	r.heap = append(r.heap, id)
}

// Pop drops the last user, after heap.Remove has swapped it there.
// heap.Remove's result is never read, so Pop returns nil rather than box
// the id.
func (r *ranking) Pop() any {
	r.heap = r.heap[:len(r.heap)-1]
	return nil
}

// better reports whether user a ranks before user b.
func (r *ranking) better(a, b int32) bool {
	if ca, cb := r.users.counts[a], r.users.counts[b]; ca != cb {
		return ca > cb
	}
	return r.users.names[a] < r.users.names[b]
}

// insert adds a user who has just entered the window: at the end, then
// sifted up.
func (r *ranking) insert(id int32) {
	for len(r.pos) <= int(id) {
		r.pos = append(r.pos, 0)
	}
	r.pos[id] = len(r.heap)
	r.heap = append(r.heap, id)
	heap.Fix(r, len(r.heap)-1)
}

// moveUp restores the order after id's count went up by one.
func (r *ranking) moveUp(id int32) { heap.Fix(r, r.pos[id]) }

// moveDown restores the order after id's count went down by one.
func (r *ranking) moveDown(id int32) { heap.Fix(r, r.pos[id]) }

// remove takes id out of the heap. It must run while id is still counted.
func (r *ranking) remove(id int32) { heap.Remove(r, r.pos[id]) }

// frontier is a small heap of positions in a ranking's heap, best user
// first, kept by container/heap. TopTalkers walks the ranking in order
// with it.
type frontier struct {
	rank *ranking
	at   []int
}

func (f *frontier) reset() { f.at = f.at[:0] }

// Len, Less, Swap, Push and Pop are heap.Interface, for container/heap.
func (f *frontier) Len() int { return len(f.at) }
func (f *frontier) Less(i, j int) bool {
	return f.rank.better(f.rank.heap[f.at[i]], f.rank.heap[f.at[j]])
}
func (f *frontier) Swap(i, j int) { f.at[i], f.at[j] = f.at[j], f.at[i] }
func (f *frontier) Push(x any)    { f.at = append(f.at, x.(int)) }

// Pop drops the last position; pop has read it first.
func (f *frontier) Pop() any {
	f.at = f.at[:len(f.at)-1]
	return nil
}

// push adds a position. Like insert, it appends and calls heap.Fix rather
// than heap.Push, so that TopTalkers allocates only its result.
func (f *frontier) push(pos int) {
	f.at = append(f.at, pos)
	heap.Fix(f, len(f.at)-1)
}

// pop takes the best position out.
func (f *frontier) pop() int {
	top := f.at[0]
	heap.Remove(f, 0)
	return top
}
