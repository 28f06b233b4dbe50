//go:build !race

package spec

// raceBuild says the race detector is on: see race.go.
const raceBuild = false
