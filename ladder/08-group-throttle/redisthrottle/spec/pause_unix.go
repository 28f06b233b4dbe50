//go:build unix

package spec

import (
	"fmt"
	"syscall"
)

// canPause says whether pause and resume work here.
const canPause = true

// pause stops the server with SIGSTOP: it keeps its sockets, and the
// kernel keeps accepting connections and data for it, but it runs nothing.
func (s *redisServer) pause() error {
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pausing redis-server on %s: %v", s.addr, err)
	}
	return nil
}

// resume lets a paused server run again with SIGCONT.
func (s *redisServer) resume() error {
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("resuming redis-server on %s: %v", s.addr, err)
	}
	return nil
}
