package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// event is one line of go test -json (see go doc test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build events
	Test       string
	Output     string
}

// caseResult is one spec case as go test reported it.
type caseResult struct {
	Part    int
	Name    string // as the subtest name has it, with underscores
	Status  string // "pass", "fail", "skip" or "notimpl"
	Message string // the first lines the case printed, for a failing case
}

// pkgResult is what happened to one package.
type pkgResult struct {
	ImportPath string
	Cases      []*caseResult
	BuildError string // set when the package did not compile
	Failed     bool   // the package failed as a whole
	Output     string // package-level output, such as a panic outside any case
}

// caseNameRE matches the runner's subtests: TestX/part_2/some_case_name.
var caseNameRE = regexp.MustCompile(`^Test[^/]*/part_(\d+)/(.+)$`)

// listPackages returns the learner's packages of the given level folders:
// every package under them except the specs.
func listPackages(root string, dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	args := []string{"list", "-e", "-f", "{{.ImportPath}}"}
	for _, d := range dirs {
		args = append(args, "./"+d+"/...")
	}
	cmd := exec.Command(goTool(), args...)
	cmd.Dir = root
	cmd.Env = learnerEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasSuffix(p, "/spec") && !strings.Contains(p, "/spec/") {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, nil
}

// runTests runs go test -json on pkgs in root and returns the results by
// import path. Failing tests are the normal state of a learner's ladder,
// so go test's exit status is not an error here.
func runTests(root string, pkgs []string, extra ...string) (map[string]*pkgResult, error) {
	return runTestsContext(context.Background(), root, pkgs, extra...)
}

// runTestsContext is runTests that stops go test when ctx is done.
func runTestsContext(ctx context.Context, root string, pkgs []string, extra ...string) (map[string]*pkgResult, error) {
	if len(pkgs) == 0 {
		return map[string]*pkgResult{}, nil
	}
	args := append([]string{"test", "-json"}, extra...)
	args = append(args, pkgs...)
	cmd := exec.CommandContext(ctx, goTool(), args...)
	cmd.WaitDelay = 5 * time.Second
	cmd.Dir = root
	cmd.Env = learnerEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	results := parseEvents(&stdout)
	if len(results) == 0 && runErr != nil {
		return nil, fmt.Errorf("go test: %v\n%s", runErr, stderr.String())
	}
	// Build errors that test2json did not carry (older Go) arrive on stderr.
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		for _, r := range results {
			if r.Failed && len(r.Cases) == 0 && r.BuildError == "" {
				r.BuildError = msg
			}
		}
	}
	return results, nil
}

// parseEvents reads go test -json output.
func parseEvents(r io.Reader) map[string]*pkgResult {
	results := map[string]*pkgResult{}
	get := func(path string) *pkgResult {
		p := results[path]
		if p == nil {
			p = &pkgResult{ImportPath: path}
			results[path] = p
		}
		return p
	}
	type key struct{ pkg, test string }
	cases := map[key]*caseResult{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch {
		case e.Action == "build-output":
			p := get(e.ImportPath)
			p.BuildError += e.Output
			continue
		case e.Action == "build-fail":
			get(e.ImportPath).Failed = true
			continue
		case e.Package == "":
			continue
		}
		p := get(e.Package)
		if e.Test == "" {
			switch e.Action {
			case "output":
				p.Output += e.Output
			case "fail":
				p.Failed = true
			}
			continue
		}
		m := caseNameRE.FindStringSubmatch(e.Test)
		if m == nil {
			continue
		}
		k := key{e.Package, e.Test}
		c := cases[k]
		if c == nil {
			n, _ := strconv.Atoi(m[1])
			c = &caseResult{Part: n, Name: m[2]}
			cases[k] = c
			p.Cases = append(p.Cases, c)
		}
		switch e.Action {
		case "output":
			out := strings.TrimRight(e.Output, "\n")
			if strings.HasPrefix(strings.TrimSpace(out), "=== ") || strings.HasPrefix(strings.TrimSpace(out), "--- ") {
				break
			}
			if strings.Contains(out, "not implemented yet") {
				c.Status = "notimpl"
			}
			if strings.Count(c.Message, "\n") < 40 {
				c.Message += out + "\n"
			}
		case "pass", "skip":
			c.Status = e.Action
		case "fail":
			if c.Status != "notimpl" {
				c.Status = "fail"
			}
		}
	}
	for _, p := range results {
		sort.SliceStable(p.Cases, func(i, j int) bool { return p.Cases[i].Part < p.Cases[j].Part })
	}
	return results
}

func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// learnerEnv is the environment for the learner's tests: never the stub
// check, whatever the caller's shell has set.
func learnerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LADDER_STUBCHECK=") {
			env = append(env, kv)
		}
	}
	return env
}
