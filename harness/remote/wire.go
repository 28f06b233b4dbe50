// Package remote runs a level's code in a process of its own, which only
// executes the calls it is sent and returns what they returned, so that the
// process that judges the answers never links the code it judges.
//
// The class report faces students who may forge: code that runs inside the
// test binary can write the runner's events itself, or hide a case. So the
// report builds a child from the student's package and a small main that
// calls Main, and runs the spec's cases in a checker built from the
// instructor's files alone, against proxies whose methods forward each
// call to the child (see Conn). The child is told nothing of what is
// wanted; whatever it writes is an answer to a call, never a verdict.
//
// The wire is two pipes, one each way, of frames: a 4-byte length, then
// one message. Values travel without type information: each side encodes
// and decodes them by the Go types it knows, the child from its method's
// signature, the checker from the spec's interface. This package imports
// no "testing" and no spec: a child links it.
package remote

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// Operations of a message.
const (
	opNew   byte = 1 + iota // checker: call constructor Method, and keep its first result as object Obj
	opCall                  // checker: call Method on object Obj
	opDone                  // child: the call returned; Values are its results (after the object, for opNew)
	opPanic                 // child: the call panicked; Text is the panic value, printed
	opExit                  // child: the call ended its goroutine without returning (runtime.Goexit)
	opError                 // child: the request could not be served; Text says why
)

// maxFrame is the largest message either side accepts: far more than any
// answer a spec wants, and a cap on what a flooding child can make the
// checker hold.
const maxFrame = 8 << 20

// message is one frame on the wire.
type message struct {
	Op     byte
	Obj    uint64
	Method string
	// Clock and Now are the clock of the object called (or the clock the
	// constructor is given) and the checker's reading of it as the call
	// starts. A spec moves its clock only between calls, so the child's
	// clock reads exactly what the checker's reads (see Conn).
	Clock uint64
	Now   time.Time
	// Drop lists objects the checker no longer holds, for the child to
	// forget.
	Drop   []uint64
	Text   string
	N      int    // how many values
	Values []byte // the values, encoded one after another
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) ([]byte, error) {
	tb, err := t.MarshalBinary()
	if err != nil {
		return b, err
	}
	b = binary.AppendUvarint(b, uint64(len(tb)))
	return append(b, tb...), nil
}

// writeMessage writes one frame. The buffer is reused between calls.
func writeMessage(w io.Writer, buf *[]byte, m *message) error {
	b, err := appendMessage((*buf)[:0], m)
	if err != nil {
		return err
	}
	*buf = b
	_, err = w.Write(b)
	return err
}

// appendMessage appends one frame to b.
func appendMessage(b []byte, m *message) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0, m.Op)
	b = binary.AppendUvarint(b, m.Obj)
	b = appendString(b, m.Method)
	b = binary.AppendUvarint(b, m.Clock)
	var err error
	if b, err = appendTime(b, m.Now); err != nil {
		return b[:start], err
	}
	b = binary.AppendUvarint(b, uint64(len(m.Drop)))
	for _, d := range m.Drop {
		b = binary.AppendUvarint(b, d)
	}
	b = appendString(b, m.Text)
	b = binary.AppendUvarint(b, uint64(m.N))
	b = append(b, m.Values...)
	n := len(b) - start - 4
	if n > maxFrame {
		return b[:start], fmt.Errorf("a message of %d bytes, over the limit of %d", n, maxFrame)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(n))
	return b, nil
}

// errFlood is a frame over maxFrame.
var errFlood = errors.New("sent a message larger than 8 MiB")

// readMessage reads one frame.
func readMessage(r io.Reader, buf *[]byte) (message, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return message{}, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return message{}, errFlood
	}
	if cap(*buf) < int(n) {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return message{}, err
	}
	d := decoder{b: b}
	var m message
	m.Op = d.byte()
	m.Obj = d.uvarint()
	m.Method = d.string()
	m.Clock = d.uvarint()
	m.Now = d.time()
	if k := d.length(); k > 0 {
		m.Drop = make([]uint64, k)
		for i := range m.Drop {
			m.Drop[i] = d.uvarint()
		}
	}
	m.Text = d.string()
	m.N = d.length()
	if d.err != nil {
		return message{}, d.err
	}
	m.Values = d.b
	return m, nil
}

// errorType and clockType are the interfaces that travel by what they mean
// rather than by value: an error as its message and the sentinels it
// matches, a clock as a name the child's clock answers for.
var (
	errorType = reflect.TypeFor[error]()
	clockType = reflect.TypeFor[clock.Clock]()
	timeType  = reflect.TypeFor[time.Time]()
)

// encoder writes values by their Go type.
type encoder struct {
	b []byte
	// sentinels are the errors whose identity an error keeps across the
	// wire (the child's side): an error sends the messages of those it
	// matches with errors.Is.
	sentinels []error
	// clockID names a clock argument (the checker's side).
	clockID func(clock.Clock) uint64
}

func (e *encoder) value(v reflect.Value) error {
	t := v.Type()
	switch {
	case t == errorType:
		if v.IsNil() {
			e.b = append(e.b, 0)
			return nil
		}
		err := v.Interface().(error)
		e.b = append(e.b, 1)
		e.b = appendString(e.b, errorText(err))
		var is []string
		for _, s := range e.sentinels {
			if matches(err, s) {
				is = append(is, s.Error())
			}
		}
		e.b = binary.AppendUvarint(e.b, uint64(len(is)))
		for _, s := range is {
			e.b = appendString(e.b, s)
		}
		return nil
	case t == timeType:
		var err error
		e.b, err = appendTime(e.b, v.Interface().(time.Time))
		return err
	case e.clockID != nil && t.Implements(clockType):
		var id uint64
		if !v.IsZero() {
			id = e.clockID(v.Interface().(clock.Clock))
		}
		e.b = binary.AppendUvarint(e.b, id)
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.b = append(e.b, 1)
		} else {
			e.b = append(e.b, 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.b = binary.AppendVarint(e.b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.b = binary.AppendUvarint(e.b, v.Uint())
	case reflect.Float32, reflect.Float64:
		e.b = binary.BigEndian.AppendUint64(e.b, math.Float64bits(v.Float()))
	case reflect.String:
		e.b = appendString(e.b, v.String())
	case reflect.Slice, reflect.Map, reflect.Pointer:
		if v.IsNil() {
			e.b = append(e.b, 0)
			return nil
		}
		switch t.Kind() {
		case reflect.Pointer:
			e.b = append(e.b, 1)
			return e.value(v.Elem())
		case reflect.Slice:
			e.b = binary.AppendUvarint(e.b, uint64(v.Len())+1)
			for i := range v.Len() {
				if err := e.value(v.Index(i)); err != nil {
					return err
				}
			}
		case reflect.Map:
			e.b = binary.AppendUvarint(e.b, uint64(v.Len())+1)
			it := v.MapRange()
			for it.Next() {
				if err := e.value(it.Key()); err != nil {
					return err
				}
				if err := e.value(it.Value()); err != nil {
					return err
				}
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if err := e.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				return fmt.Errorf("a %v cannot be sent: field %s is unexported", t, t.Field(i).Name)
			}
			if err := e.value(v.Field(i)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("a %v cannot be sent", t)
	}
	return nil
}

// errorText is err.Error(), or what its Error method panicked with.
func errorText(err error) (s string) {
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprintf("(Error() panicked: %v)", v)
		}
	}()
	return err.Error()
}

// matches is errors.Is, for an error whose Is method may panic.
func matches(err, target error) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return errors.Is(err, target)
}

// decoder reads values by their Go type. Its input may come from a child
// that writes anything, so every length is checked against what is left.
type decoder struct {
	b   []byte
	err error
	// sentinels turn an error's matched messages back into identities (the
	// checker's side).
	sentinels map[string]error
	// clock makes the child's clock for a clock's name (the child's side).
	clock func(id uint64) clock.Clock
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail("a message ends early")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }

func (d *decoder) varint() int64 { return readVarint(d, binary.Varint) }

// readVarint reads a number with read, binary.Uvarint or binary.Varint.
func readVarint[N uint64 | int64](d *decoder, read func([]byte) (N, int)) N {
	v, n := read(d.b)
	if n <= 0 {
		d.fail("a malformed number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// length reads a count of items that each take at least one byte.
func (d *decoder) length() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("a length of %d with %d bytes left", n, len(d.b))
		return 0
	}
	return int(n)
}

// items reads the count of a slice or map, written as its length plus
// one, 0 for nil: it returns the length, or -1 for nil. Each item takes at
// least a byte.
func (d *decoder) items() int {
	n := d.uvarint()
	if n == 0 || d.err != nil {
		return -1
	}
	if n-1 > uint64(len(d.b)) {
		d.fail("%d items with %d bytes left", n-1, len(d.b))
		return -1
	}
	return int(n - 1)
}

func (d *decoder) bytes() []byte {
	n := d.length()
	if d.err != nil {
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) string() string { return string(d.bytes()) }

func (d *decoder) time() time.Time {
	var t time.Time
	if b := d.bytes(); d.err == nil {
		if err := t.UnmarshalBinary(b); err != nil {
			d.fail("a malformed time: %v", err)
		}
	}
	return t
}

// value decodes into v, which must be settable.
func (d *decoder) value(v reflect.Value) {
	if d.err != nil {
		return
	}
	t := v.Type()
	switch {
	case t == errorType:
		if d.byte() == 0 {
			v.SetZero()
			return
		}
		e := &Error{Text: d.string()}
		for n := d.length(); n > 0 && d.err == nil; n-- {
			if s, ok := d.sentinels[d.string()]; ok {
				e.is = append(e.is, s)
			}
		}
		v.Set(reflect.ValueOf(error(e)))
		return
	case t == timeType:
		v.Set(reflect.ValueOf(d.time()))
		return
	case t == clockType:
		id := d.uvarint()
		if d.clock == nil {
			d.fail("a clock where none can be made")
			return
		}
		if id != 0 {
			v.Set(reflect.ValueOf(d.clock(id)))
		}
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(d.byte() != 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(d.varint())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(d.uvarint())
	case reflect.Float32, reflect.Float64:
		if len(d.b) < 8 {
			d.fail("a message ends early")
			return
		}
		v.SetFloat(math.Float64frombits(binary.BigEndian.Uint64(d.b)))
		d.b = d.b[8:]
	case reflect.String:
		v.SetString(d.string())
	case reflect.Pointer:
		if d.byte() == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(t.Elem())
		d.value(p.Elem())
		v.Set(p)
	case reflect.Slice, reflect.Map:
		n := d.items()
		if n < 0 {
			v.SetZero()
			return
		}
		if t.Kind() == reflect.Slice {
			s := reflect.MakeSlice(t, n, n)
			for i := range n {
				d.value(s.Index(i))
			}
			v.Set(s)
			return
		}
		m := reflect.MakeMapWithSize(t, n)
		k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		for range n {
			k.SetZero()
			e.SetZero()
			d.value(k)
			d.value(e)
			if d.err != nil {
				return
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Array:
		for i := range v.Len() {
			d.value(v.Index(i))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				d.fail("a %v cannot be received: field %s is unexported", t, t.Field(i).Name)
				return
			}
			d.value(v.Field(i))
		}
	default:
		d.fail("a %v cannot be received", t)
	}
}

// Error is an error that came back from the child: its message, and the
// level's sentinel errors it matched there, so that errors.Is still finds
// them.
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
