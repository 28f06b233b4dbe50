// Package chatmsg holds the types of level 6's API: the message an
// aggregator records and the talker it ranks. They live in a package of
// their own so that the learner's aggregator, the reference and the
// level's spec share one definition; package chat re-exports them with
// type aliases (chat.Message is chatmsg.Message). You do not need to edit
// this package.
package chatmsg

import (
	"fmt"
	"time"
)

// Message is one chat message event.
type Message struct {
	At      time.Time
	User    string
	Channel string
}

// Talker is a user and the number of messages they sent in the window.
type Talker struct {
	User     string
	Messages int
}

// String writes a talker the way failure reports show it: {"amy" 2}.
func (t Talker) String() string { return fmt.Sprintf("{%q %d}", t.User, t.Messages) }
