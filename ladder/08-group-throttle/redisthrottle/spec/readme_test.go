package spec

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// readmeErrorMessages are the example error messages of the README: its
// code spans that start with a field and " is ", as in
// `PerClient.Buckets is 4; ...`, outside code blocks, with a line break
// read as a space.
func readmeErrorMessages(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// Code blocks first, so that their fences do not pair with the spans.
	prose := regexp.MustCompile("(?ms)^```.*?^```").ReplaceAllString(string(src), "")
	spans := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose, -1)
	message := regexp.MustCompile(`^(PerClient|Groups\[\d+\]\.Limit)\.[A-Za-z]+ is `)
	var out []string
	for _, s := range spans {
		text := strings.Join(strings.Fields(s[1]), " ")
		if message.MatchString(text) {
			out = append(out, text)
		}
	}
	return out
}

// refusalCases are the cases that check New's error, by the field the
// error must name.
var refusalCases = map[string]string{
	"PerClient.Buckets":       "a sliding window of more than two buckets is refused",
	"Groups[0].Limit.Buckets": "a group's sliding window of more than two buckets is refused",
}

// TestREADMEErrorMessagesPass checks that an error message the README
// shows, used word for word, passes the spec's case for its field.
func TestREADMEErrorMessagesPass(t *testing.T) {
	msgs := readmeErrorMessages(t)
	if len(msgs) == 0 {
		t.Fatal("found no example error message in ../README.md, want at least `PerClient.Buckets is 4; ...`")
	}
	b := miniBackend(t)
	for _, msg := range msgs {
		field, _, _ := strings.Cut(msg, " is ")
		name, known := refusalCases[field]
		if !known {
			t.Errorf("the README's example error %q names %s, which no refusal case checks", msg, field)
			continue
		}
		saying := func(redis.UniversalClient, limits.Config, redisOpts) (RedisThrottler, error) {
			return nil, errors.New(msg)
		}
		found := false
		for _, o := range timeline.PlayAll(0, redisOnly(saying, b)) {
			if o.Name != name {
				continue
			}
			found = true
			if o.Verdict != protocol.Pass {
				t.Errorf("New returning the README's example error %q, word for word, fails case %q:\n%s", msg, name, o.Report)
			}
		}
		if !found {
			t.Errorf("no case named %q", name)
		}
	}
}
