package web

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// Conns counts the listener's connections serving a request now: its
// Track is the http.Server's ConnState. A connection is busy from the
// first byte of a request until its answer is written (StateActive), so
// clients asking back to back keep theirs busy throughout, and a few
// clients count as few however fast they ask.
type Conns struct {
	mu     sync.Mutex
	active map[net.Conn]struct{}
	n      atomic.Int64
}

// Track follows conn's state (http.Server.ConnState).
func (c *Conns) Track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active == nil {
		c.active = map[net.Conn]struct{}{}
	}
	_, was := c.active[conn]
	switch {
	case state == http.StateActive && !was:
		c.active[conn] = struct{}{}
	case state != http.StateActive && was:
		delete(c.active, conn)
	}
	c.n.Store(int64(len(c.active)))
}

// Active is how many connections are serving a request.
func (c *Conns) Active() int { return int(c.n.Load()) }
