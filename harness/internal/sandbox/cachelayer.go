package sandbox

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A student's go command reads the report's warm build cache without a
// copy of it (366 MiB, and 2.4 s of system time a student to copy): the
// go command asks this program (GOCACHEPROG), which answers from two
// caches in the go command's own layout, the warm one only read, the
// sandbox's own taking what the student's builds add.

// CacheLayerCommand is the ladder command's word for ServeCacheLayers.
// It is not in the usage text: only the go command runs it, in a sandbox.
const CacheLayerCommand = "cache-layer"

// In a jail, the warm cache, this program and the instructor's module
// downloads are mounted at these paths, so that nothing a student's code
// can read names the instructor's folders.
const (
	jailCacheBase    = "/ladder/cache"
	jailLayerProgram = "/ladder/ladder"
	jailModProxy     = "/ladder/modproxy"
)

// cacheLayerProg is the sandbox's GOCACHEPROG: this program run with
// CacheLayerCommand, quoted as the go command splits it into words.
func (s *Sandbox) cacheLayerProg() string {
	prog, _ := os.Executable() // "" on an error: the go command then says it cannot run it
	base := s.CacheBase
	if s.Jail != nil {
		prog, base = jailLayerProgram, jailCacheBase
	}
	words := []string{prog, CacheLayerCommand, base, s.GoCache}
	for i, w := range words {
		if q := "'"; strings.ContainsAny(w, " \t\n'\"") {
			if strings.Contains(w, q) {
				q = `"`
			}
			words[i] = q + w + q
		}
	}
	return strings.Join(words, " ")
}

// A cacheMessage is a request or an answer of GOCACHEPROG's protocol
// (cmd/go/internal/cacheprog); a put's body follows its request as a JSON
// string.
type cacheMessage struct {
	ID            int64
	Command       string     `json:",omitempty"`
	ActionID      []byte     `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	BodySize      int64      `json:",omitempty"`
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// ServeCacheLayers answers the go command's requests, read from r, on w,
// until it says "close" or r ends. A get looks in own first, then in
// base; a put writes to own alone.
func ServeCacheLayers(base, own string, r io.Reader, w io.Writer) error {
	answer := json.NewEncoder(w).Encode // one write a message: nothing waits in a buffer
	if err := answer(cacheMessage{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	dec := json.NewDecoder(r)
	for {
		var req cacheMessage
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		res := cacheMessage{ID: req.ID}
		switch req.Command {
		case "get":
			res = getEntry(base, own, req)
		case "put":
			var body []byte // a JSON string of base64, which json decodes
			if req.BodySize > 0 {
				if err := dec.Decode(&body); err != nil {
					return fmt.Errorf("the body of put %d: %v", req.ID, err)
				}
			}
			res = putEntry(own, req, body)
		case "close":
			return answer(res)
		default:
			res.Err = "unknown command " + strconv.Quote(req.Command)
		}
		if err := answer(res); err != nil {
			return err
		}
	}
}

// cacheFile is where the go command's own cache keeps id's file of kind
// "a" (an action's entry) or "d" (an output).
func cacheFile(dir string, id []byte, kind string) string {
	name := hex.EncodeToString(id)
	if name == "" {
		name = "00"
	}
	return filepath.Join(dir, name[:2], name+"-"+kind)
}

// getEntry finds an action's entry, "v1 ACTION OUTPUT SIZE TIME" as the
// go command writes it, and its output, in own and then in base.
func getEntry(base, own string, req cacheMessage) cacheMessage {
	for _, dir := range []string{own, base} {
		entry, err := os.ReadFile(cacheFile(dir, req.ActionID, "a"))
		var action, outID []byte
		var size, nanos int64
		if n, _ := fmt.Sscanf(string(entry), "v1 %x %x %d %d", &action, &outID, &size, &nanos); err != nil || n != 4 || !bytes.Equal(action, req.ActionID) {
			continue
		}
		path := cacheFile(dir, outID, "d")
		if info, err := os.Stat(path); err != nil || info.Size() != size {
			continue
		}
		at := time.Unix(0, nanos)
		return cacheMessage{ID: req.ID, OutputID: outID, Size: size, Time: &at, DiskPath: path}
	}
	return cacheMessage{ID: req.ID, Miss: true}
}

// putEntry writes an output and its action's entry to own, each by a
// rename, so that no reader finds half of one.
func putEntry(own string, req cacheMessage, body []byte) cacheMessage {
	path := cacheFile(own, req.OutputID, "d")
	err := writeRenamed(path, body)
	if err == nil {
		entry := fmt.Sprintf("v1 %x %x %20d %20d\n", req.ActionID, req.OutputID, len(body), time.Now().UnixNano())
		err = writeRenamed(cacheFile(own, req.ActionID, "a"), []byte(entry))
	}
	if err != nil {
		return cacheMessage{ID: req.ID, Err: err.Error()}
	}
	return cacheMessage{ID: req.ID, DiskPath: path}
}

// writeRenamed writes path by a rename from a file of this process's:
// the go command asks one thing at a time.
func writeRenamed(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.put-%d", path, os.Getpid())
	err := os.MkdirAll(filepath.Dir(path), 0o700)
	if err == nil {
		err = os.WriteFile(tmp, data, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
