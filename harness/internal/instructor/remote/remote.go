// Package remote runs a level's code in a child process that only answers
// the calls it is sent: the checker judging the answers never links the
// code it judges, and whatever the child writes is an answer, never a
// verdict. The wire is two pipes, each a stream of encoding/gob: a message,
// then a gob value for each value it carries. Gob matches structs by field
// name, so the spec's types and the student's decode into each other.
package remote

import (
	"bufio"
	"cmp"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Operations of a message.
const (
	opNew   byte = 1 + iota // checker: call the constructor, and keep its first result as object Obj
	opCall                  // checker: call Method on object Obj
	opDone                  // child: the call returned; the values are its results (after the object, for opNew)
	opPanic                 // child: the call panicked; Text is the panic value, printed
	opError                 // child: the request could not be served; Text says why
)

// maxAnswer caps what the checker reads for one answer.
const maxAnswer = 8 << 20

// message is what each side sends before the values of a call or answer.
type message struct {
	Op     byte
	Obj    uint64
	Method string
	// Now is what the clock of object Obj reads as the call starts: the
	// child's clock of the object then reads it.
	Now  time.Time
	Drop []uint64 // objects the checker no longer holds
	Text string
	// Nil is true for each nil value (and clock), which is not sent: gob
	// alone would not tell a nil slice or map from an empty one.
	Nil []bool
}

// wireError is an error as it crosses: its message, and those of the
// level's sentinels it matched in the child, for errors.Is in the checker.
type wireError struct {
	Text    string
	Matched []string
}

func (e *wireError) Error() string { return e.Text }

// Is reports whether the error matched target in the child.
func (e *wireError) Is(target error) bool { return slices.Contains(e.Matched, target.Error()) }

// errorType and clockType travel as a wireError and as nothing: the child
// makes a clock of the object's own.
var (
	errorType = reflect.TypeFor[error]()
	clockType = reflect.TypeFor[clock.Clock]()
)

// A pipe is one side's ends of the two pipes: it sends messages and
// their values on one and reads them from the other.
type pipe struct {
	w         *bufio.Writer
	enc       *gob.Encoder
	dec       *gob.Decoder
	sentinels []error // the child's: the level's errors, which an error's identity is told by
}

func newPipe(r io.Reader, w io.Writer, sentinels []error) *pipe {
	bw := bufio.NewWriterSize(w, 64<<10)
	return &pipe{w: bw, enc: gob.NewEncoder(bw), dec: gob.NewDecoder(r), sentinels: sentinels}
}

// send writes and flushes m and values (an invalid Value is a nil interface).
func (p *pipe) send(m message, values []reflect.Value) error {
	m.Nil = make([]bool, len(values))
	for i, v := range values {
		m.Nil[i] = !v.IsValid() || v.Type().Implements(clockType) ||
			slices.Contains([]reflect.Kind{reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice, reflect.Func, reflect.Chan}, v.Kind()) && v.IsNil()
	}
	err := p.enc.Encode(&m)
	for i, v := range values {
		if err != nil || m.Nil[i] {
			continue
		}
		wire := v.Interface()
		if e, ok := wire.(error); ok && v.Type() == errorType {
			w := wireError{Text: fmt.Sprint(e)} // fmt tells of an Error method that panics
			for _, target := range p.sentinels {
				if errors.Is(e, target) {
					w.Matched = append(w.Matched, target.Error())
				}
			}
			wire = w
		}
		err = p.enc.Encode(wire)
	}
	return cmp.Or(err, p.w.Flush())
}

// value reads the value of index i of m into v, which must be settable;
// clk is the clock a clock.Clock reads.
func (p *pipe) value(m *message, i int, v reflect.Value, clk clock.Clock) error {
	t := v.Type()
	switch {
	case t == clockType:
		v.Set(reflect.ValueOf(clk)) // the checker is sent no clock
		return nil
	case m.Nil[i]:
		v.SetZero()
		return nil
	case t == errorType:
		e := new(wireError)
		v.Set(reflect.ValueOf(error(e)))
		return p.dec.Decode(e)
	}
	v.SetZero() // gob would merge into what v holds
	if err := p.dec.DecodeValue(v.Addr()); err != nil {
		return err
	}
	// Gob sends no empty slice, map or pointer to a zero value.
	switch {
	case v.Kind() == reflect.Slice && v.IsNil():
		v.Set(reflect.MakeSlice(t, 0, 0))
	case v.Kind() == reflect.Map && v.IsNil():
		v.Set(reflect.MakeMap(t))
	case v.Kind() == reflect.Pointer && v.IsNil():
		v.Set(reflect.New(t.Elem()))
	}
	return nil
}

// CallLimit is how long one call may take in the child before the call
// fails: well under the runner's time for a case, which then names it.
const CallLimit = 5 * time.Second

// Conn is the checker's side: it starts the child when first needed and
// sends it calls. A child that misbehaves fails its call with a Failure,
// and the next object built starts a new child.
type Conn struct {
	mu     sync.Mutex
	launch protocol.Launch
	limit  time.Duration
	proc   atomic.Pointer[process] // the child, which CPU reads without waiting for mu
	nextID uint64
	drops  []uint64 // objects collected, to tell the child; no number is used twice
}

// Open returns a Conn that starts children as protocol.LaunchEnv says.
func Open() (*Conn, error) {
	var l protocol.Launch
	if err := json.Unmarshal([]byte(os.Getenv(protocol.LaunchEnv)), &l); err != nil {
		return nil, fmt.Errorf("%s, which the class report sets to the command that starts the student's child: %v", protocol.LaunchEnv, err)
	}
	return &Conn{launch: l, limit: CallLimit}, nil
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
		p.ends[0].Close()
		p.ends[1].Close()
		p.cmd.Process.Kill()
		p.cmd.Wait() // the second call returns at once
	}
}

// Failure is what a call panics with when the child did not answer it.
type Failure struct{ What string }

func (f *Failure) Error() string { return f.What }

// Object is a value the child built and keeps: a proxy's handle on it.
type Object struct {
	conn *Conn
	proc *process // the child that built it
	id   uint64
	clk  clock.Clock // the clock its constructor was given, if any
}

// New builds an object in the child with its constructor, named ctor in
// messages, and stores its other results in the pointers results. A
// clock.Clock argument crosses as a clock that reads what this one reads.
func (c *Conn) New(ctor string, results []any, args ...any) *Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proc.Load() == nil {
		if err := c.start(); err != nil {
			c.fail(fmt.Sprintf("the level's code could not be started in its own process: %v", err))
		}
	}
	c.nextID++
	o := &Object{conn: c, proc: c.proc.Load(), id: c.nextID}
	for _, a := range args {
		if clk, ok := a.(clock.Clock); ok {
			o.clk = clk
		}
	}
	c.exchange(opNew, o, ctor, results, args)
	runtime.SetFinalizer(o, func(o *Object) {
		c.mu.Lock() // the finalizers' goroutine may wait out a call
		defer c.mu.Unlock()
		c.drops = append(c.drops, o.id)
	})
	return o
}

// Call calls method on the object in the child, and stores its results in
// the pointers results. A panic in the child is raised again here.
func (o *Object) Call(method string, results []any, args ...any) {
	c := o.conn
	c.mu.Lock()
	defer c.mu.Unlock()
	if o.proc != c.proc.Load() {
		panic(&Failure{What: fmt.Sprintf("%s: the process that built this value is gone", method)})
	}
	c.exchange(opCall, o, method, results, args)
	runtime.KeepAlive(o)
}

// exchange sends one call and reads its answer and results, with c.mu held.
func (c *Conn) exchange(op byte, o *Object, method string, results []any, args []any) {
	m := message{Op: op, Obj: o.id, Method: method}
	if o.clk != nil {
		m.Now = o.clk.Now()
	}
	m.Drop, c.drops = c.drops, nil
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
			if err = p.value(&a, i, reflect.ValueOf(r).Elem(), nil); err != nil {
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
	ends    [2]*os.File                    // the checker's: calls, to the child, and answers, from it
	budget  io.LimitedReader               // what is left to read of one answer
	printed strings.Builder                // the first 4 KiB of its output, read once it exited
	tree    atomic.Pointer[procgroup.Tree] // set at the first answer
}

// Write keeps the first 4 KiB the child prints.
func (p *process) Write(b []byte) (int, error) {
	p.printed.Write(b[:min(len(b), max(0, 4<<10-p.printed.Len()))])
	return len(b), nil
}

// CPU returns the CPU time this process and the running child with all it
// started have used; false where the child's cannot be read.
func (c *Conn) CPU() (time.Duration, bool) {
	total, ok := procgroup.SelfCPU()
	if p := c.proc.Load(); p != nil && p.tree.Load() != nil {
		child, read := p.tree.Load().CPU()
		return total + child, ok && read
	}
	return total, ok
}

func (c *Conn) start() error {
	callR, callW, err := os.Pipe()
	ansR, ansW, err2 := os.Pipe()
	if err = cmp.Or(err, err2); err != nil {
		return err // what was opened is closed by its finalizer
	}
	p := &process{ends: [2]*os.File{callW, ansR}, budget: io.LimitedReader{R: ansR}}
	p.cmd = &exec.Cmd{Path: c.launch.Path, Args: c.launch.Args, Env: c.launch.Env, Dir: c.launch.Dir}
	p.cmd.Stdout, p.cmd.Stderr = p, p
	p.cmd.ExtraFiles = []*os.File{callR, ansW}
	p.cmd.WaitDelay = time.Second
	// The child stays in the checker's process group, which the report
	// kills when the checker ends.
	err = p.cmd.Start()
	callR.Close()
	ansW.Close()
	if err != nil {
		callW.Close()
		ansR.Close()
		return err
	}
	p.pipe = newPipe(&p.budget, callW, nil)
	c.proc.Store(p)
	return nil
}

// exitText says how the child ended, killed if it had not within a
// second, with the start of what it printed.
func (p *process) exitText() string {
	defer time.AfterFunc(time.Second, func() { p.cmd.Process.Kill() }).Stop()
	p.cmd.Wait()
	s := p.cmd.ProcessState.String()
	if out := strings.TrimSpace(p.printed.String()); out != "" {
		s += "; it printed:\n" + out
	}
	return s
}

// Main serves calls to ctor and to the methods of what it builds, on
// descriptors 3 (calls) and 4 (answers), and exits when the checker closes
// them. sentinels are the level's errors, whose identity an error keeps
// across the wire.
func Main(ctor any, sentinels ...error) {
	in, out := os.NewFile(3, "calls"), os.NewFile(4, "answers")
	if _, err := in.Stat(); err != nil {
		log.Fatal("remote: this program answers the class report's checker, which starts it")
	}
	s := &server{
		pipe:    newPipe(bufio.NewReaderSize(in, 64<<10), out, sentinels),
		objects: map[uint64]reflect.Value{0: reflect.ValueOf(ctor)},
		clocks:  map[uint64]*childClock{},
	}
	for {
		var m message
		if err := s.dec.Decode(&m); err == io.EOF {
			os.Exit(0) // the checker is done
		} else if err != nil {
			log.Fatal("remote: ", err)
		}
		// A result gob cannot carry ends the child, which prints why.
		if err := s.send(s.serve(m)); err != nil {
			log.Fatalf("remote: the results of %s: %v", m.Method, err)
		}
	}
}

type server struct {
	*pipe
	objects map[uint64]reflect.Value // 0 is the constructor
	clocks  map[uint64]*childClock   // each object's clock
}

// childClock reads what the checker's clock read as the call began.
type childClock struct{ now atomic.Pointer[time.Time] }

func (c *childClock) Now() time.Time { return *c.now.Load() }

// serve makes the call m asks for. After a request it cannot read the
// checker ends the child, so what is left unread does not matter.
func (s *server) serve(m message) (answer message, results []reflect.Value) {
	for _, id := range m.Drop {
		delete(s.objects, id)
		delete(s.clocks, id)
	}
	if s.clocks[m.Obj] == nil {
		s.clocks[m.Obj] = new(childClock)
	}
	s.clocks[m.Obj].now.Store(&m.Now)
	refuse := func(format string, a ...any) (message, []reflect.Value) {
		return message{Op: opError, Text: fmt.Sprintf(format, a...)}, nil
	}
	fn := s.objects[0]
	if m.Op != opNew {
		obj, ok := s.objects[m.Obj]
		if !ok {
			return refuse("no object %d", m.Obj)
		}
		if fn = obj.MethodByName(m.Method); !fn.IsValid() {
			return refuse("%v has no method %s", obj.Type(), m.Method)
		}
	}
	ft := fn.Type()
	if ft.IsVariadic() || ft.NumIn() != len(m.Nil) {
		return refuse("%s takes %d arguments, sent %d", m.Method, ft.NumIn(), len(m.Nil))
	}
	args := make([]reflect.Value, ft.NumIn())
	for i := range args {
		args[i] = reflect.New(ft.In(i)).Elem()
		if err := s.value(&m, i, args[i], s.clocks[m.Obj]); err != nil {
			return refuse("the arguments of %s: %v", m.Method, err)
		}
	}
	// A Goexit ends main, which serves: the call fails as the child ends
	// (all its goroutines asleep) or as one that hangs.
	defer func() {
		if v := recover(); v != nil {
			answer, results = message{Op: opPanic, Text: fmt.Sprint(v)}, nil
		}
	}()
	results = fn.Call(args)
	if m.Op == opNew {
		s.objects[m.Obj] = results[0]
		results = results[1:]
	}
	return message{Op: opDone}, results
}
