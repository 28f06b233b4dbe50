package main

import (
	"os"

	"github.com/rateladder/rateladder/harness/internal/sandbox"
)

// The class reports these tests run in this process start this test
// binary as the students' cache layer, as they start the ladder command.
func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.CacheLayerCommand {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
}
