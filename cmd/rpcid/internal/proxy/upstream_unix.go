//go:build unix

package proxy

import (
	"net"
	"syscall"
)

// connCheck reports whether connOpen can tell an open connection.
const connCheck = true

// connOpen reports whether the idle connection c is still open: nothing,
// not even its end, has arrived on it. An upstream closes idle connections
// after a while of its own (Node's keepAliveTimeout is 5 seconds); a request
// written to one would fail.
func connOpen(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		// The socket is in non-blocking mode, as Go keeps its sockets:
		// with nothing to read, the call fails with EAGAIN at once.
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		open = n < 0 && (err == syscall.EAGAIN || err == syscall.EWOULDBLOCK)
		return true // never wait
	})
	return err == nil && open
}
