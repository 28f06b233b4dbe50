package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Launch is how to start a child process.
type Launch = protocol.Launch

// CallLimit is how long one call may take in the child before the call
// fails: well under the runner's time for a case, which then names it.
const CallLimit = 5 * time.Second

// Conn is the checker's side: it starts the child when first needed and
// sends it calls. A child that misbehaves fails its call with a Failure,
// and the next object built starts a new child.
type Conn struct {
	mu        sync.Mutex
	launch    Launch
	sentinels []error
	limit     time.Duration
	proc      atomic.Pointer[process] // the child, which CPU reads without waiting for mu
	gen       int                     // counts the children started, so objects of a dead one are known
	nextID    uint64
	clocks    map[clock.Clock]uint64
	dropMu    sync.Mutex
	drops     []uint64 // objects collected, to tell the child; no number is used twice
}

// Open returns a Conn that starts children as protocol.LaunchEnv says;
// sentinels are the level's errors, as the child's Main is given them.
func Open(sentinels ...error) (*Conn, error) {
	var l Launch
	if err := json.Unmarshal([]byte(os.Getenv(protocol.LaunchEnv)), &l); err != nil {
		return nil, fmt.Errorf("%s, which the class report sets to the command that starts the student's child: %v", protocol.LaunchEnv, err)
	}
	return New(l, sentinels...), nil
}

// New returns a Conn that starts children with l.
func New(l Launch, sentinels ...error) *Conn {
	return &Conn{launch: l, sentinels: sentinels, limit: CallLimit}
}

// Close stops the child, if one runs.
func (c *Conn) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop()
}

// stop stops the child, if one runs, with c.mu held.
func (c *Conn) stop() {
	if p := c.proc.Swap(nil); p != nil {
		p.stop()
	}
}

// Failure is what a call panics with when the child did not answer it.
type Failure struct{ What string }

func (f *Failure) Error() string { return f.What }

// Object is a value the child built and keeps: a proxy's handle on it.
type Object struct {
	conn *Conn
	gen  int
	id   uint64
	clk  clock.Clock // the clock its constructor was given, if any
}

// New builds an object in the child with the constructor ctor, and stores
// its other results in the pointers results. A clock.Clock argument
// crosses as a clock that reads what this one reads.
func (c *Conn) New(ctor string, results []any, args ...any) *Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proc.Load() == nil {
		if err := c.start(); err != nil {
			c.fail(fmt.Sprintf("the level's code could not be started in its own process: %v", err))
		}
	}
	c.nextID++
	o := &Object{conn: c, gen: c.gen, id: c.nextID}
	for _, a := range args {
		if clk, ok := a.(clock.Clock); ok {
			o.clk = clk
		}
	}
	c.exchange(opNew, o, ctor, results, args)
	runtime.SetFinalizer(o, func(o *Object) { o.conn.drop(o) })
	return o
}

// Call calls method on the object in the child, and stores its results in
// the pointers results. A panic in the child is raised again here.
func (o *Object) Call(method string, results []any, args ...any) {
	c := o.conn
	c.mu.Lock()
	defer c.mu.Unlock()
	if o.gen != c.gen || c.proc.Load() == nil {
		panic(&Failure{What: fmt.Sprintf("%s: the process that built this value is gone", method)})
	}
	c.exchange(opCall, o, method, results, args)
	runtime.KeepAlive(o)
}

func (c *Conn) drop(o *Object) {
	c.dropMu.Lock()
	defer c.dropMu.Unlock()
	c.drops = append(c.drops, o.id)
}

func (c *Conn) clockID(clk clock.Clock) uint64 {
	id, ok := c.clocks[clk]
	if !ok {
		id = uint64(len(c.clocks) + 1)
		c.clocks[clk] = id
	}
	return id
}

// exchange sends one call and reads its answer and results, with c.mu
// held.
func (c *Conn) exchange(op byte, o *Object, method string, results []any, args []any) {
	m := message{Op: op, Obj: o.id, Method: method}
	if o.clk != nil {
		m.Clock, m.Now = c.clockID(o.clk), o.clk.Now()
	}
	c.dropMu.Lock()
	m.Drop, c.drops = c.drops, nil
	c.dropMu.Unlock()
	values := make([]reflect.Value, len(args))
	for i, a := range args {
		values[i] = reflect.ValueOf(a)
	}
	p := c.proc.Load()
	if err := p.send(m, values); err != nil {
		c.fail(fmt.Sprintf("%s(…): the call could not be sent: %v", method, err))
	}
	p.ends[1].SetReadDeadline(time.Now().Add(c.limit))
	p.budget.N = maxAnswer
	var a message
	err := p.dec.Decode(&a)
	if err == nil && a.Op == opDone {
		if len(a.Nil) != len(results) {
			c.fail(fmt.Sprintf("%s returned %d results, want %d", method, len(a.Nil), len(results)))
		}
		for i, r := range results {
			if err = p.value(&a, i, reflect.ValueOf(r).Elem()); err != nil {
				break
			}
		}
	}
	switch {
	case err != nil && p.budget.N <= 0:
		c.fail(fmt.Sprintf("the level's process, during %s(…): sent an answer larger than %d MiB", method, maxAnswer>>20))
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.fail(fmt.Sprintf("%s(…) did not return within %v", method, c.limit))
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		c.fail(fmt.Sprintf("the level's process ended during %s(…): %s", method, p.exitText()))
	case err != nil:
		c.fail(fmt.Sprintf("the level's process, during %s(…): %v", method, err))
	}
	if p.tree.Load() == nil {
		// By the first answer all the child's processes run.
		tree := procgroup.NewTree(p.cmd.Process.Pid)
		p.tree.Store(&tree)
	}
	if o.clk != nil && !o.clk.Now().Equal(m.Now) {
		panic(fmt.Sprintf("remote: the clock moved during %s: a case whose clock moves while a call runs must be judged in process", method))
	}
	switch a.Op {
	case opDone:
	case opPanic:
		panic(a.Text)
	case opExit:
		runtime.Goexit()
	case opError:
		c.fail(fmt.Sprintf("the level's process could not make the call %s: %s", method, a.Text))
	default:
		c.fail(fmt.Sprintf("the level's process answered %s with operation %d", method, a.Op))
	}
}

// fail stops the child and fails the call, with c.mu held.
func (c *Conn) fail(what string) {
	c.stop()
	panic(&Failure{What: what})
}

// process is one child.
type process struct {
	*pipe
	cmd     *exec.Cmd
	ends    [2]*os.File      // the checker's: calls, to the child, and answers, from it
	budget  io.LimitedReader // what is left to read of one answer
	exited  chan struct{}
	printed tail
	tree    atomic.Pointer[procgroup.Tree] // set at the first answer
}

// CPU returns the CPU time this process and the running child with all it
// started have used; false where the child's cannot be read.
func (c *Conn) CPU() (time.Duration, bool) {
	total, ok := procgroup.SelfCPU()
	if p := c.proc.Load(); p != nil && p.tree.Load() != nil {
		child, read := p.tree.Load().CPU()
		total += child
		ok = ok && read
	}
	return total, ok
}

func (c *Conn) start() error {
	callR, callW, err := os.Pipe()
	if err != nil {
		return err
	}
	ansR, ansW, err := os.Pipe()
	if err != nil {
		callR.Close()
		callW.Close()
		return err
	}
	p := &process{ends: [2]*os.File{callW, ansR}, exited: make(chan struct{}), budget: io.LimitedReader{R: ansR}}
	p.cmd = &exec.Cmd{Path: c.launch.Path, Args: c.launch.Args, Env: c.launch.Env, Dir: c.launch.Dir}
	p.cmd.Stdout, p.cmd.Stderr = &p.printed, &p.printed
	p.cmd.ExtraFiles = []*os.File{callR, ansW}
	p.cmd.WaitDelay = time.Second
	// The child stays in the checker's process group, which the report
	// kills when the checker ends.
	err = p.cmd.Start()
	callR.Close()
	ansW.Close()
	if err != nil {
		p.stop()
		return err
	}
	p.pipe = newPipe(&p.budget, callW, c.sentinels)
	p.clockID = c.clockID
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	c.proc.Store(p)
	c.gen++
	c.clocks = map[clock.Clock]uint64{}
	return nil
}

// wait waits up to d for the child to end, and reports whether it did.
func (p *process) wait(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// exitText says how the child ended, with the end of what it printed.
func (p *process) exitText() string {
	s := "it did not exit"
	if p.wait(time.Second) {
		s = p.cmd.ProcessState.String()
	}
	if out := strings.TrimSpace(p.printed.String()); out != "" {
		lines := strings.SplitAfter(out, "\n")
		if len(lines) > 12 {
			lines = append(lines[:12], "…")
		}
		s += "; it printed:\n" + strings.Join(lines, "")
	}
	return s
}

func (p *process) stop() {
	p.ends[0].Close()
	p.ends[1].Close()
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
		p.wait(2 * time.Second)
	}
}

// tail keeps the last 4 KiB written to it.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if n := len(t.b) - 4<<10; n > 0 {
		t.b = append([]byte("…"), t.b[n:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
