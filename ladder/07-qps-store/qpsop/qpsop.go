// Package qpsop holds the type of level 7's API that the store and its
// callers share: Op, the kind of call a store counts. It lives in a
// package of its own so that the learner's store, the reference and the
// level's spec share one definition; package qpsstore re-exports it with
// aliases (qpsstore.Op is qpsop.Op, qpsstore.Put is qpsop.Put). You do not
// need to edit this package.
package qpsop

import "fmt"

// Op is a kind of call that a store counts.
type Op int

// The ops.
const (
	Get Op = iota
	Put
)

// String returns "Get" or "Put", so that QPS(Put, 5m) reads well in
// messages.
func (op Op) String() string {
	switch op {
	case Get:
		return "Get"
	case Put:
		return "Put"
	}
	return fmt.Sprintf("Op(%d)", int(op))
}
