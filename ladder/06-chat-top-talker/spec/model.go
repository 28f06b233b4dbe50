package spec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// model is the brute-force aggregator that generated cases and the fuzz
// target take their wants from: it keeps every message and answers every
// question by scanning them all. It is slow and plainly right.
type model struct {
	window time.Duration
	msgs   []Message
}

// in reports whether m counts at now: now-window < m.At <= now.
func (md *model) in(m Message, now time.Time) bool {
	return m.At.After(now.Add(-md.window)) && !m.At.After(now)
}

func (md *model) count(now time.Time, keep func(Message) bool) int {
	n := 0
	for _, m := range md.msgs {
		if md.in(m, now) && keep(m) {
			n++
		}
	}
	return n
}

func (md *model) total(now time.Time) int {
	return md.count(now, func(Message) bool { return true })
}

func (md *model) byUser(now time.Time, user string) int {
	return md.count(now, func(m Message) bool { return m.User == user })
}

func (md *model) byChannel(now time.Time, channel string) int {
	return md.count(now, func(m Message) bool { return m.Channel == channel })
}

// topTalkers ranks every user in the window, most messages first and then
// by name, and keeps the first k.
func (md *model) topTalkers(now time.Time, k int) []Talker {
	counts := map[string]int{}
	for _, m := range md.msgs {
		if md.in(m, now) {
			counts[m.User]++
		}
	}
	all := ranked(counts)
	return all[:max(0, min(k, len(all)))]
}

// ranked is every user of counts as a Talker, most messages first, and
// of those with as many, the smallest name first.
func ranked(counts map[string]int) []Talker {
	all := []Talker{}
	for u, n := range counts {
		all = append(all, tk(u, n))
	}
	slices.SortFunc(all, func(a, b Talker) int {
		if a.Messages != b.Messages {
			return b.Messages - a.Messages
		}
		return strings.Compare(a.User, b.User)
	})
	return all
}

func (md *model) topTalker(now time.Time) leader {
	if t := md.topTalkers(now, 1); len(t) == 1 {
		return leader{t[0], true}
	}
	return leader{}
}

// crowdNames are the users of the generated cases, in no particular order:
// the order they first speak in is not their order by name.
var crowdNames = []string{"kim", "ada", "sam", "bo", "eve", "zoe", "al", "max", "lia", "ed"}

// generated returns the cases built from a seeded random crowd rather than
// written out: ten users talking at skewed rates in a short window, so
// that leads change hands, often by expiry alone, and ties come and go.
// A ranking with a broken heap (a sift that compares one child only, a
// position not updated on a swap) goes wrong here, where the hand-written
// cases have too few users to show it.
func generated() []row {
	return []row{
		{
			Name: "a crowd of ten whose lead keeps changing", Part: 2, Arg: 3 * sec,
			Steps: crowd(1, func(md *model, now time.Time) step {
				return at(now.Sub(clock.Epoch), topTalker(md.topTalker(now)))
			}),
		},
		{
			Name: "the top four of a crowd of ten", Part: 3, Arg: 3 * sec,
			Steps: crowd(2, func(md *model, now time.Time) step {
				return at(now.Sub(clock.Epoch), topK(4, md.topTalkers(now, 4)...))
			}),
		},
		{
			// With a heap, the top 40 of 40 reach its deepest level, and
			// the top 8 need at least one user past the first 7 places.
			Name: "the top 8, 20 and 40 of a crowd of forty", Part: 3, Arg: 3 * sec,
			Steps: bigCrowd(3, func(md *model, now time.Time, i int) step {
				k := []int{8, 20, 40}[i%3]
				return at(now.Sub(clock.Epoch), topK(k, md.topTalkers(now, k)...))
			}),
		},
	}
}

// crowd builds 60 messages, one every 250ms, and a query made by ask after
// every other message. The window of the crowd cases is 3s.
func crowd(seed uint64, ask func(md *model, now time.Time) step) []step {
	r := rand.New(rand.NewPCG(seed, 6))
	md := &model{window: 3 * sec}
	var steps []step
	for i := range 60 {
		now := clock.Epoch.Add(time.Duration(i+1) * 250 * ms)
		// The smaller of two draws: the first names talk far more often.
		user := crowdNames[min(r.IntN(len(crowdNames)), r.IntN(len(crowdNames)))]
		channel := []string{"#go", "#rust"}[r.IntN(2)]
		md.msgs = append(md.msgs, Message{At: now, User: user, Channel: channel})
		steps = append(steps, at(now.Sub(clock.Epoch), record(user, channel)))
		if i%2 == 1 {
			steps = append(steps, ask(md, now))
		}
	}
	return steps
}

// bigCrowd is crowd with forty users, who talk at random, and 300
// messages, one every 20ms, so that 150 messages from nearly all of them
// share a window of 3s; ask makes the i-th query, after every fourth
// message.
func bigCrowd(seed uint64, ask func(md *model, now time.Time, i int) step) []step {
	r := rand.New(rand.NewPCG(seed, 40))
	names := make([]string, 40)
	for i := range names {
		names[i] = fmt.Sprintf("u%02d", (i*17)%40) // not in name order
	}
	md := &model{window: 3 * sec}
	var steps []step
	for i := range 300 {
		now := clock.Epoch.Add(time.Duration(i+1) * 20 * ms)
		user := names[r.IntN(len(names))]
		md.msgs = append(md.msgs, Message{At: now, User: user, Channel: "#go"})
		steps = append(steps, at(now.Sub(clock.Epoch), record(user, "#go")))
		if i%4 == 3 {
			steps = append(steps, ask(md, now, i/4))
		}
	}
	return steps
}
