// Package qpsstore is level 7 of the ladder: a key-value store that also
// tells how many Gets and Puts per second it served. Read README.md in
// this folder first.
package qpsstore

import (
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/07-qps-store/qpsop"
)

// Op is a kind of call that the store counts: Get or Put. It is defined
// once, in package qpsop, and shared with the spec; these aliases let you
// write qpsstore.Op, qpsstore.Get and qpsstore.Put. Op's String method
// writes "Get" and "Put".
type Op = qpsop.Op

// The ops.
const (
	Get = qpsop.Get
	Put = qpsop.Put
)

// Store is a map from string keys to string values that counts its calls.
type Store struct {
	// Add the fields you need here.
}

// New returns an empty Store that reads the time from c, and only from c.
func New(c clock.Clock) *Store {
	panic("not implemented: New")
}

// Get returns the value stored under key, and whether there is one.
func (s *Store) Get(key string) (value string, ok bool) {
	panic("not implemented: Store.Get")
}

// Put stores value under key, replacing any value there.
func (s *Store) Put(key, value string) {
	panic("not implemented: Store.Put")
}

// QPS returns the calls of op per second over the window that ends now.
func (s *Store) QPS(op Op, window time.Duration) float64 {
	panic("not implemented: Store.QPS")
}
