package timeline

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode"
)

// GoSource writes a case as the steps of a spec table, so that a timeline
// the fuzzer found can be pasted into the spec and kept. It follows the
// specs' convention: a call's helper is its method name in lower camel
// case, taking the arguments and then the wanted result, unless the call
// gives its own Source; offsets are written with the constants ns, ms, sec,
// minute and hour.
func GoSource[T any](c Case[T]) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\nsteps: []step{\n", c.Setup)
	for _, s := range c.Steps {
		if s.Call.Source != "" {
			fmt.Fprintf(&b, "\tat(%s, %s),\n", GoDuration(s.At), s.Call.Source)
			continue
		}
		args := make([]string, 0, len(s.Call.Args)+1)
		for _, a := range s.Call.Args {
			args = append(args, goValue(a))
		}
		if s.Call.Want != nil {
			args = append(args, goValue(s.Call.Want))
		}
		fmt.Fprintf(&b, "\tat(%s, %s(%s)),\n", GoDuration(s.At), lowerFirst(s.Call.Method), strings.Join(args, ", "))
	}
	b.WriteString("},")
	return b.String()
}

// GoDuration writes d as an expression over the specs' constants:
// 15*sec, 15*sec - ns, 1500*ms, 7*ns.
func GoDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	units := []struct {
		name string
		size time.Duration
	}{{"hour", time.Hour}, {"minute", time.Minute}, {"sec", time.Second}, {"ms", time.Millisecond}, {"ns", time.Nanosecond}}
	for _, u := range units {
		switch {
		case d%u.size == 0:
			return multiple(d/u.size, u.name)
		case (d+time.Nanosecond)%u.size == 0 && u.size > time.Nanosecond:
			return multiple((d+time.Nanosecond)/u.size, u.name) + " - ns"
		}
	}
	return multiple(d, "ns")
}

func multiple(n time.Duration, unit string) string {
	if n == 1 {
		return unit
	}
	return fmt.Sprintf("%d*%s", int64(n), unit)
}

func goValue(v any) string {
	switch v := v.(type) {
	case time.Duration:
		return GoDuration(v)
	case string:
		return fmt.Sprintf("%q", v)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Float32 || rv.Kind() == reflect.Float64 {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%#v", v)
}

func lowerFirst(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}
