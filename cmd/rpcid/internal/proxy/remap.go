package proxy

import (
	"fmt"
	"io"
	"sync"

	"github.com/rpcid/rpcid/internal/restore"
)

// remapTable makes t, a fresh table, remap (-remap): each request is sent
// with an id the table assigns, and -v logs each mapping once, each way.
func (l *proxyLog) remapTable(t *restore.Table) {
	t.Remap = true
	t.OnRemap = func(client, sent []byte) {
		l.verbosef("request %s sent as %s", logID(client), logID(sent))
	}
	t.OnRestore = func(received, sent []byte) {
		l.verbosef("response %s restored to %s", logID(received), logID(sent))
	}
	t.OnUnmatched = func(received []byte) {
		l.verbosef("response id %s was not assigned by the proxy: passed unchanged", logID(received))
	}
	t.OnRefused = func(err error) {
		l.printf("request not sent, answered with a JSON-RPC error: %v (see -max-pending)", err)
	}
}

// remapNote is the summary's count of remapped requests, with -remap.
func remapNote(remap bool, st restore.Stats) string {
	if !remap {
		return ""
	}
	return fmt.Sprintf(", %s remapped", proxyCount(st.Remapped, "request"))
}

// A clientOut is the proxy's standard output in stdio mode: what COMMAND
// writes, relayed, and with -remap the error responses to requests the
// proxy refused, each written whole between two of COMMAND's messages.
type clientOut struct {
	mu       sync.Mutex
	w        io.Writer
	boundary bool   // what was written ends between two messages
	queued   []byte // error responses waiting for a boundary
}

// relay writes p, what the relay read from COMMAND; boundary reports whether
// it ends between two messages.
func (c *clientOut) relay(p []byte, boundary bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.w.Write(p); err != nil {
		return err
	}
	c.boundary = boundary
	if boundary && len(c.queued) > 0 {
		q := c.queued
		c.queued = nil
		if _, err := c.w.Write(q); err != nil {
			return err
		}
	}
	return nil
}

// inject writes msg, a line, as soon as no message of COMMAND's is half
// written.
func (c *clientOut) inject(msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.boundary {
		c.w.Write(msg) // a failure shows in the relay's next write
		return
	}
	c.queued = append(c.queued, msg...)
}

// copyOut relays src, the restoring reader of COMMAND's output, to c until
// src ends (nil) or a write fails (its error).
func copyOut(c *clientOut, src *restore.StdioReader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if werr := c.relay(buf[:n], src.AtBoundary()); werr != nil {
				return werr
			}
		}
		if err != nil {
			return nil
		}
	}
}
