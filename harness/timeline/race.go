//go:build race

package timeline

// RaceEnabled says the binary is built with the race detector, which slows
// plain code ten to fifty times: the complexity cases give it a longer
// limit and fewer calls (see IfRace).
const RaceEnabled = true
