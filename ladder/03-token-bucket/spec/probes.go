package spec

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// env is what a probe has besides the bucket: e.New builds another.
type env = timeline.Env[Bucket, shape]

// precisionStart is offset 0 of the precision case: a day in 2025, where
// seconds since 1970 are about 1.7e9, and a float64 of them is only good to
// about 240ns.
var precisionStart = time.Date(2025, time.June, 1, 12, 0, 0, 0, time.UTC)

// noDrift checks the precision requirement: 1000 tokens a second, so a
// token every millisecond exactly. The steps have drained the bucket and
// taken the token at 1ms; the probe sends a million more requests, one
// every millisecond, and before every thousandth one and the last, a
// request one nanosecond early. Every request on time is allowed, and every
// early one denied. (Drift adds up, so checking the early request now and
// then finds it as well as checking it every time, at half the cost under
// the race detector.)
func noDrift(b Bucket, _ env) error {
	const requests = 1_000_000
	for k := 2; k <= requests+1; k++ {
		due := time.Duration(k) * time.Millisecond
		early := k%1000 == 0 || k == requests+1
		if early && b.Allow(precisionStart.Add(due-time.Nanosecond)) {
			return fmt.Errorf("Allow(t=%s) = true, want false: one nanosecond before request %d of %d, the bucket holds 0.999999 tokens: something rounds or drifts",
				timeline.Offset(due-time.Nanosecond), k-1, requests)
		}
		if !b.Allow(precisionStart.Add(due)) {
			return fmt.Errorf("Allow(t=%s) = false, want true: request %d of %d, exactly one interval after the one before it: something rounds or drifts",
				timeline.Offset(due), k-1, requests)
		}
	}
	return nil
}

// badNewPanics checks that New panics for a value no bucket can have, with
// the value in the message.
func badNewPanics(_ Bucket, e env) error {
	return newPanics(e, []badNew{
		{0, 1, []string{"0"}},
		{-3, 1, []string{"-3"}},
		{1, -0.5, []string{"-0.5"}},
		{1, math.NaN(), []string{"NaN"}},
		{1, math.Inf(1), []string{"Inf"}},
		{1, math.Inf(-1), []string{"-Inf"}},
	})
}

// boundsPanic checks part 4's bounds: New panics for a capacity above the
// largest, naming the capacity and the largest, and for a positive rate
// below a token per 2^63ns, naming the rate.
func boundsPanic(_ Bucket, e env) error {
	return newPanics(e, []badNew{
		{maxCapacity + 1, 1, []string{"9007199254740993", "9007199254740992"}},
		{1, 1e-10, []string{"1e-10"}}, // a token every 317 years
	})
}

// badNew is a call of New that must panic, and what the message must
// contain.
type badNew struct {
	capacity int
	rate     float64
	names    []string
}

func newPanics(e env, bad []badNew) error {
	var problems []string
	for _, b := range bad {
		for _, name := range b.names {
			got := panicNaming(name, func() { e.New(shape{b.capacity, b.rate}) })
			if got != "panic naming "+name {
				problems = append(problems, fmt.Sprintf("New(%d, %v): %s, want a panic naming %s", b.capacity, b.rate, got, name))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}
