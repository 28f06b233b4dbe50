// Package spec is level 6's conformance suite: every case of the chat
// aggregator is written here once, and run against both the learner's stub in
// ladder/06-chat-top-talker and the reference in solutions/06-chat-top-talker,
// the way testing/fstest.TestFS checks any file system.
//
// # Cost claims
//
// Each cost README.md states, and the case a wrong-cost implementation
// fails:
//
//   - Zero counts are forgotten, and Record drops old messages (part 1):
//     "users and channels whose messages all left are forgotten".
//   - Amortized O(log U) per TopTalker, not a scan of every user (part 2):
//     "TopTalker over 100,000 users is O(log U), not a scan of them all",
//     with its numbers in probes.go.
//   - O(k log U) per TopTalkers, not a sort of every user (part 3):
//     "TopTalkers(10) over 100,000 users is O(k log U), not a sort of them
//     all"; a heap walk that stops at a fixed depth fails "the top 8, 20
//     and 40 of a crowd of forty".
//   - Amortized O(1) per message for the counts, and O(log U) per Record:
//     no case times Record; the benchmark row Record shows it.
package spec

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/06-chat-top-talker/chatmsg"
)

// Message and Talker are level 6's, from package chatmsg, which the chat
// packages re-export with type aliases. The spec cannot import a chat
// package for them: the stub's in-package test imports this package, so
// that would be an import cycle.
type (
	Message = chatmsg.Message
	Talker  = chatmsg.Talker
)

// Aggregator is the API level 6 asks for.
type Aggregator interface {
	Record(m Message)
	Total(now time.Time) int
	ByUser(now time.Time, user string) int
	ByChannel(now time.Time, channel string) int
	TopTalker(now time.Time) (t Talker, ok bool)
	TopTalkers(now time.Time, k int) []Talker
}

// Test runs every case against the aggregators newAggregator builds.
func Test[A Aggregator](t *testing.T, newAggregator func(window time.Duration) A) {
	t.Helper()
	timeline.Run(t, cases(timeline.Erase[Aggregator](newAggregator)))
}

// cases binds the hand-written and the generated cases to a constructor.
func cases(newAggregator func(window time.Duration) Aggregator) []timeline.Case[Aggregator] {
	return timeline.Bind(timeline.Unclocked(newAggregator), slices.Concat(table, generated())...)
}

// Offsets in the tables are written with these.
const ns, ms, sec, minute, day = time.Nanosecond, time.Millisecond, time.Second, time.Minute, 24 * time.Hour

// call is a method call and the result it should give.
type call = timeline.Call[Aggregator]

func record(user, channel string) call {
	return call{
		Method: "Record",
		Args:   []any{user, channel},
		Do: func(a Aggregator, now time.Time) any {
			a.Record(Message{At: now, User: user, Channel: channel})
			return nil
		},
	}
}

func total(want int) call {
	return call{Method: "Total", Want: want,
		Do: func(a Aggregator, now time.Time) any { return a.Total(now) }}
}

func byUser(user string, want int) call {
	return call{Method: "ByUser", Args: []any{user}, Want: want,
		Do: func(a Aggregator, now time.Time) any { return a.ByUser(now, user) }}
}

func byChannel(channel string, want int) call {
	return call{Method: "ByChannel", Args: []any{channel}, Want: want,
		Do: func(a Aggregator, now time.Time) any { return a.ByChannel(now, channel) }}
}

// leader is TopTalker's two results as one value, for the runner to compare
// and show.
type leader struct {
	Talker Talker
	OK     bool
}

func (l leader) String() string { return fmt.Sprintf("%v, %t", l.Talker, l.OK) }

func topTalker(want leader) call {
	return call{
		Method: "TopTalker",
		Do: func(a Aggregator, now time.Time) any {
			t, ok := a.TopTalker(now)
			return leader{t, ok}
		},
		Want: want,
	}
}

// top is TopTalker's answer when the window holds messages.
func top(user string, messages int) call { return topTalker(leader{tk(user, messages), true}) }

// noTop is TopTalker's answer on an empty window: the zero Talker, false.
func noTop() call { return topTalker(leader{}) }

// topK wants TopTalkers(now, k) to be exactly want, compared as a whole
// slice with cmp; no talkers at all is an empty slice, never nil.
func topK(k int, want ...Talker) call {
	if want == nil {
		want = []Talker{}
	}
	return call{Method: "TopTalkers", Args: []any{k}, Want: want,
		Do: func(a Aggregator, now time.Time) any { return a.TopTalkers(now, k) }}
}

func tk(user string, messages int) Talker { return Talker{User: user, Messages: messages} }

// row is a case of the table before it is bound to a constructor; its
// Arg is what New takes: the window. A step is one of its calls, at an
// offset from the start: at(0, record("ann", "#go")).
type (
	row  = timeline.Row[Aggregator, time.Duration]
	step = timeline.Step[Aggregator]
)

var at = timeline.At[Aggregator]

// table holds the hand-written cases of level 6. Part 1 is the counts,
// part 2 the top talker, part 3 the top k.
var table = []row{
	// Part 1: several views of one window.
	{
		// The README's first example, with the same numbers.
		Name: "three views of one window", Part: 1, Arg: minute,
		Steps: []step{
			at(0, record("ann", "#go")),
			at(10*sec, record("bob", "#go")),
			at(20*sec, record("ann", "#rust")),
			at(30*sec, total(3)),
			at(30*sec, byUser("ann", 2)),
			at(30*sec, byUser("bob", 1)),
			at(30*sec, byChannel("#go", 2)),
			at(30*sec, byChannel("#rust", 1)),
			at(60*sec, total(2)), // ann's message at 0s left at 0s + 60s
			at(60*sec, byUser("ann", 1)),
			at(60*sec, byUser("bob", 1)),
			at(60*sec, byChannel("#go", 1)),
			at(60*sec, byChannel("#rust", 1)),
		},
	},
	{
		// The README's boundary example: (now - window, now] is half-open.
		Name: "a message counts until one window later and not at it", Part: 1, Arg: minute,
		Steps: []step{
			at(5*sec, record("ann", "#go")),
			at(5*sec, total(1)),
			at(65*sec-ns, total(1)),
			at(65*sec-ns, byUser("ann", 1)),
			at(65*sec-ns, byChannel("#go", 1)),
			at(65*sec, total(0)),
			at(65*sec, byUser("ann", 0)),
			at(65*sec, byChannel("#go", 0)),
		},
	},
	{
		Name: "nothing recorded yet", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(0, total(0)),
			at(0, byUser("ann", 0)),
			at(0, byChannel("#go", 0)),
			at(7*sec, total(0)),
			at(7*sec, record("ann", "#go")),
			at(7*sec, byUser("bob", 0)),
			at(7*sec, byChannel("#rust", 0)),
		},
	},
	{
		Name: "a user in several channels", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(0, record("ann", "#go")),
			at(1*sec, record("ann", "#rust")),
			at(2*sec, record("ann", "#go")),
			at(3*sec, record("bob", "#rust")),
			at(3*sec, byUser("ann", 3)),
			at(3*sec, byChannel("#go", 2)),
			at(3*sec, byChannel("#rust", 2)),
			at(10*sec, byUser("ann", 2)),
			at(10*sec, byChannel("#go", 1)),
			at(10*sec, byChannel("#rust", 2)),
			at(11*sec, byUser("ann", 1)), // ann's message in #rust left
			at(11*sec, byChannel("#go", 1)),
			at(11*sec, byChannel("#rust", 1)),
			at(12*sec, byUser("ann", 0)),
			at(12*sec, byChannel("#go", 0)),
			at(12*sec, byChannel("#rust", 1)),
			at(12*sec, total(1)),
		},
	},
	{
		Name: "a user and a channel with the same name are counted apart", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(0, record("ops", "ops")),
			at(1*sec, record("ann", "ops")),
			at(2*sec, record("ops", "#go")),
			at(2*sec, byUser("ops", 2)),
			at(2*sec, byChannel("ops", 2)),
			at(2*sec, byUser("ann", 1)),
			at(2*sec, byChannel("ann", 0)),
			at(2*sec, byUser("#go", 0)),
			at(11*sec, byUser("ops", 1)),
			at(11*sec, byChannel("ops", 0)),
		},
	},
	{
		Name: "several messages at the same instant", Part: 1, Arg: 5 * sec,
		Steps: []step{
			at(2*sec, record("ann", "#go")),
			at(2*sec, record("ann", "#go")),
			at(2*sec, record("bob", "#go")),
			at(2*sec, record("ann", "#rust")),
			at(2*sec, total(4)),
			at(2*sec, byUser("ann", 3)),
			at(2*sec, byChannel("#go", 3)),
			at(7*sec-ns, total(4)),
			at(7*sec, record("bob", "#go")), // the four leave together, as this one comes
			at(7*sec, total(1)),
			at(7*sec, byUser("ann", 0)),
			at(7*sec, byUser("bob", 1)),
			at(7*sec, byChannel("#go", 1)),
			at(7*sec, byChannel("#rust", 0)),
		},
	},
	{
		Name: "an idle gap far longer than the window", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(1*sec, record("ann", "#go")),
			at(2*sec, record("bob", "#go")),
			at(2*sec, total(2)),
			at(30*day, total(0)),
			at(30*day, byChannel("#go", 0)),
			at(30*day, record("ann", "#go")),
			at(30*day, byUser("ann", 1)),
			at(30*day, byChannel("#go", 1)),
			at(30*day+10*sec, total(0)),
		},
	},
	{
		Name: "a one-nanosecond window", Part: 1, Arg: ns,
		Steps: []step{
			at(0, record("ann", "#go")),
			at(0, total(1)),
			at(1*ns, total(0)),
			at(5*ns, record("ann", "#go")),
			at(5*ns, record("bob", "#go")),
			at(5*ns, byUser("ann", 1)),
			at(5*ns, byChannel("#go", 2)),
			at(6*ns, byChannel("#go", 0)),
		},
	},
	{
		Name: "New panics on a window that is not positive", Part: 1, Arg: sec,
		Probe: timeline.NonPositivePanics[Aggregator],
	},
	{
		Name: "users and channels whose messages all left are forgotten", Part: 1, Arg: sec,
		Probe: forgetsZeroCounts, InProcess: "memory",
	},

	// Part 2: top talker.
	{
		// The README's top talker example, with the same numbers.
		Name: "the leader loses the lead as their messages expire", Part: 2, Arg: minute,
		Steps: []step{
			at(0, record("cat", "#go")),
			at(1*sec, record("cat", "#go")),
			at(2*sec, record("cat", "#go")),
			at(30*sec, record("bob", "#go")),
			at(31*sec, record("bob", "#go")),
			at(31*sec, top("cat", 3)),
			at(60*sec-ns, top("cat", 3)),
			at(60*sec, top("bob", 2)), // cat 2, bob 2: a tie, and "bob" < "cat"
			at(61*sec, top("bob", 2)),
			at(62*sec, top("bob", 2)), // cat has nothing left
			at(62*sec, byUser("cat", 0)),
			at(90*sec, top("bob", 1)),
			at(91*sec, noTop()),
		},
	},
	{
		Name: "a leader overtaken without anyone talking", Part: 2, Arg: 10 * sec,
		Steps: []step{
			at(0, record("ann", "#go")),
			at(1*sec, record("ann", "#go")),
			at(2*sec, record("ann", "#go")),
			at(5*sec, record("bob", "#go")),
			at(6*sec, record("bob", "#go")),
			at(6*sec, top("ann", 3)),
			at(10*sec, top("ann", 2)), // ann 2, bob 2: ann by name
			at(11*sec, top("bob", 2)), // ann 1
			at(12*sec, top("bob", 2)), // ann 0
			at(15*sec, top("bob", 1)),
		},
	},
	{
		Name: "an empty window has no top talker", Part: 2, Arg: 10 * sec,
		Steps: []step{
			at(0, noTop()),
			at(1*sec, record("ann", "#go")),
			at(1*sec, top("ann", 1)),
			at(11*sec-ns, top("ann", 1)),
			at(11*sec, noTop()), // the window emptied
			at(20*sec, record("bob", "#go")),
			at(20*sec, top("bob", 1)),
		},
	},
	{
		Name: "a tie goes to the smaller name, who spoke second", Part: 2, Arg: minute,
		Steps: []step{
			at(0, record("bob", "#go")),
			at(1*sec, record("bob", "#go")),
			at(1*sec, top("bob", 2)),
			at(2*sec, record("amy", "#rust")),
			at(2*sec, top("bob", 2)),
			at(3*sec, record("amy", "#go")),
			at(3*sec, top("amy", 2)),
			at(4*sec, record("zed", "#go")),
			at(5*sec, record("zed", "#go")),
			at(5*sec, top("amy", 2)),
		},
	},
	{
		Name: "a tie goes to the smaller name, who spoke first", Part: 2, Arg: minute,
		Steps: []step{
			at(0, record("amy", "#go")),
			at(1*sec, record("amy", "#go")),
			at(2*sec, record("bob", "#go")),
			at(3*sec, record("bob", "#go")),
			at(3*sec, top("amy", 2)),
			at(4*sec, record("bob", "#go")),
			at(4*sec, top("bob", 3)),
			at(5*sec, record("amy", "#go")),
			at(5*sec, top("amy", 3)),
		},
	},
	{
		Name: "a tie that forms by expiry", Part: 2, Arg: 10 * sec,
		Steps: []step{
			at(0, record("dan", "#go")),
			at(5*sec, record("dan", "#go")),
			at(6*sec, record("ann", "#go")),
			at(6*sec, top("dan", 2)),
			at(10*sec-ns, top("dan", 2)),
			at(10*sec, top("ann", 1)), // dan 1, ann 1: "ann" < "dan"
			at(15*sec, top("ann", 1)), // dan 0
			at(16*sec, noTop()),
		},
	},
	{
		Name: "TopTalker over 100,000 users is O(log U), not a scan of them all", Part: 2, Arg: sec,
		Probe: topTalkerIsLogU, InProcess: "timing",
	},
	{
		Name: "a user forgotten and back again", Part: 2, Arg: 10 * sec,
		Steps: []step{
			at(0, record("ann", "#go")),
			at(1*sec, record("ann", "#go")),
			at(5*sec, record("bob", "#go")),
			at(5*sec, top("ann", 2)),
			at(10*sec, top("ann", 1)),
			at(11*sec, top("bob", 1)), // ann 0, forgotten
			at(12*sec, record("ann", "#go")),
			at(12*sec, top("ann", 1)),
			at(13*sec, record("ann", "#go")),
			at(13*sec, top("ann", 2)),
			at(15*sec, top("ann", 2)), // bob 0
		},
	},

	// Part 3: top k.
	{
		// The README's top k example, with the same numbers.
		Name: "the top k, ties at the cut-off by name", Part: 3, Arg: minute,
		Steps: []step{
			at(0, record("dan", "#go")),
			at(1*sec, record("dan", "#go")),
			at(2*sec, record("cat", "#go")),
			at(3*sec, record("bob", "#go")),
			at(4*sec, record("amy", "#go")),
			at(10*sec, topK(1, tk("dan", 2))),
			at(10*sec, topK(2, tk("dan", 2), tk("amy", 1))),
			at(10*sec, topK(3, tk("dan", 2), tk("amy", 1), tk("bob", 1))),
			at(10*sec, topK(10, tk("dan", 2), tk("amy", 1), tk("bob", 1), tk("cat", 1))),
			at(10*sec, topK(0)),
			at(60*sec, topK(2, tk("amy", 1), tk("bob", 1))), // dan 1: a four-way tie
			at(61*sec, topK(10, tk("amy", 1), tk("bob", 1), tk("cat", 1))),
			at(62*sec, topK(10, tk("amy", 1), tk("bob", 1))),
		},
	},
	{
		Name: "k of zero or less gives an empty slice, not nil", Part: 3, Arg: 10 * sec,
		Steps: []step{
			at(0, topK(0)),
			at(0, topK(-1)),
			at(1*sec, record("ann", "#go")),
			at(1*sec, topK(0)),
			at(1*sec, topK(-5)),
			at(1*sec, topK(1, tk("ann", 1))),
		},
	},
	{
		Name: "k larger than the number of users", Part: 3, Arg: 10 * sec,
		Steps: []step{
			at(0, topK(3)), // the window is empty: an empty slice, not nil
			at(1*sec, record("bob", "#go")),
			at(2*sec, record("ann", "#go")),
			at(3*sec, record("bob", "#rust")),
			at(3*sec, topK(5, tk("bob", 2), tk("ann", 1))),
			at(12*sec, topK(5, tk("bob", 1))), // ann left; she is not listed with 0
			at(13*sec, topK(5)),
		},
	},
	{
		Name: "ties at the cut-off go to the smaller names, not the first to speak", Part: 3, Arg: minute,
		Steps: []step{
			at(0, record("eve", "#go")),
			at(1*sec, record("dan", "#go")),
			at(2*sec, record("cat", "#go")),
			at(3*sec, record("bob", "#go")),
			at(4*sec, record("amy", "#go")),
			at(5*sec, record("zed", "#go")),
			at(6*sec, record("zed", "#go")),
			at(6*sec, topK(3, tk("zed", 2), tk("amy", 1), tk("bob", 1))),
			at(7*sec, record("eve", "#go")),
			at(7*sec, topK(3, tk("eve", 2), tk("zed", 2), tk("amy", 1))),
		},
	},
	{
		Name: "TopTalkers(10) over 100,000 users is O(k log U), not a sort of them all", Part: 3, Arg: sec,
		Probe: topTalkersIsKLogU, InProcess: "timing",
	},
	{
		Name: "the order follows expiry", Part: 3, Arg: 10 * sec,
		Steps: []step{
			at(0, record("ann", "#go")),
			at(1*sec, record("ann", "#go")),
			at(2*sec, record("ann", "#go")),
			at(5*sec, record("bob", "#go")),
			at(6*sec, record("bob", "#go")),
			at(8*sec, record("cat", "#go")),
			at(8*sec, topK(3, tk("ann", 3), tk("bob", 2), tk("cat", 1))),
			at(11*sec, topK(3, tk("bob", 2), tk("ann", 1), tk("cat", 1))),
			at(12*sec, topK(3, tk("bob", 2), tk("cat", 1))),
			at(15*sec, topK(3, tk("bob", 1), tk("cat", 1))),
			at(16*sec, topK(3, tk("cat", 1))),
			at(18*sec, topK(3)),
		},
	},
}
