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
	"slices"
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

// A pipe is one side's ends of the two pipes: it sends messages and
// their values on one and reads them from the other.
type pipe struct {
	w         *bufio.Writer
	enc       *gob.Encoder
	dec       *gob.Decoder
	sentinels []error                     // the level's errors, which an error's identity is told by
	clockID   func(clock.Clock) uint64    // the checker's side: a clock sent as its number
	clock     func(id uint64) clock.Clock // the child's side: the clock a number names
}

func newPipe(r io.Reader, w io.Writer, sentinels []error) *pipe {
	bw := bufio.NewWriterSize(w, 64<<10)
	return &pipe{w: bw, enc: gob.NewEncoder(bw), dec: gob.NewDecoder(r), sentinels: sentinels}
}

// send writes m and values (an invalid Value is a nil interface), and
// flushes them.
func (p *pipe) send(m message, values []reflect.Value) error {
	m.Nil = make([]bool, len(values))
	wire := make([]any, len(values))
	for i, v := range values {
		if m.Nil[i] = isNil(v); !m.Nil[i] {
			wire[i] = p.wireValue(v)
		}
	}
	if err := p.enc.Encode(&m); err != nil {
		return err
	}
	for i, v := range wire {
		if m.Nil[i] {
			continue
		}
		if err := p.enc.Encode(v); err != nil {
			return fmt.Errorf("a %T cannot be sent: %v", v, err)
		}
	}
	return p.w.Flush()
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Invalid:
		return true
	case reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// wireValue is what v, not nil, is sent as.
func (p *pipe) wireValue(v reflect.Value) any {
	switch t := v.Type(); {
	case t == errorType:
		err := v.Interface().(error)
		w := wireError{Text: guarded(err.Error, func(v any) string { return fmt.Sprintf("(Error() panicked: %v)", v) })}
		for _, target := range p.sentinels {
			if guarded(func() bool { return errors.Is(err, target) }, func(any) bool { return false }) {
				w.Is = append(w.Is, target.Error())
			}
		}
		return w
	case p.clockID != nil && t.Implements(clockType):
		return p.clockID(v.Interface().(clock.Clock))
	}
	return v.Interface()
}

// value reads the value of index i of m into v, which must be settable.
func (p *pipe) value(m *message, i int, v reflect.Value) error {
	t := v.Type()
	switch {
	case m.Nil[i]:
		v.SetZero()
		return nil
	case t == errorType:
		var w wireError
		err := p.dec.Decode(&w)
		e := &Error{Text: w.Text}
		for _, s := range p.sentinels {
			if slices.Contains(w.Is, s.Error()) {
				e.is = append(e.is, s)
			}
		}
		v.Set(reflect.ValueOf(error(e)))
		return err
	case t == clockType:
		var id uint64
		if err := p.dec.Decode(&id); err != nil {
			return err
		}
		if p.clock == nil {
			return errors.New("a clock where none can be made")
		}
		v.Set(reflect.ValueOf(p.clock(id)))
		return nil
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
func (e *Error) Is(target error) bool { return slices.Contains(e.is, target) }
