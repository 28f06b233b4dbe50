// Package chat is level 6 of the ladder: count a window of chat messages in
// total, per user and per channel, and find the users who talk the most.
// Read README.md in this folder first.
package chat

import (
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

// Aggregator counts the chat messages of the last window: a message at
// m.At counts at now when now-window < m.At <= now.
type Aggregator struct {
	// Add the fields you need here.
}

// New returns an Aggregator for the given window. It panics if window <= 0,
// with a message that names the value.
func New(window time.Duration) *Aggregator {
	panic("not implemented: New")
}

// Record counts one message. Record times and query times together are
// non-decreasing.
func (a *Aggregator) Record(m Message) {
	panic("not implemented: Aggregator.Record")
}

// Total returns the number of messages in the window.
func (a *Aggregator) Total(now time.Time) int {
	panic("not implemented: Aggregator.Total")
}

// ByUser returns the number of messages user sent in the window.
func (a *Aggregator) ByUser(now time.Time, user string) int {
	panic("not implemented: Aggregator.ByUser")
}

// ByChannel returns the number of messages sent to channel in the window.
func (a *Aggregator) ByChannel(now time.Time, channel string) int {
	panic("not implemented: Aggregator.ByChannel")
}

// TopTalker returns the user with the most messages in the window; on a
// tie, the lexicographically smallest name. ok is false, and t the zero
// Talker, when the window is empty.
func (a *Aggregator) TopTalker(now time.Time) (t Talker, ok bool) {
	panic("not implemented: Aggregator.TopTalker")
}

// TopTalkers returns at most k users with the most messages in the window,
// most messages first and then by name. It never returns nil: with k <= 0
// or an empty window the result is empty.
func (a *Aggregator) TopTalkers(now time.Time, k int) []Talker {
	panic("not implemented: Aggregator.TopTalkers")
}
