// Package remote runs a level's code in a child process that only answers
// the calls it is sent, so that the checker judging the answers never links
// the code it judges: whatever the child writes is an answer, never a
// verdict.
//
// The wire is two pipes, each a stream of encoding/gob: a message, then
// one gob value for each value it carries. Gob matches structs by field
// name, so the spec's types and the student's decode into each other.
package remote

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Operations of a message.
const (
	opNew   byte = 1 + iota // checker: call constructor Method, and keep its first result as object Obj
	opCall                  // checker: call Method on object Obj
	opDone                  // child: the call returned; the values are its results (after the object, for opNew)
	opPanic                 // child: the call panicked; Text is the panic value, printed
	opExit                  // child: the call ended its goroutine without returning (runtime.Goexit)
	opError                 // child: the request could not be served; Text says why
)

// maxAnswer caps what the checker reads for one answer.
const maxAnswer = 8 << 20

// message is what each side sends before the values of a call or answer.
type message struct {
	Op     byte
	Obj    uint64
	Method string
	// Clock is the object's clock, and Now the checker's reading of it as
	// the call starts, which the child's clock then reads.
	Clock uint64
	Now   time.Time
	Drop  []uint64 // objects the checker no longer holds
	Text  string
	// Nil is true for each nil value, which is not sent: gob alone would
	// not tell a nil slice or map from an empty one.
	Nil []bool
}

// wireError is an error's message and the sentinels it matched.
type wireError struct {
	Text string
	Is   []string
}

// errorType and clockType travel as a wireError and as a clock's number.
var (
	errorType = reflect.TypeFor[error]()
	clockType = reflect.TypeFor[clock.Clock]()
)

// errFlood is an answer over maxAnswer.
var errFlood = errors.New("sent an answer larger than 8 MiB")

// budget reads from r at most left bytes, then fails with errFlood.
type budget struct {
	r    io.Reader
	left int
}

func (b *budget) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errFlood
	}
	n, err := b.r.Read(p[:min(len(p), b.left)])
	b.left -= n
	return n, err
}

// sender writes messages and their values on one pipe.
type sender struct {
	w         *bufio.Writer
	enc       *gob.Encoder
	sentinels []error                  // the child's side
	clockID   func(clock.Clock) uint64 // the checker's side
}

func newSender(w io.Writer, sentinels []error, clockID func(clock.Clock) uint64) *sender {
	bw := bufio.NewWriterSize(w, 64<<10)
	return &sender{w: bw, enc: gob.NewEncoder(bw), sentinels: sentinels, clockID: clockID}
}

// send writes m and values (an invalid Value is a nil interface), and
// flushes them.
func (s *sender) send(m message, values []reflect.Value) error {
	wire := make([]any, len(values))
	m.Nil = make([]bool, len(values))
	for i, v := range values {
		wire[i], m.Nil[i] = s.wireValue(v)
	}
	if err := s.enc.Encode(&m); err != nil {
		return err
	}
	for i, v := range wire {
		if m.Nil[i] {
			continue
		}
		if err := s.enc.Encode(v); err != nil {
			return fmt.Errorf("a %T cannot be sent: %v", v, err)
		}
	}
	return s.w.Flush()
}

// wireValue is what v is sent as, or true for a nil value.
func (s *sender) wireValue(v reflect.Value) (any, bool) {
	if !v.IsValid() {
		return nil, true
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice, reflect.Func, reflect.Chan:
		if v.IsNil() {
			return nil, true
		}
	}
	switch t := v.Type(); {
	case t == errorType:
		err := v.Interface().(error)
		w := wireError{Text: guarded(err.Error, func(v any) string { return fmt.Sprintf("(Error() panicked: %v)", v) })}
		for _, target := range s.sentinels {
			if guarded(func() bool { return errors.Is(err, target) }, func(any) bool { return false }) {
				w.Is = append(w.Is, target.Error())
			}
		}
		return w, false
	case s.clockID != nil && t.Implements(clockType):
		return s.clockID(v.Interface().(clock.Clock)), false
	}
	return v.Interface(), false
}

// receiver reads messages and their values from one pipe.
type receiver struct {
	dec       *gob.Decoder
	sentinels map[string]error            // the checker's side
	clock     func(id uint64) clock.Clock // the child's side
}

// value reads the value of index i of m into v, which must be settable.
func (r *receiver) value(m *message, i int, v reflect.Value) error {
	t := v.Type()
	if m.Nil[i] {
		v.SetZero()
		return nil
	}
	switch t {
	case errorType:
		var w wireError
		if err := r.dec.Decode(&w); err != nil {
			return err
		}
		e := &Error{Text: w.Text}
		for _, s := range w.Is {
			if target, ok := r.sentinels[s]; ok {
				e.is = append(e.is, target)
			}
		}
		v.Set(reflect.ValueOf(error(e)))
		return nil
	case clockType:
		var id uint64
		if err := r.dec.Decode(&id); err != nil {
			return err
		}
		if r.clock == nil {
			return errors.New("a clock where none can be made")
		}
		v.Set(reflect.ValueOf(r.clock(id)))
		return nil
	}
	p := reflect.New(t)
	if err := r.dec.DecodeValue(p); err != nil {
		return err
	}
	// Gob sends no empty slice, map or pointer to a zero value.
	switch e := p.Elem(); {
	case e.Kind() == reflect.Slice && e.IsNil():
		e.Set(reflect.MakeSlice(t, 0, 0))
	case e.Kind() == reflect.Map && e.IsNil():
		e.Set(reflect.MakeMap(t))
	case e.Kind() == reflect.Pointer && e.IsNil():
		e.Set(reflect.New(t.Elem()))
	}
	v.Set(p.Elem())
	return nil
}

// guarded returns f(), or what onPanic makes of its panic: a student's
// Error or Is method may panic.
func guarded[T any](f func() T, onPanic func(v any) T) (out T) {
	defer func() {
		if v := recover(); v != nil {
			out = onPanic(v)
		}
	}()
	return f()
}

// Error is an error that came back from the child, which errors.Is finds
// the level's sentinels it matched there in.
type Error struct {
	Text string
	is   []error
}

func (e *Error) Error() string { return e.Text }

// Is reports whether the child's error matched target there.
func (e *Error) Is(target error) bool {
	for _, s := range e.is {
		if s == target {
			return true
		}
	}
	return false
}
