//go:build !race

package timeline

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
