package remote

import (
	"bytes"
	"fmt"
	"time"
)

// A Planned call is one a probe says it is about to make: a method of
// the object and its arguments.
type Planned struct {
	Method string
	Args   []any
}

// plan is the calls a probe said it would make on one object, sent to the
// child ahead in batches. Each call the probe then makes takes the next
// answer. The child still answers each call as it returns, so a call that
// hangs or exits holds back no answer before it; but the checker no longer
// waits on the child once a call: about 2µs a call instead of 7µs, pinned
// to one CPU (BenchmarkCall/planned against BenchmarkCall/alone).
type plan struct {
	obj     *Object
	calls   []Planned // not yet sent
	pending []sentCall
}

// sentCall is a planned call sent to the child whose answer is not yet
// taken: what it was, to check that the probe makes that very call.
type sentCall struct {
	method string
	args   []byte // the arguments, encoded
	now    time.Time
}

// Batches are at most this many calls and this many bytes: a batch is
// written whole before its answers are read, and a pipe holds 64 KiB.
const (
	batchCalls = 512
	batchBytes = 32 << 10
)

// Plan tells the Conn the calls a probe is about to make on o, in this
// order. They are sent to the child ahead, in batches, and each call the
// probe then makes on o is answered from them: what it returns, panics
// with or fails with is what the same call made alone would. Only the
// child learns of a call early, and what it does then is what it would
// have done anyway, as the calls come in the same order: a probe makes
// its planned calls, or stops early.
//
// Any other call, on o or on another object, ends the plan first: the
// answers of the calls sent and not made are read and dropped. A probe's
// call that is not the next planned one is a mistake of the spec, and
// panics. On an object whose clock may move between calls, plan nothing.
func (o *Object) Plan(calls []Planned) {
	c := o.conn
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.plan != nil {
		c.dropPlan()
	}
	if len(calls) == 0 || o.gen != c.gen || c.proc == nil {
		return
	}
	c.plan = &plan{obj: o, calls: calls}
}

// takePlanned answers a call of the probe's from the plan: the next one
// sent, after sending another batch when none is left.
func (c *Conn) takePlanned(o *Object, method string, results []any, args []any) {
	pl := c.plan
	if len(pl.pending) == 0 {
		if len(pl.calls) == 0 {
			c.plan = nil
			c.exchange(opCall, o, method, results, args)
			return
		}
		c.sendBatch()
	}
	next := pl.pending[0]
	var offPlan string
	switch {
	case method != next.method:
		offPlan = fmt.Sprintf("remote: %s was called where the plan said %s", method, next.method)
	case !bytes.Equal(c.encodeArgs(method, args), next.args):
		offPlan = fmt.Sprintf("remote: %s was called with arguments %v, not those the plan said", method, args)
	}
	if offPlan != "" {
		c.dropPlan() // the answers sent stay in step with the calls
		panic(offPlan + ": a probe makes the calls it plans, in order")
	}
	pl.pending = pl.pending[1:]
	c.settle(o, next.now, method, c.answer(method), results)
}

// sendBatch sends the next planned calls to the child. The writing runs
// beside the reading of their answers, so that a small pipe cannot stop
// both processes: the child may fill its answers pipe before it has read
// every call.
func (c *Conn) sendBatch() {
	pl := c.plan
	c.wait()
	var batch []byte
	for len(pl.calls) > 0 && len(pl.pending) < batchCalls && len(batch) < batchBytes {
		call := pl.calls[0]
		pl.calls = pl.calls[1:]
		m := c.message(opCall, pl.obj, call.Method, call.Args)
		var err error
		if batch, err = appendMessage(batch, &m); err != nil {
			c.fail(fmt.Sprintf("%s: the call could not be sent: %v", callText(call.Method), err))
		}
		pl.pending = append(pl.pending, sentCall{method: call.Method, args: bytes.Clone(m.Values), now: m.Now})
	}
	done := make(chan error, 1)
	c.writing = done
	in := c.proc.in
	go func() {
		_, err := in.Write(batch)
		done <- err
	}()
}

// wait waits for a batch being written to be written whole, or to fail;
// a failed write shows as the child's missing answer.
func (c *Conn) wait() {
	if c.writing != nil {
		<-c.writing
		c.writing = nil
	}
}

// dropPlan ends the plan: it reads and drops the answers of the calls
// sent that the probe did not make. A child that does not give them
// within the call limit is stopped.
func (c *Conn) dropPlan() {
	pl := c.plan
	c.plan = nil
	for range pl.pending {
		if !c.discardAnswer() {
			return
		}
	}
	c.wait()
}

// discardAnswer reads one answer and drops it, and stops the child when
// it cannot; it says whether it read one.
func (c *Conn) discardAnswer() (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			if _, failed := v.(*Failure); !failed {
				panic(v)
			}
			ok = false
		}
	}()
	c.answer("")
	return true
}
