package chat

import (
	"testing"

	"github.com/rateladder/rateladder/ladder/06-chat-top-talker/spec"
)

func TestChat(t *testing.T)      { spec.Test(t, New) }
func BenchmarkChat(b *testing.B) { spec.Benchmark(b, New) }
func FuzzChat(f *testing.F)      { spec.Fuzz(f, New) }
