// Package peers puts the ladder's reference solutions beside the Go
// rate-limiting libraries that run in production, in the same run on the
// same machine.
//
// It is a module of its own, so that the libraries it measures never become
// dependencies of the ladder's main module. Everything here is benchmarks
// and tests; the only code a caller could use is the exact sliding log and
// the trace that the sliding window's accuracy is measured with.
//
// Run it from the repository root:
//
//	make peers        # every benchmark, several runs, one benchstat table per section
//	make peers-quick  # the conformance tests, and every benchmark once
package peers
