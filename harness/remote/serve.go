package remote

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Main serves calls on the pipes the checker hands a child, descriptors 3
// (calls in) and 4 (answers out), and exits when the checker closes them.
// A child's main is one call to it, written by the class report:
//
//	remote.Main(map[string]any{"New": hitcounter.New})
//
// sentinels are the level's errors whose identity an error keeps across
// the wire, such as viewerr.ErrNegativeViews.
func Main(constructors map[string]any, sentinels ...error) {
	in, out := os.NewFile(3, "calls"), os.NewFile(4, "answers")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "remote: this program answers the class report's checker, which starts it")
		os.Exit(2)
	}
	if err := Serve(in, out, constructors, sentinels...); err != nil {
		fmt.Fprintln(os.Stderr, "remote:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// Serve answers the calls read from r on w until r ends. A call that
// panics or ends its goroutine (runtime.Goexit) is answered so; serving
// goes on, on a new goroutine after a Goexit.
func Serve(r io.Reader, w io.Writer, constructors map[string]any, sentinels ...error) error {
	s := &server{
		r:       bufio.NewReaderSize(r, 64<<10),
		w:       w,
		ctors:   map[string]reflect.Value{},
		objects: map[uint64]reflect.Value{},
		clocks:  map[uint64]*childClock{},
		enc:     encoder{sentinels: sentinels},
		end:     make(chan error, 1),
	}
	for name, c := range constructors {
		v := reflect.ValueOf(c)
		if v.Kind() != reflect.Func || v.Type().NumOut() == 0 {
			return fmt.Errorf("constructor %s is a %T, want a function that returns the value to call", name, c)
		}
		s.ctors[name] = v
	}
	go s.loop()
	return <-s.end
}

// loop serves calls until the input ends, or a call ends its goroutine.
func (s *server) loop() {
	for {
		m, err := readMessage(s.r, &s.rbuf)
		if err == io.EOF {
			s.end <- nil
			return
		}
		if err != nil {
			s.end <- err
			return
		}
		answer := s.serve(m)
		if err := s.answer(&answer); err != nil {
			s.end <- err
			return
		}
	}
}

func (s *server) answer(m *message) error { return writeMessage(s.w, &s.wbuf, m) }

type server struct {
	r          *bufio.Reader
	w          io.Writer
	rbuf, wbuf []byte
	end        chan error
	ctors      map[string]reflect.Value
	objects    map[uint64]reflect.Value
	clocks     map[uint64]*childClock
	enc        encoder
}

// childClock reads the instant the checker's clock read as the current
// call began.
type childClock struct{ now atomic.Pointer[time.Time] }

func (c *childClock) Now() time.Time {
	if t := c.now.Load(); t != nil {
		return *t
	}
	return clock.Epoch
}

func (s *server) clock(id uint64) clock.Clock {
	c := s.clocks[id]
	if c == nil {
		c = new(childClock)
		s.clocks[id] = c
	}
	return c
}

func (s *server) serve(m message) message {
	for _, id := range m.Drop {
		delete(s.objects, id)
	}
	if m.Clock != 0 {
		now := m.Now
		s.clock(m.Clock).(*childClock).now.Store(&now)
	}
	var fn reflect.Value
	switch m.Op {
	case opNew:
		fn = s.ctors[m.Method]
		if !fn.IsValid() {
			return message{Op: opError, Text: fmt.Sprintf("no constructor %s", m.Method)}
		}
	case opCall:
		obj, ok := s.objects[m.Obj]
		if !ok {
			return message{Op: opError, Text: fmt.Sprintf("no object %d", m.Obj)}
		}
		fn = obj.MethodByName(m.Method)
		if !fn.IsValid() {
			return message{Op: opError, Text: fmt.Sprintf("%v has no method %s", obj.Type(), m.Method)}
		}
	default:
		return message{Op: opError, Text: fmt.Sprintf("unknown operation %d", m.Op)}
	}
	ft := fn.Type()
	if ft.IsVariadic() || ft.NumIn() != m.N {
		return message{Op: opError, Text: fmt.Sprintf("%s takes %d arguments, sent %d", m.Method, ft.NumIn(), m.N)}
	}
	d := decoder{b: m.Values, clock: s.clock}
	args := make([]reflect.Value, ft.NumIn())
	for i := range args {
		args[i] = reflect.New(ft.In(i)).Elem()
		d.value(args[i])
	}
	if d.err != nil {
		return message{Op: opError, Text: fmt.Sprintf("the arguments of %s: %v", m.Method, d.err)}
	}
	results, answer, ok := s.call(fn, args)
	if !ok {
		return answer
	}
	if m.Op == opNew {
		s.objects[m.Obj] = results[0]
		results = results[1:]
	}
	s.enc.b = s.enc.b[:0]
	for _, r := range results {
		if err := s.enc.value(r); err != nil {
			return message{Op: opError, Text: fmt.Sprintf("the results of %s: %v", m.Method, err)}
		}
	}
	return message{Op: opDone, N: len(results), Values: s.enc.b}
}

// call calls fn, and says how it ended. A call that ends its goroutine
// is answered here, and a new goroutine takes over serving.
func (s *server) call(fn reflect.Value, args []reflect.Value) (results []reflect.Value, answer message, ok bool) {
	returned := false
	defer func() {
		v := recover()
		switch {
		case v != nil:
			answer = message{Op: opPanic, Text: panicText(v)}
		case !returned:
			if err := s.answer(&message{Op: opExit}); err != nil {
				s.end <- err
				return
			}
			go s.loop()
		}
	}()
	results = fn.Call(args)
	returned = true
	return results, message{}, true
}

// panicText prints a panic's value, as the runtime would: an error by its
// message.
func panicText(v any) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("(a panic value whose printing panicked: %v)", r)
		}
	}()
	if err, ok := v.(error); ok {
		return err.Error()
	}
	return fmt.Sprint(v)
}
