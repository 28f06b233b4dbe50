// Package levels is the one registry of the ladder: each level's number,
// folder, title, parts, race flag and Go modules.
package levels

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Level is one rung of the ladder.
type Level struct {
	Number  int
	Dir     string // slash-separated: "ladder/01-hit-counter"
	Title   string
	Parts   []Part
	Race    bool // the level's tests run with -race
	Modules []Module
}

// Module is one Go module of a level's packages.
type Module struct {
	Dir       string // "." for the root module
	FirstPart int    // the first part whose cases live here, up to the next module's
}

// Part is one numbered part of a level, as its README heads it.
type Part struct {
	Number     int
	Title      string
	Concurrent bool // its cases run in a test process of their own, under -race, once the parts before pass
}

// root is the module list of a level that lives in the root module.
var root = []Module{{Dir: ".", FirstPart: 1}}

// All is the ladder, in order.
var All = []Level{
	{Number: 1, Dir: "ladder/01-hit-counter", Title: "Hit counter", Modules: root, Parts: []Part{
		{Number: 1, Title: "Count the last window"},
		{Number: 2, Title: "A million hits a second"},
	}},
	{Number: 2, Dir: "ladder/02-logger-limiter", Title: "Logger rate limiter", Modules: root, Parts: []Part{
		{Number: 1, Title: "Print each message at most once per interval"},
		{Number: 2, Title: "Memory that does not grow forever"},
	}},
	{Number: 3, Dir: "ladder/03-token-bucket", Title: "Token bucket", Modules: root, Parts: []Part{
		{Number: 1, Title: "Lazy refill and capped bursts"},
		{Number: 2, Title: "Time going backwards"},
		{Number: 3, Title: "When to retry"},
		{Number: 4, Title: "Make it exact"},
	}},
	{Number: 4, Dir: "ladder/04-cafe-counts", Title: "Café drink counts", Modules: root, Parts: []Part{
		{Number: 1, Title: "Counts per drink and the total"},
		{Number: 2, Title: "Distinct drinks"},
		{Number: 3, Title: "The board"},
	}},
	{Number: 5, Dir: "ladder/05-page-views", Title: "Page views in the last five minutes", Modules: root, Parts: []Part{
		{Number: 1, Title: "Ring and running total"},
		{Number: 2, Title: "Long gaps in one step"},
		{Number: 3, Title: "Bad input, and nothing lost"},
	}},
	{Number: 6, Dir: "ladder/06-chat-top-talker", Title: "Chat aggregation and top talker", Modules: root, Parts: []Part{
		{Number: 1, Title: "Several views of one window"},
		{Number: 2, Title: "Top talker"},
		{Number: 3, Title: "Top k"},
	}},
	{Number: 7, Dir: "ladder/07-qps-store", Title: "Key-value store with rolling QPS", Race: true, Modules: root, Parts: []Part{
		{Number: 1, Title: "The last five minutes"},
		{Number: 2, Title: "Windows up to a week"},
		{Number: 3, Title: "Thread safety", Concurrent: true},
	}},
	{Number: 8, Dir: "ladder/08-group-throttle", Title: "Throttle requests per client", Race: true, Modules: []Module{
		{Dir: ".", FirstPart: 1},
		{Dir: "ladder/08-group-throttle/redisthrottle", FirstPart: 6},
	}, Parts: []Part{
		{Number: 1, Title: "Fixed window per client"},
		{Number: 2, Title: "Sliding window"},
		{Number: 3, Title: "Token bucket"},
		{Number: 4, Title: "Shared group limits"},
		{Number: 5, Title: "Many clients, many goroutines, the whole range of time", Concurrent: true},
		{Number: 6, Title: "The same throttler on Redis"},
		{Number: 7, Title: "Keys"},
		{Number: 8, Title: "When Redis fails"},
	}},
}

// Find returns the level an argument names ("3"), or the one message every
// tool gives for anything else.
func Find(arg string) (Level, error) {
	n, _ := strconv.Atoi(strings.TrimSpace(arg)) // 0, or out of range, if not a number
	if l, ok := Numbered(n); ok {
		return l, nil
	}
	return Level{}, fmt.Errorf("there is no level %s; the levels are 1 to %d", arg, len(All))
}

// Numbered returns level n; All holds level n at n-1, as its test checks.
func Numbered(n int) (Level, bool) {
	if n < 1 || n > len(All) {
		return Level{}, false
	}
	return All[n-1], true
}

// Name is the level's folder name without its path: "01-hit-counter".
func (l Level) Name() string { return path.Base(l.Dir) }

// SolutionDir is the folder of the level's reference solution.
func (l Level) SolutionDir() string { return "solutions/" + l.Name() }

// Holds says whether the slash-separated path p is in the level's folder.
func (l Level) Holds(p string) bool { return within(p, l.Dir) }

// within says whether the slash-separated path p is dir or in it.
func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// Part returns part n of the level.
func (l Level) Part(n int) (Part, bool) {
	for _, p := range l.Parts {
		if p.Number == n {
			return p, true
		}
	}
	return Part{}, false
}

// Patterns returns, for each module of the level, the package pattern go
// test takes in that module's folder: all of it, but in the root module.
func (l Level) Patterns() map[string]string {
	out := map[string]string{}
	for _, m := range l.Modules {
		out[m.Dir] = "./..." // a module inside the level's folder
		if m.Dir == "." {
			out[m.Dir] = "./" + l.Dir + "/..."
		}
	}
	return out
}

// ModuleOf returns the module that holds a part's cases.
func (l Level) ModuleOf(part int) Module {
	m := Module{Dir: ".", FirstPart: 1} // a level that lists no module lives in the root one
	for _, mod := range l.Modules {
		if mod.FirstPart <= part {
			m = mod
		}
	}
	return m
}

// SpecDir is the spec folder that holds the cases of module m.
func (l Level) SpecDir(m Module) string {
	if m.Dir == "." {
		return l.Dir + "/spec"
	}
	return m.Dir + "/spec"
}

// PartsOf returns the numbers of the parts whose cases live in module m.
func (l Level) PartsOf(m Module) []int {
	var out []int
	for _, p := range l.Parts {
		if l.ModuleOf(p.Number).Dir == m.Dir {
			out = append(out, p.Number)
		}
	}
	return out
}
