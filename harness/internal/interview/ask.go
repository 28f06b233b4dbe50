package interview

import (
	"fmt"
	"slices"
	"strconv"
)

// KeysLine reminds the candidate, on a terminal, of the keys key reads.
const KeysLine = "Keys: h hint · c clarifying questions · r run now · p the question · t time left · q end"

// key does what a key typed on the terminal asks, and returns how the
// interview ended, or "" if it goes on. Ctrl-C and q never come here: they
// stop the interview as a signal does.
func (iv *Interview) key(k byte) string {
	if k >= '0' && k <= '9' {
		iv.typed += string(k)
		// A number that another digit could make longer waits for it.
		if n, _ := strconv.Atoi(iv.typed); n*10 <= iv.asking() {
			fmt.Fprintf(iv.Out, "Q%s: another digit, or Enter.\n", iv.typed)
			return ""
		}
		k = '\r'
	}
	typed := iv.typed
	iv.typed = ""
	switch k {
	case '\r', '\n':
		if typed == "" {
			return ""
		}
		iv.answer(typed)
	case 'h':
		if iv.Hint != nil {
			fmt.Fprintln(iv.Out)
			iv.Hint()
		}
	case 'c':
		iv.listQuestions()
	case 'r':
		iv.seen = Snapshot(iv.Dir())
		return iv.testRun()
	case 'p':
		fmt.Fprintln(iv.Out)
		iv.pose()
		fmt.Fprintln(iv.Out, KeysLine)
	case 't':
	default:
		if !('a' <= k && k <= 'z' || k == '?') {
			return "" // the rest of an arrow key's sequence, say
		}
		fmt.Fprintln(iv.Out, KeysLine)
	}
	return iv.afterRun()
}

// asking is how many clarifying questions the parts asked so far have.
func (iv *Interview) asking() int {
	return iv.Readme.Asking(iv.sum.Parts[iv.current].Number)
}

// askLine says, when the question withholds clarifications, which ones
// can be asked, from the one after the first `from`.
func (iv *Interview) askLine(from int) {
	n := iv.asking()
	switch {
	case !iv.Readme.Withhold || n <= from:
		return
	case n == from+1:
		fmt.Fprintf(iv.Out, "Q%d is a clarifying question: type %d to hear its answer. c lists them all.\n\n", n, n)
	default:
		fmt.Fprintf(iv.Out, "Q%d to Q%d are clarifying questions: type a number to hear its answer. c lists them.\n\n", from+1, n)
	}
}

// listQuestions prints the clarifying questions of the parts asked so far,
// by topic, without their answers.
func (iv *Interview) listQuestions() {
	fmt.Fprintln(iv.Out)
	iv.heading("Clarifying questions")
	n := iv.asking()
	if n == 0 {
		fmt.Fprintln(iv.Out, "The README marks no clarifying question for this part.")
		return
	}
	topic := "\x00"
	for _, c := range iv.Readme.Clarifications[:n] {
		if c.Topic != topic {
			topic = c.Topic
			fmt.Fprintln(iv.Out, topic)
		}
		asked := ""
		if iv.asked(c.Question) {
			asked = " (asked)"
		}
		fmt.Fprintf(iv.Out, "  Q%d. %s%s\n", c.Number, c.Question, asked)
	}
	fmt.Fprintln(iv.Out, "Type a question's number to hear its answer; the summary notes the questions asked.")
}

// answer shows the answer to the question numbered typed, and notes in the
// summary that it was asked, and when.
func (iv *Interview) answer(typed string) {
	n, _ := strconv.Atoi(typed)
	if n < 1 || n > iv.asking() {
		fmt.Fprintf(iv.Out, "There is no question %s: c lists them.\n", typed)
		return
	}
	c := iv.Readme.Clarifications[n-1]
	fmt.Fprintln(iv.Out)
	iv.heading(fmt.Sprintf("Q%d. %s", n, c.Question))
	fmt.Fprintf(iv.Out, "%s\n\n", c.Answer)
	if !iv.asked(c.Question) {
		p := iv.sum.Parts[iv.current]
		iv.sum.Asked = append(iv.sum.Asked, Asked{Question: c.Question, Part: p.Number, Runs: p.Runs})
	}
}

// asked reports whether the question was asked before.
func (iv *Interview) asked(q string) bool {
	return slices.ContainsFunc(iv.sum.Asked, func(a Asked) bool { return a.Question == q })
}
