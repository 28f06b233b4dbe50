// Package logger is a learner's level 2 in the README's session: right
// answers, but it remembers every message it has ever printed.
package logger

import (
	"fmt"
	"time"
)

// Logger remembers when each message last printed.
type Logger struct {
	interval time.Duration
	last     map[string]time.Time
}

// New returns a Logger for the given interval.
func New(interval time.Duration) *Logger {
	if interval <= 0 {
		panic(fmt.Sprintf("logger: interval %v is not positive", interval))
	}
	return &Logger{interval: interval, last: map[string]time.Time{}}
}

// ShouldPrint reports whether message may print at now.
func (l *Logger) ShouldPrint(now time.Time, message string) bool {
	if t, ok := l.last[message]; ok && now.Before(t.Add(l.interval)) {
		return false
	}
	l.last[message] = now
	return true
}

// Len is the number of messages remembered.
func (l *Logger) Len() int { return len(l.last) }
