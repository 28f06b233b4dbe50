//go:build !race

package timeline

// RaceEnabled says the binary is built with the race detector: see race.go.
const RaceEnabled = false
