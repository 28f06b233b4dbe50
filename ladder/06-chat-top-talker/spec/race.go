//go:build race

package spec

// raceBuild says the race detector is on. It slows plain code ten to
// fifty times, so the complexity cases give it a longer limit.
const raceBuild = true
