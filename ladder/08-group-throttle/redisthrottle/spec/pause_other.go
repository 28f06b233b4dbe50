//go:build !unix

package spec

import "errors"

// canPause says whether pause and resume work here: not without SIGSTOP.
const canPause = false

func (s *redisServer) pause() error  { return errors.New("cannot pause a process here") }
func (s *redisServer) resume() error { return errors.New("cannot resume a process here") }
