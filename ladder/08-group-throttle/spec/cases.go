package spec

import (
	"math"
	"slices"
	"time"

	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// The ends of the range of instants: time.Time.UnixNano holds
// 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z. Every
// decision in it is exact; outside it, the throttler's time stands still at
// the nearest end.
var (
	firstInstant = time.Unix(0, math.MinInt64).UTC()
	lastInstant  = time.Unix(0, math.MaxInt64).UTC()
	anHourToGo   = lastInstant.Add(-hour)
)

// longest is the longest time.Duration, 2562047h47m16.854775807s: about
// 292 years.
const longest = time.Duration(math.MaxInt64)

// date is an instant in UTC.
func date(year int, month time.Month, day, h, m int) time.Time {
	return time.Date(year, month, day, h, m, 0, 0, time.UTC)
}

// table holds every case of level 8 but the refusals, by part: 1 fixed
// windows, 2 sliding windows, 3 token buckets, 4 group limits, 5 many
// clients and goroutines, and the whole range of time. Parts 1 to 4 keep
// to ordinary times and limits of a day at most; the clock near or past
// 1677 and 2262, and limits as long as a Duration, are part 5's.
var table = slices.Concat(part1(), part2(), part3(), part4(), part5())

func part1() []row {
	fiveAMinute := only(fixed(5, minute))
	return []row{
		{
			// The README's first fixed-window example, with the same numbers.
			Name: "five a minute with AllowN and the boundary", Part: 1, Arg: fiveAMinute,
			Steps: steps(
				at(10*sec, allow("alice", ok(4))),
				at(20*sec, allowN("alice", 3, ok(1))),
				at(30*sec, allowN("alice", 2, no(1, 30*sec))), // all or nothing: only 1 left
				at(30*sec, allow("alice", ok(0))),             // the denial charged nothing
				at(59*sec, allow("alice", no(0, sec))),
				at(minute-ns, allow("alice", no(0, ns))),
				at(minute, allow("alice", ok(4))), // a new window
				at(minute, allow("bob", ok(4))),
			),
		},
		{
			// The README's 2x burst across a window boundary.
			Name: "a fixed window lets twice the limit through across a boundary", Part: 1, Arg: fiveAMinute,
			Steps: steps(
				burst(59*sec, "alice", 5, 4),
				at(59*sec, allow("alice", no(0, sec))),
				burst(minute, "alice", 5, 4), // ten requests in one second
				at(minute, allow("alice", no(0, minute))),
			),
		},
		{
			Name: "clients are independent", Part: 1, Arg: only(fixed(3, 10*sec)),
			Steps: steps(
				at(sec, allowN("alice", 3, ok(0))),
				at(sec, allow("alice", no(0, 9*sec))),
				at(2*sec, allow("bob", ok(2))),
				at(2*sec, allowN("carol", 3, ok(0))),
				at(3*sec, allow("bob", ok(1))),
				at(3*sec, allow("alice", no(0, 7*sec))),
				at(3*sec, allow("", ok(2))), // the empty string is a client like any other
			),
		},
		{
			Name: "windows are counted from the epoch, not from the first request", Part: 1, Arg: only(fixed(2, 10*sec)),
			Steps: steps(
				at(7*sec, allowN("alice", 2, ok(0))),
				at(10*sec-ns, allow("alice", no(0, ns))),
				at(10*sec, allow("alice", ok(1))),
				at(17*sec, allow("alice", ok(0))),
				at(17*sec, allow("alice", no(0, 3*sec))),
			),
		},
		{
			Name: "more than Requests at once is never allowed", Part: 1, Arg: fiveAMinute,
			Steps: steps(
				at(0, allowN("alice", 6, never(5))),
				at(0, allowN("alice", 5, ok(0))),
				at(0, allowN("alice", 6, never(0))),
				at(0, allowN("alice", 5, no(0, minute))),
				at(10*minute, allowN("alice", 1000, never(5))),
			),
		},
		{
			Name: "a long window and a late first request", Part: 1, Arg: only(fixed(1, 24*hour)),
			Steps: steps(
				at(1000*hour+30*minute, allow("alice", ok(0))),
				at(1000*hour+30*minute, allow("alice", no(0, 7*hour+30*minute))), // 1000h is 41 days and 16h: the window ends at 1008h
				at(1008*hour-ns, allow("alice", no(0, ns))),
				at(1008*hour, allow("alice", ok(0))),
			),
		},
		needs(ClockBack, row{
			// The README's example of a clock going back, part 1.
			Name: "time going back does not move a window back", Part: 1, Arg: only(fixed(3, 10*sec)),
			Steps: steps(
				at(12*sec, allowN("alice", 3, ok(0))),
				at(8*sec, allow("alice", no(0, 12*sec))), // still the window [10s, 20s), which opens anew at 20s
				at(8*sec, allow("bob", ok(2))),
				at(20*sec-ns, allow("alice", no(0, ns))),
				at(20*sec, allow("alice", ok(2))),
			),
		}),
	}
}

func part2() []row {
	return []row{
		{
			// The README's Cloudflare example: 42 requests in the previous
			// minute, 18 in this one, 15s into it: 42·45/60 + 18 = 49.5.
			Name: "the Cloudflare example", Part: 2, Arg: only(sliding(50, minute, 2)),
			Steps: steps(
				at(30*sec, allowN("api", 42, ok(8))),
				at(75*sec, allowN("api", 18, ok(0))), // 31.5 + 18 = 49.5 <= 50
				at(75*sec, allow("api", no(0, 714285715*ns))),
				at(75714285714*ns, allow("api", no(0, ns))),
				at(75714285715*ns, allow("api", ok(0))),
			),
		},
		{
			// The README's answer to the fixed window's 2x burst.
			Name: "a sliding window refuses the boundary burst", Part: 2, Arg: only(sliding(5, minute, 0)),
			Steps: steps(
				burst(59*sec, "alice", 5, 4),
				at(minute, allow("alice", no(0, 12*sec))), // 5·60/60 = 5: still full
				at(72*sec-ns, allow("alice", no(0, ns))),
				at(72*sec, allow("alice", ok(0))),         // 5·48/60 = 4, plus 1
				at(84*sec, allow("alice", ok(0))),         // 5·36/60 = 3, plus 1, plus 1
				at(84*sec, allow("alice", no(0, 12*sec))), // 5·24/60 + 2 + 1 = 5 at 96s
			),
		},
		needs(ManyBuckets, row{
			// The README's four-bucket example.
			Name: "four buckets with the oldest half expired", Part: 2, Arg: only(sliding(40, 30*sec, 4)),
			Steps: steps(
				at(5*sec, allowN("alice", 8, ok(32))),
				at(15*sec, allowN("alice", 8, ok(24))),
				at(25*sec, allowN("alice", 8, ok(16))),
				at(35*sec, allowN("alice", 8, ok(12))), // 8·5/10 + 8 + 8 + 8 = 28
				at(40*sec, allowN("alice", 16, ok(0))), // the bucket [0s,10s) has left
				at(40*sec, allow("alice", no(0, 1250*ms))),
				at(41250*ms-ns, allow("alice", no(0, ns))),
				at(41250*ms, allow("alice", ok(0))),
			),
		}),
		needs(ManyBuckets, row{
			// The README's per-minute limit at one-second resolution.
			Name: "sixty-one buckets: a minute in seconds", Part: 2, Arg: only(sliding(100, minute, 61)),
			Steps: steps(
				at(500*ms, allowN("alice", 60, ok(40))),
				at(30*sec, allowN("alice", 30, ok(10))),
				at(60250*ms, allowN("alice", 25, ok(0))), // 60·0.75 + 30 = 75
				at(60250*ms, allow("alice", no(0, 16666667*ns))),
				at(60266666666*ns, allow("alice", no(0, ns))),
				at(60266666667*ns, allow("alice", ok(0))),
				at(61*sec, allowN("alice", 44, ok(0))), // the bucket [0s,1s) has left
			),
		}),
		needs(ManyBuckets, row{
			Name: "sixty-one buckets, the oldest bucket is weighted, not dropped or kept whole", Part: 2, Arg: only(sliding(10, minute, 61)),
			Steps: steps(
				at(0, allowN("alice", 10, ok(0))),
				at(60*sec, allow("alice", no(0, 100*ms))), // 10·1.0: full
				at(60100*ms-ns, allow("alice", no(0, ns))),
				at(60100*ms, allow("alice", ok(0))), // 10·0.9 + 1
				at(60500*ms, allowN("alice", 5, no(4, 100*ms))),
				at(60600*ms, allowN("alice", 5, ok(0))),
			),
		}),
		{
			Name: "the estimate with two buckets, step by step", Part: 2, Arg: only(sliding(10, 10*sec, 2)),
			Steps: steps(
				at(9*sec, allowN("alice", 10, ok(0))),
				at(10*sec, allow("alice", no(0, sec))),
				at(11*sec, allow("alice", ok(0))),     // 10·0.9 + 1
				at(15*sec, allowN("alice", 4, ok(0))), // 10·0.5 + 1 + 4
				at(15*sec, allow("alice", no(0, sec))),
				at(19*sec, allow("alice", ok(3))),     // 10·0.1 + 5 + 1 = 7
				at(20*sec, allowN("alice", 4, ok(0))), // 6·1.0 + 4
				at(40*sec, allowN("alice", 10, ok(0))),
			),
		},
		needs(ManyBuckets, row{
			Name: "an idle gap longer than the ring", Part: 2, Arg: only(sliding(3, 30*sec, 4)),
			Steps: steps(
				at(0, allowN("alice", 3, ok(0))),
				at(0, allow("alice", no(0, 33333333334*ns))), // 3·(10s−e)/10s <= 2 from e = 3.333333334s in [30s,40s)
				at(33333333333*ns, allow("alice", no(0, ns))),
				at(33333333334*ns, allow("alice", ok(0))),
				at(1000*hour, allowN("alice", 3, ok(0))),
			),
		}),
		{
			Name: "more than Requests at once is never allowed, sliding", Part: 2, Arg: only(sliding(5, minute, 2)),
			Steps: steps(
				at(0, allowN("alice", 6, never(5))),
				at(0, allowN("alice", 2, ok(3))),
				at(0, allowN("alice", 6, never(3))),
				at(0, allowN("alice", 4, no(3, 90*sec))), // 2·(60s−e)/60s <= 1 from e = 30s into the next minute
			),
		},
		needs(ClockBack, row{
			// The README's late request example, part 2.
			Name: "a late request is counted in the newest bucket", Part: 2, Arg: only(sliding(10, 10*sec, 2)),
			Steps: steps(
				at(15*sec, allowN("alice", 4, ok(6))),
				at(8*sec, allow("alice", ok(5))), // counted at 15s, in the bucket [10s,20s)
				at(20*sec, allowN("alice", 6, no(5, 2*sec))),
				at(22*sec, allowN("alice", 6, ok(0))),
			),
		}),
		needs(ManyBuckets, row{
			Name: "MaxBuckets buckets are accepted", Part: 2, Arg: only(sliding(10, (limits.MaxBuckets-1)*sec, limits.MaxBuckets)),
			Steps: steps(
				at(0, allowN("alice", 10, ok(0))),
				at((limits.MaxBuckets-1)*sec, allow("alice", no(0, 100*ms))), // 10·(1s−e)/1s <= 9 from e = 100ms
				at((limits.MaxBuckets-1)*sec+100*ms, allow("alice", ok(0))),
			),
		}),
	}
}

func part3() []row {
	tenASecond := only(token(10, sec))
	return []row{
		{
			// The README's token bucket example.
			Name: "ten a second: a burst, then one every 100ms", Part: 3, Arg: tenASecond,
			Steps: steps(
				burst(0, "alice", 10, 9),
				at(0, allow("alice", no(0, 100*ms))),
				at(100*ms-ns, allow("alice", no(0, ns))),
				at(100*ms, allow("alice", ok(0))),
				at(350*ms, allowN("alice", 3, no(2, 50*ms))), // 2.5 tokens
				at(400*ms, allowN("alice", 3, ok(0))),
			),
		},
		{
			// The README's "Exactly" example, part 3.
			Name: "three a second: RetryAfter rounds up to the nanosecond", Part: 3, Arg: only(token(3, sec)),
			Steps: steps(
				at(0, allowN("alice", 3, ok(0))),
				at(0, allow("alice", no(0, 333333334*ns))), // a token takes 333333333.3ns
				at(333333333*ns, allow("alice", no(0, ns))),
				at(333333334*ns, allow("alice", ok(0))),
			),
		},
		{
			Name: "seven per three seconds", Part: 3, Arg: only(token(7, 3*sec)),
			Steps: steps(
				at(0, allowN("alice", 7, ok(0))),
				at(0, allowN("alice", 2, no(0, 857142858*ns))), // 2·3s/7 = 857142857.1ns
				at(857142857*ns, allowN("alice", 2, no(1, ns))),
				at(857142858*ns, allowN("alice", 2, ok(0))),
				at(3*sec, allowN("alice", 7, no(5, 857142858*ns))), // exactly 5 tokens: 2 short
			),
		},
		{
			Name: "the bucket never holds more than Requests", Part: 3, Arg: only(token(5, sec)),
			Steps: steps(
				at(0, allowN("alice", 5, ok(0))),
				at(hour, allowN("alice", 5, ok(0))),
				at(hour, allow("alice", no(0, 200*ms))),
				at(hour, allowN("alice", 6, never(0))),
				at(2*hour, allowN("alice", 6, never(5))),
			),
		},
		{
			Name: "refill after a partial idle period", Part: 3, Arg: only(token(4, 2*sec)),
			Steps: steps(
				at(0, allowN("alice", 4, ok(0))),
				at(sec, allowN("alice", 2, ok(0))),
				at(1250*ms, allow("alice", no(0, 250*ms))),
				at(2750*ms, allowN("alice", 4, no(3, 250*ms))), // 3.5 tokens
				at(3*sec, allowN("alice", 4, ok(0))),
			),
		},
		{
			Name: "a new client starts full whenever it first comes", Part: 3, Arg: only(token(10, minute)),
			Steps: steps(
				at(1000*hour, allowN("alice", 10, ok(0))),
				at(1000*hour, allow("alice", no(0, 6*sec))),
				at(1000*hour, allowN("bob", 10, ok(0))),
			),
		},
		needs(ClockBack, row{
			Name: "time going back adds no tokens and is not credited twice", Part: 3, Arg: tenASecond,
			Steps: steps(
				at(sec, allowN("alice", 10, ok(0))),
				at(500*ms, allow("alice", no(0, 600*ms))), // the bucket's time is 1s: a token at 1.1s
				at(1050*ms, allow("alice", no(0, 50*ms))),
				at(1100*ms, allow("alice", ok(0))),
				at(2*sec, allowN("alice", 5, ok(4))),
				at(1500*ms, allowN("alice", 4, ok(0))), // taken at 2s: nothing refills
				at(2*sec, allow("alice", no(0, 100*ms))),
			),
		}),
	}
}

func part4() []row {
	team := limits.Config{
		PerClient: fixed(3, 10*sec),
		Groups:    []limits.Group{group("team", fixed(5, 10*sec), "alice", "bob")},
	}
	return []row{
		{
			// The README's group example.
			Name: "two clients share their group's limit", Part: 4, Arg: team,
			Steps: steps(
				at(0, allowN("alice", 3, ok(0))),
				at(sec, allow("alice", no(0, 9*sec))), // alice's own limit denies
				at(2*sec, allowN("bob", 2, ok(0))),    // the group had 2 left
				at(3*sec, allow("bob", no(0, 7*sec))), // the group denies
				at(4*sec, allowN("carol", 3, ok(0))),  // carol is in no group
				at(10*sec, allowN("bob", 3, ok(0))),
				at(10*sec, allow("alice", ok(1))), // alice 2 left, the group 1
			),
		},
		{
			Name: "a denial by the group charges the client nothing", Part: 4,
			Arg: limits.Config{
				PerClient: fixed(2, minute),
				Groups:    []limits.Group{group("team", fixed(2, 10*sec), "alice", "bob")},
			},
			Steps: steps(
				at(0, allowN("alice", 2, ok(0))),
				at(sec, allow("bob", no(0, 9*sec))),
				at(2*sec, allow("bob", no(0, 8*sec))),
				at(10*sec, allowN("bob", 2, ok(0))), // bob still has his 2 for this minute
			),
		},
		{
			Name: "a denial by the client charges the group nothing", Part: 4,
			Arg: limits.Config{
				PerClient: fixed(2, minute),
				Groups:    []limits.Group{group("team", fixed(4, minute), "alice", "bob")},
			},
			Steps: steps(
				at(0, allowN("alice", 2, ok(0))),
				at(0, allow("alice", no(0, minute))),
				at(0, allowN("alice", 2, no(0, minute))),
				at(0, allowN("bob", 2, ok(0))), // the group still had 2
				at(0, allow("bob", no(0, minute))),
			),
		},
		{
			Name: "RetryAfter waits for the group when it is the later", Part: 4,
			Arg: limits.Config{
				PerClient: token(2, sec),
				Groups:    []limits.Group{group("team", fixed(4, 10*sec), "alice", "bob")},
			},
			Steps: steps(
				at(0, allowN("alice", 2, ok(0))),
				at(0, allowN("bob", 2, ok(0))),
				at(500*ms, allow("alice", no(0, 9500*ms))),     // alice has a token; the group has none
				at(500*ms, allowN("alice", 2, no(0, 9500*ms))), // alice: 1s; the group: 10s
				at(10*sec-ns, allowN("alice", 2, no(0, ns))),   // nothing was charged meanwhile
				at(10*sec, allowN("alice", 2, ok(0))),          // the group keeps 2
				at(10*sec, allowN("bob", 2, ok(0))),
			),
		},
		{
			Name: "RetryAfter waits for the client when it is the later", Part: 4,
			Arg: limits.Config{
				PerClient: fixed(1, minute),
				Groups:    []limits.Group{group("team", token(2, sec), "alice", "bob")},
			},
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("bob", ok(0))),
				at(100*ms, allow("alice", no(0, 59900*ms))), // the group refills at 500ms, alice at 60s
				at(100*ms, allow("bob", no(0, 59900*ms))),
				at(minute, allow("alice", ok(0))),
			),
		},
		{
			Name: "a client outside any group is limited only by its own limit", Part: 4,
			Arg: limits.Config{
				PerClient: fixed(3, 10*sec),
				Groups:    []limits.Group{group("team", fixed(1, 10*sec), "alice")},
			},
			Steps: steps(
				at(0, allow("alice", ok(0))), // alice 2 left, the group 0
				at(0, allow("alice", no(0, 10*sec))),
				at(0, allowN("carol", 3, ok(0))),
				at(0, allow("dave", ok(2))),
			),
		},
		{
			Name: "more than a group's Requests is never allowed", Part: 4,
			Arg: limits.Config{
				PerClient: fixed(10, minute),
				Groups:    []limits.Group{group("team", fixed(3, minute), "alice")},
			},
			Steps: steps(
				at(0, allowN("alice", 4, never(3))),
				at(0, allow("alice", ok(2))),
				at(0, allowN("bob", 4, ok(6))),
			),
		},
		{
			Name: "a sliding-window group shares one estimate", Part: 4,
			Arg: limits.Config{
				PerClient: token(100, sec),
				Groups:    []limits.Group{group("team", sliding(10, 10*sec, 2), "alice", "bob")},
			},
			Steps: steps(
				at(9*sec, allowN("alice", 6, ok(4))),
				at(9*sec, allowN("bob", 4, ok(0))),
				at(15*sec, allow("alice", ok(4))),        // 10·0.5 + 1
				at(15*sec, allowN("bob", 5, no(4, sec))), // 10·0.4 + 1 + 5 = 10 at 16s
				at(16*sec, allowN("bob", 5, ok(0))),
			),
		},
	}
}

func part5() []row {
	return []row{
		needs(InProcess, row{
			Name: "exactly Requests allowed from 8 goroutines, fixed window", Part: 5, Arg: only(fixed(1000, minute)),
			Probe: exactUnderConcurrency,
		}),
		needs(InProcess, row{
			Name: "exactly Requests allowed from 8 goroutines, sliding window", Part: 5, Arg: only(sliding(1000, minute, 2)),
			Probe: exactUnderConcurrency,
		}),
		needs(InProcess, row{
			Name: "exactly Requests allowed from 8 goroutines, token bucket", Part: 5, Arg: only(token(1000, minute)),
			Probe: exactUnderConcurrency,
		}),
		needs(InProcess, row{
			Name: "a group stays all or nothing under concurrency", Part: 5,
			Arg: inProcessGroup.config(), Probe: inProcessGroup.probe,
		}),
		needs(InProcess|UsesLen, row{
			// The README's 100,000 clients, for each algorithm.
			Name: "100,000 idle clients are forgotten, fixed window", Part: 5, Arg: only(fixed(5, sec)),
			Probe: idleClientsForgotten,
		}),
		needs(InProcess|UsesLen, row{
			Name: "100,000 idle clients are forgotten, sliding window", Part: 5, Arg: only(sliding(5, sec, 2)),
			Probe: idleClientsForgotten,
		}),
		needs(InProcess|UsesLen, row{
			Name: "100,000 idle clients are forgotten, token bucket", Part: 5, Arg: only(token(5, sec)),
			Probe: idleClientsForgotten,
		}),
		needs(InProcess, row{
			Name: "a busy client is never reset by a flood of new clients", Part: 5, Arg: only(token(10, minute)),
			Probe: busyClientKept,
		}),
		needs(InProcess|UsesLen, row{
			Name: "Len is safe beside Allow from 8 goroutines", Part: 5, Arg: only(fixed(5, minute)),
			Probe: lenBesideAllow,
		}),
		needs(UsesLen, row{
			// The README's Len example.
			Name: "Len counts only clients and groups with recent requests", Part: 5,
			Arg: limits.Config{
				PerClient: fixed(5, 10*sec),
				Groups:    []limits.Group{group("team", token(10, 10*sec), "alice")},
			},
			Steps: steps(
				at(0, length(0, 0)),
				at(0, allow("alice", ok(4))),
				at(5*sec, allow("bob", ok(4))),
				at(5*sec, length(2, 3)),  // the group's bucket is full again since 1s
				at(10*sec, length(0, 3)), // all three are fresh, and all three asked in (−10s, 10s]
				at(20*sec, length(0, 1)), // only bob asked in (0s, 20s]
				at(25*sec, length(0, 0)),
				at(25*sec, allow("alice", ok(4))),
			),
		}),
		needs(UsesLen, row{
			Name: "a client idle for a whole window still weighs in a sliding window", Part: 5, Arg: only(sliding(10, minute, 2)),
			Steps: steps(
				at(50*sec, allowN("alice", 10, ok(0))),
				at(110*sec, length(1, 1)),                     // 10·10/60 still counts
				at(110*sec, allowN("alice", 9, no(8, 4*sec))), // 10·6/60 + 9 = 10 at 114s
				at(110*sec, allowN("alice", 8, ok(0))),
				at(120*sec, length(1, 1)),
				at(180*sec, length(0, 1)),
				at(230*sec, length(0, 0)),
			),
		}),
		// The whole range of time: the clock near 1677 and 2262 or past
		// them, and limits as long as a Duration.
		needs(WholeRange, row{
			// A window boundary before the epoch, near the first instant:
			// the next one is midnight, 22h48m later.
			Name: "a day-long window in 1677", Part: 5, Arg: only(fixed(1, 24*hour)),
			Start: date(1677, 9, 21, 1, 12),
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("alice", no(0, 22*hour+48*minute))),
				at(0, allow("alice", no(0, 22*hour+48*minute))),
				at(22*hour+48*minute-ns, allow("alice", no(0, ns))),
				at(22*hour+48*minute, allow("alice", ok(0))),
			),
		}),
		needs(WholeRange, row{
			// Per = the longest Duration: the windows are [-Per, 0) and
			// [0, Per), and the second one ends at the last instant.
			Name: "a window as long as a Duration", Part: 5, Arg: only(fixed(1, longest)),
			Start: date(1969, 12, 31, 23, 59).Add(59 * sec),
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("alice", no(0, sec))),
				at(sec-ns, allow("alice", no(0, ns))),
				at(sec, allow("alice", ok(0))),
				at(sec, allow("alice", no(0, longest))),
			),
		}),
		needs(WholeRange, row{
			// The window holding the last instant ends after it, at
			// 2262-04-12T00:00:00Z: RetryAfter is still exact, never "never".
			// Past the last instant the time stands still.
			Name: "an hour before the last instant, fixed window", Part: 5, Arg: only(fixed(1, 24*hour)),
			Start: anHourToGo,
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("alice", no(0, hour+12*minute+43145224193*ns))),
				at(hour, allow("alice", no(0, 12*minute+43145224193*ns))), // the last instant
				at(2*hour, allow("alice", no(0, 12*minute+43145224193*ns))),
				at(2*hour, allow("bob", ok(0))),
			),
		}),
		needs(WholeRange, row{
			// The README's example of a clock past 2262.
			Name: "past 2262 the time stands still at the last instant", Part: 5, Arg: only(fixed(1, 24*hour)),
			Start: date(2263, 1, 1, 0, 0),
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(sec, allow("alice", no(0, 12*minute+43145224193*ns))), // measured from the last instant
				at(100_000*hour, allow("alice", no(0, 12*minute+43145224193*ns))),
				at(100_000*hour, allowN("bob", 2, never(1))),
			),
		}),
		needs(WholeRange, row{
			Name: "before 1678 the time stands still at the first instant", Part: 5, Arg: only(fixed(1, hour)),
			Start: date(1600, 1, 1, 0, 0),
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("alice", no(0, 47*minute+16854775808*ns))), // the first window ends at 1677-09-21T01:00:00Z
				at(50*8760*hour, allow("alice", no(0, 47*minute+16854775808*ns))),
			),
		}),
		needs(WholeRange|ClockBack, row{
			// A clock that jumps back 584 years: the wait would not fit in a
			// Duration, so RetryAfter is the longest one.
			Name: "a clock back by centuries gets the longest RetryAfter", Part: 5, Arg: only(fixed(1, 24*hour)),
			Steps: steps(
				at(longest-hour, allow("alice", ok(0))),
				at(-longest+hour, allow("alice", no(0, longest))),
				at(-longest+hour, allow("bob", ok(0))), // decided at the throttler's time, in 2262
				at(-longest+hour, allow("bob", no(0, longest))),
			),
		}),
		needs(WholeRange, row{
			// Per = 146 years, so Per plus a bucket fits in a Duration. The
			// buckets start at −2·Per, −Per and 0: the request of 1700 leaves
			// the window at the epoch.
			Name: "a sliding window of 146 years in 1700", Part: 5, Arg: only(sliding(1, 146*8760*hour, 2)),
			Start: date(1700, 1, 1, 0, 0),
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("alice", no(0, 2366760*hour))),
				at(0, allow("alice", no(0, 2366760*hour))),
				at(2366760*hour-ns, allow("alice", no(0, ns))),
				at(2366760*hour, allow("alice", ok(0))), // 1970-01-01
			),
		}),
		needs(WholeRange, row{
			// The bucket [2262-04-11, 2262-04-12) holds the last instant; its
			// request fades out over the next one, a day after the range.
			Name: "an hour before the last instant, sliding window", Part: 5, Arg: only(sliding(1, 24*hour, 2)),
			Start: anHourToGo,
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("alice", no(0, 25*hour+12*minute+43145224193*ns))),
				at(hour, allow("alice", no(0, 24*hour+12*minute+43145224193*ns))),
				at(3*hour, allow("alice", no(0, 24*hour+12*minute+43145224193*ns))), // past the last instant
			),
		}),
		needs(WholeRange, row{
			// Per + Per/(Buckets−1) = 2·Per must fit in a Duration: this Per
			// is the longest that does.
			Name: "the longest two-bucket window", Part: 5, Arg: only(sliding(1, longest/2, 2)),
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("alice", no(0, longest-ns))),
				at(longest-2*ns, allow("alice", no(0, ns))),
				at(longest-ns, allow("alice", ok(0))),
			),
		}),
		needs(WholeRange, row{
			Name: "an hour before the last instant, token bucket", Part: 5, Arg: only(token(1, 2*hour)),
			Start: anHourToGo,
			Steps: steps(
				at(0, allow("alice", ok(0))),
				at(0, allow("alice", no(0, 2*hour))),
				at(hour, allow("alice", no(0, hour))),   // the last instant
				at(2*hour, allow("alice", no(0, hour))), // the time stood still
			),
		}),
		needs(WholeRange, row{
			// 7 tokens per the longest Duration: one token is
			// 9223372036854775807/7 = 1317624576693539401ns exactly.
			Name: "a bucket as long as a Duration, from the first instant", Part: 5, Arg: only(token(7, longest)),
			Start: firstInstant,
			Steps: steps(
				at(0, allowN("alice", 7, ok(0))),
				at(0, allow("alice", no(0, 1317624576693539401*ns))),
				at(1317624576693539400*ns, allow("alice", no(0, ns))),
				at(1317624576693539401*ns, allow("alice", ok(0))),
			),
		}),
	}
}

// refusals are the configs New must refuse, each with the fields one of
// which its error must name.
var refusals = []row{
	{
		Name: "a zero or negative Requests is refused", Part: 1, Arg: only(fixed(0, minute)),
		Probe: refuses("PerClient.Requests"),
	},
	{
		Name: "a negative Requests is refused", Part: 1, Arg: only(fixed(-5, minute)),
		Probe: refuses("PerClient.Requests"),
	},
	{
		Name: "a zero Per is refused", Part: 1, Arg: only(fixed(5, 0)),
		Probe: refuses("PerClient.Per"),
	},
	{
		Name: "a negative Per is refused", Part: 1, Arg: only(fixed(5, -sec)),
		Probe: refuses("PerClient.Per"),
	},
	{
		Name: "an unknown algorithm is refused", Part: 1, Arg: only(limits.Limit{Algorithm: 7, Requests: 5, Per: sec}),
		Probe: refuses("PerClient.Algorithm"),
	},
	{
		Name: "a window whose wait does not fit in a Duration is refused", Part: 5, Arg: only(sliding(1, 180*8760*hour, 0)),
		Probe: refuses("PerClient.Per"),
	},
	{
		// 2^36 + 1 buckets of 1ns: a ring of 512 GiB a client.
		Name: "more than MaxBuckets buckets are refused", Part: 2, Arg: only(sliding(10, 68719476736*ns, 68719476737)),
		Probe: refuses("PerClient.Buckets"),
	},
	{
		Name: "one bucket is refused", Part: 2, Arg: only(sliding(5, minute, 1)),
		Probe: refuses("PerClient.Buckets"),
	},
	{
		Name: "a negative bucket count is refused", Part: 2, Arg: only(sliding(5, minute, -2)),
		Probe: refuses("PerClient.Buckets"),
	},
	needs(ManyBuckets, row{
		Name: "a Per that does not divide into the buckets is refused", Part: 2, Arg: only(sliding(5, sec+1, 3)),
		Probe: refuses("PerClient.Per", "PerClient.Buckets"),
	}),
	{
		Name: "a client in two groups is refused", Part: 4,
		Arg: limits.Config{
			PerClient: fixed(3, minute),
			Groups: []limits.Group{
				group("team", fixed(5, minute), "alice", "bob"),
				group("ops", fixed(5, minute), "carol", "alice"),
			},
		},
		Probe: refuses("alice"),
	},
	{
		Name: "an empty group name is refused", Part: 4,
		Arg: limits.Config{
			PerClient: fixed(3, minute),
			Groups:    []limits.Group{group("", fixed(5, minute), "alice")},
		},
		Probe: refuses("Groups[0].Name"),
	},
	{
		Name: "a group's bad limit is refused with its field", Part: 4,
		Arg: limits.Config{
			PerClient: fixed(3, minute),
			Groups: []limits.Group{
				group("team", fixed(5, minute), "alice"),
				group("ops", fixed(0, minute), "bob"),
			},
		},
		Probe: refuses("Groups[1].Limit.Requests"),
	},
	{
		Name: "a group's sliding window with one bucket is refused", Part: 4,
		Arg: limits.Config{
			PerClient: fixed(3, minute),
			Groups:    []limits.Group{group("team", sliding(5, minute, 1), "alice")},
		},
		Probe: refuses("Groups[0].Limit.Buckets"),
	},
}
