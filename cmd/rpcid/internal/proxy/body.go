package proxy

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// errBodyIdle is the error of a request body read that waited longer than
// -body-timeout for a byte.
var errBodyIdle = errors.New("request body idle")

// An idleBody is a request body whose reads fail with errBodyIdle when no
// byte arrives for timeout: each Read sets the connection's read deadline,
// and the end of the body clears it, so that it does not cut the connection
// while the handler waits for the upstream. When the handler returns before
// the end of the body, the deadline is set once more: net/http then reads
// what is left of a short body, to reuse the connection, and a client must
// not stall that either.
type idleBody struct {
	body    io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	mu      sync.Mutex
	ended   bool // the handler returned: the connection is not the body's any more
	// timedOut is set when a read waited timeout for a byte, eof when
	// a read reached the end of the body.
	timedOut, eof atomic.Bool
	lingerEnd     time.Time // if set, reads stop then (guarded by mu)
}

// lingerTime is how long the proxy goes on reading a request body whose
// response has been sent: a client that is still sending reads the response
// only once its send completes, and closing the connection before then would
// make its system drop the response (a TCP reset).
const lingerTime = 5 * time.Second

type idleBodyKey struct{}

func (b *idleBody) Read(p []byte) (int, error) {
	b.deadline(time.Now().Add(b.timeout))
	n, err := b.body.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	if err != nil {
		b.deadline(time.Time{})
		if errors.Is(err, os.ErrDeadlineExceeded) {
			b.timedOut.Store(true)
			err = fmt.Errorf("%w: %w", errBodyIdle, err)
		}
	}
	return n, err
}

func (b *idleBody) Close() error { return b.body.Close() }

// deadline sets the connection's read deadline to t, unless the handler
// has returned.
func (b *idleBody) deadline(t time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !t.IsZero() && !b.lingerEnd.IsZero() && b.lingerEnd.Before(t) {
		t = b.lingerEnd
	}
	if !b.ended {
		b.rc.SetReadDeadline(t)
	}
}

// linger reads and drops what is left of the body, for lingerTime at
// most, after the response has been sent (see lingerTime).
func (b *idleBody) linger() {
	if b.eof.Load() || b.timedOut.Load() {
		return
	}
	b.rc.Flush() // the response first: the client may read it now
	b.mu.Lock()
	b.lingerEnd = time.Now().Add(lingerTime)
	b.mu.Unlock()
	io.Copy(io.Discard, b)
}

// end marks the handler as returned.
func (b *idleBody) end() {
	if !b.eof.Load() {
		b.deadline(time.Now().Add(b.timeout))
	}
	b.mu.Lock()
	b.ended = true
	b.mu.Unlock()
}
