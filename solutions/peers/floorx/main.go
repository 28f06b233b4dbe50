// Command floorx reads the output of BenchmarkPerKey and prints each
// implementation's time as a multiple of the floor entry's in the same
// case, then as the geometric mean of those multiples over the cases. The
// floor is the least a table of clients can cost (see floor in
// perkey_bench_test.go), so a multiple says how far from it each one is,
// in numbers that stay comparable from one machine to the next. It is
// what make peers prints after its tables.
//
//	go run ./floorx out/speed.txt
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
)

// line is one result of BenchmarkPerKey: the case (keys and mode), the
// implementation and the ns per request.
var line = regexp.MustCompile(`^BenchmarkPerKey/(keys=\S+/mode=\S+)/lib=(\S+?)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floorx speed.txt")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	runs := map[[2]string][]float64{} // by case and implementation, every run
	var cases, libs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[3], 64)
		if !slices.Contains(cases, m[1]) {
			cases = append(cases, m[1])
		}
		if !slices.Contains(libs, m[2]) {
			libs = append(libs, m[2])
		}
		runs[[2]string{m[1], m[2]}] = append(runs[[2]string{m[1], m[2]}], ns)
	}
	if len(cases) == 0 || !slices.Contains(libs, "floor") {
		fmt.Fprintln(os.Stderr, "floorx: no BenchmarkPerKey results with a floor entry in", os.Args[1])
		os.Exit(1)
	}
	fmt.Printf("%-16s", "× floor")
	for _, c := range cases {
		fmt.Printf(" %24s", c)
	}
	fmt.Printf(" %10s\n", "geomean")
	for _, lib := range libs {
		fmt.Printf("%-16s", lib)
		logSum, n := 0.0, 0
		for _, c := range cases {
			x, ok := median(runs[[2]string{c, lib}]), len(runs[[2]string{c, "floor"}]) > 0
			if x == 0 || !ok {
				fmt.Printf(" %24s", "-")
				continue
			}
			r := x / median(runs[[2]string{c, "floor"}])
			fmt.Printf(" %24.2f", r)
			logSum += math.Log(r)
			n++
		}
		fmt.Printf(" %10.2f\n", math.Exp(logSum/float64(n)))
	}
	fmt.Printf("floor: the median ns per request of %d runs:", len(runs[[2]string{cases[0], "floor"}]))
	for _, c := range cases {
		fmt.Printf(" %s %.1f;", c, median(runs[[2]string{c, "floor"}]))
	}
	fmt.Println()
}

// median returns the median of xs, or 0 if there are none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
