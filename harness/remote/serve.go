package remote

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Main serves calls on descriptors 3 (calls) and 4 (answers), and exits
// when the checker closes them; after a call's Goexit it goes on, on a new
// goroutine. sentinels are the level's errors, whose identity an error
// keeps across the wire.
func Main(constructors map[string]any, sentinels ...error) {
	in, out := os.NewFile(3, "calls"), os.NewFile(4, "answers")
	if _, err := in.Stat(); err != nil {
		exit(errors.New("this program answers the class report's checker, which starts it"))
	}
	s := &server{
		pipe:    newPipe(bufio.NewReaderSize(in, 64<<10), out, sentinels),
		ctors:   map[string]reflect.Value{},
		objects: map[uint64]reflect.Value{},
		clocks:  map[uint64]*childClock{},
		end:     make(chan error, 1),
	}
	s.clock = s.clockOf
	for name, c := range constructors {
		if v := reflect.ValueOf(c); v.Kind() != reflect.Func || v.Type().NumOut() == 0 {
			exit(fmt.Errorf("constructor %s is a %T, want a function that returns the value to call", name, c))
		}
		s.ctors[name] = reflect.ValueOf(c)
	}
	go s.loop()
	exit(<-s.end)
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "remote:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// loop serves calls until the input ends, or a call ends its goroutine.
func (s *server) loop() {
	for {
		var m message
		err := s.dec.Decode(&m)
		// A result gob cannot carry ends the child, which prints why.
		if err == nil {
			if err = s.send(s.serve(m)); err != nil {
				err = fmt.Errorf("the results of %s: %v", m.Method, err)
			}
		}
		if err == io.EOF {
			s.end <- nil
			return
		} else if err != nil {
			s.end <- err
			return
		}
	}
}

type server struct {
	*pipe
	end     chan error
	ctors   map[string]reflect.Value
	objects map[uint64]reflect.Value
	clocks  map[uint64]*childClock
}

// childClock reads what the checker's clock read as the call began.
type childClock struct{ now atomic.Pointer[time.Time] }

func (c *childClock) Now() time.Time {
	if t := c.now.Load(); t != nil {
		return *t
	}
	return clock.Epoch
}

func (s *server) clockOf(id uint64) clock.Clock {
	c := s.clocks[id]
	if c == nil {
		c = new(childClock)
		s.clocks[id] = c
	}
	return c
}

func (s *server) serve(m message) (answer message, results []reflect.Value) {
	for _, id := range m.Drop {
		delete(s.objects, id)
	}
	if m.Clock != 0 {
		now := m.Now
		s.clockOf(m.Clock).(*childClock).now.Store(&now)
	}
	fn, args, err := s.request(m)
	if err != nil {
		return message{Op: opError, Text: err.Error()}, nil
	}
	returned := false
	defer func() {
		if v := recover(); v != nil {
			answer, results = message{Op: opPanic, Text: guarded(func() string {
				if err, ok := v.(error); ok {
					return err.Error()
				}
				return fmt.Sprint(v)
			}, func(r any) string { return fmt.Sprintf("(a panic value whose printing panicked: %v)", r) })}, nil
		} else if !returned {
			// A Goexit ended this goroutine: a new one serves.
			if err := s.send(message{Op: opExit}, nil); err != nil {
				s.end <- err
				return
			}
			go s.loop()
		}
	}()
	results = fn.Call(args)
	returned = true
	if m.Op == opNew {
		s.objects[m.Obj] = results[0]
		results = results[1:]
	}
	return message{Op: opDone}, results
}

// request reads the function m calls and its arguments. After a mistake
// the checker ends the child, so what is left unread does not matter.
func (s *server) request(m message) (fn reflect.Value, args []reflect.Value, err error) {
	switch m.Op {
	case opNew:
		if fn = s.ctors[m.Method]; !fn.IsValid() {
			return fn, nil, fmt.Errorf("no constructor %s", m.Method)
		}
	case opCall:
		obj, ok := s.objects[m.Obj]
		if !ok {
			return fn, nil, fmt.Errorf("no object %d", m.Obj)
		}
		if fn = obj.MethodByName(m.Method); !fn.IsValid() {
			return fn, nil, fmt.Errorf("%v has no method %s", obj.Type(), m.Method)
		}
	default:
		return fn, nil, fmt.Errorf("unknown operation %d", m.Op)
	}
	ft := fn.Type()
	if ft.IsVariadic() || ft.NumIn() != len(m.Nil) {
		return fn, nil, fmt.Errorf("%s takes %d arguments, sent %d", m.Method, ft.NumIn(), len(m.Nil))
	}
	args = make([]reflect.Value, ft.NumIn())
	for i := range args {
		args[i] = reflect.New(ft.In(i)).Elem()
		if err := s.value(&m, i, args[i]); err != nil {
			return fn, nil, fmt.Errorf("the arguments of %s: %v", m.Method, err)
		}
	}
	return fn, args, nil
}
