package remote

import "time"

// SetCallLimit lets a test wait less for a hung child.
func SetCallLimit(c *Conn, d time.Duration) { c.limit = d }
