// Package logger is the reference solution of level 2: print each message
// at most once per interval, remembering only the messages that are blocked
// right now.
package logger

import (
	"fmt"
	"time"
)

// minCapacity is the smallest queue the logger keeps. It is a power of two,
// like every capacity, so that wrapping an index is a mask, not a division.
const minCapacity = 16

// Logger decides whether a message should print: it prints when the same
// message has not printed in (now - interval, now].
//
// The messages that are blocked wait in a queue, in the order they
// printed, and a set holds the same messages for lookup. Every call first
// drops the messages whose interval has passed from the front of the
// queue, so the logger remembers exactly the messages printed in the last
// interval, and each print is queued once and dropped once: amortized O(1)
// per call.
//
// A Logger is not safe for concurrent use.
type Logger struct {
	interval time.Duration
	blocked  map[string]struct{} // the messages printed in (now - interval, now]
	queue    []entry             // the same messages, oldest first; len is a power of two
	head     int                 // index of the oldest print in queue
	n        int                 // prints in queue
}

// entry is one message and when it last printed.
type entry struct {
	message string
	at      time.Time
}

// New returns a Logger that prints each message at most once per interval.
// It panics if interval <= 0.
func New(interval time.Duration) *Logger {
	if interval <= 0 {
		panic(fmt.Sprintf("logger.New: interval must be positive, got %v", interval))
	}
	return &Logger{
		interval: interval,
		blocked:  make(map[string]struct{}),
		queue:    make([]entry, minCapacity),
	}
}

// ShouldPrint reports whether message should print at now, and if so
// records that it printed. A message that printed in (now - interval, now]
// is refused, and a refusal changes nothing. Calls come in non-decreasing
// time order.
func (l *Logger) ShouldPrint(now time.Time, message string) bool {
	l.forget(now)
	// Every message in the set printed less than one interval ago, so being
	// there is the whole answer: no time to compare, and no zero value to
	// mistake for "never printed".
	if _, ok := l.blocked[message]; ok {
		return false
	}
	l.blocked[message] = struct{}{}
	if l.n == len(l.queue) {
		l.resize(2 * len(l.queue))
	}
	l.queue[(l.head+l.n)&(len(l.queue)-1)] = entry{message: message, at: now}
	l.n++
	return true
}

// Len returns how many messages the logger remembers: after a call at now,
// the messages printed in (now - interval, now].
func (l *Logger) Len() int { return len(l.blocked) }

// forget drops the messages that printed at or before now - interval: the
// interval is half-open, so a message may print again exactly one interval
// later. A message is in the queue at most once, because it can only print
// again after its old print has left, so leaving the queue means leaving
// the set.
func (l *Logger) forget(now time.Time) {
	cutoff := now.Add(-l.interval)
	mask := len(l.queue) - 1
	for l.n > 0 && !l.queue[l.head].at.After(cutoff) {
		delete(l.blocked, l.queue[l.head].message)
		l.queue[l.head] = entry{} // let the message's bytes be collected
		l.head = (l.head + 1) & mask
		l.n--
	}
	// Give memory back after a burst. Shrinking only at a quarter full
	// leaves room to grow again without resizing back and forth.
	if len(l.queue) > minCapacity && l.n <= len(l.queue)/4 {
		l.resize(len(l.queue) / 2)
	}
}

// resize moves the prints, oldest first, into a queue of the given
// capacity. It is the only place that allocates besides the set's own
// growth, and it runs only when the number of blocked messages doubles or
// falls to a quarter.
func (l *Logger) resize(capacity int) {
	queue := make([]entry, capacity)
	mask := len(l.queue) - 1
	for i := range l.n {
		queue[i] = l.queue[(l.head+i)&mask]
	}
	if capacity < len(l.queue) {
		// A Go map keeps its buckets after its keys are deleted. Build the
		// set again from the queue, so that a burst of a million messages
		// does not hold its memory forever. This costs O(n) now, paid for
		// by the 3n deletions since the queue was last this full.
		l.blocked = make(map[string]struct{}, l.n)
		for _, p := range queue[:l.n] {
			l.blocked[p.message] = struct{}{}
		}
	}
	l.queue, l.head = queue, 0
}
