package proxy

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// maxDirectBody is the size in bytes of the largest request body that
// upstreamTransport writes on the handler's goroutine: one that fits in
// the connection's buffers, so that writing it cannot wait on an upstream
// that answers without reading it.
const maxDirectBody = 64 << 10

// upstreamTransport carries the proxy's requests to the upstream. The
// requests of a plain http upstream that no proxy of the environment
// applies to, without a body or with one held in memory (httpid's copy of a
// JSON body) of at most maxDirectBody bytes, are sent and answered on the
// calling goroutine over connections of its own pool: net/http's Transport
// hands each request to two goroutines of its own, and on a loopback hop
// those hand-offs cost more than the rest of the exchange. Everything else
// (https, HTTP_PROXY, bodies streamed as they arrive, upgrades, Expect) goes through
// base. Both ask for gzip and decode it, as http.Transport does by default.
type upstreamTransport struct {
	base *http.Transport
	addr string // the upstream's host:port, when the pool may serve it; else ""

	mu   sync.Mutex
	idle []*upConn // most recently used last
}

// newUpstreamTransport returns the transport to target (scheme and host).
func newUpstreamTransport(base *http.Transport, target *url.URL) *upstreamTransport {
	t := &upstreamTransport{base: base}
	probe := &http.Request{URL: target, Header: http.Header{}}
	if p, err := base.Proxy(probe); target.Scheme == "http" && p == nil && err == nil && connCheck {
		t.addr = hostPort(target.Host, "http")
	}
	return t
}

// An upConn is an upstream connection of the pool.
type upConn struct {
	c   net.Conn
	lim io.LimitedReader // c, limited while a response head is read
	br  *bufio.Reader    // reads lim
	bw  *bufio.Writer
}

// maxResponseHead is the size in bytes of the largest response head (status
// line and header fields) read, as http.Transport's default limit.
const maxResponseHead = 10 << 20

// direct reports whether req may be sent on the calling goroutine.
func (t *upstreamTransport) direct(req *http.Request) bool {
	if t.addr == "" || req.URL.Scheme != "http" || req.Trailer != nil || req.Header["Upgrade"] != nil || req.Header["Expect"] != nil {
		return false
	}
	if req.Body == nil || req.Body == http.NoBody {
		return true
	}
	return req.GetBody != nil && req.ContentLength >= 0 && req.ContentLength <= maxDirectBody
}

// RoundTrip implements http.RoundTripper.
func (t *upstreamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.direct(req) {
		return t.base.RoundTrip(req)
	}
	uc, err := t.get(req.Context())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	stop := context.AfterFunc(req.Context(), func() { uc.c.Close() })
	resp, err := uc.roundTrip(req)
	if req.Body != nil {
		req.Body.Close()
	}
	if err != nil {
		stop()
		uc.c.Close()
		if ctxErr := req.Context().Err(); ctxErr != nil {
			err = ctxErr
		}
		return nil, err
	}
	reuse := !resp.Close && !req.Close
	if resp.Body == http.NoBody {
		t.release(uc, stop, reuse)
		return resp, nil
	}
	b := &upBody{rc: resp.Body, t: t, uc: uc, ctx: req.Context(), stop: stop, reuse: reuse}
	resp.Body = b
	if resp.Header.Get("Content-Encoding") == "gzip" && req.Method != http.MethodHead {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
		resp.Body = &gzipBody{body: b}
	}
	return resp, nil
}

// roundTrip writes req and reads the response head.
func (uc *upConn) roundTrip(req *http.Request) (*http.Response, error) {
	if err := writeRequest(uc.bw, req); err != nil {
		return nil, err
	}
	for {
		uc.lim.N = maxResponseHead
		resp, err := http.ReadResponse(uc.br, req)
		uc.lim.N = math.MaxInt64
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
		// 1xx: passed on (ReverseProxy's hook), then the final response.
		if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.Got1xxResponse != nil {
			if err := trace.Got1xxResponse(resp.StatusCode, textproto.MIMEHeader(resp.Header)); err != nil {
				return nil, err
			}
		}
	}
}

// writeRequest writes req as http.Transport writes it for HTTP/1.1: with
// its Host, its Content-Length, Accept-Encoding gzip when it has none (and
// is no Range or HEAD request), and no User-Agent of its own.
func writeRequest(bw *bufio.Writer, req *http.Request) error {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	bw.WriteString(req.Method)
	bw.WriteByte(' ')
	bw.WriteString(req.URL.RequestURI())
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(host)
	bw.WriteString("\r\n")
	hasBody := req.Body != nil && req.Body != http.NoBody
	if hasBody || req.Method == http.MethodPost || req.Method == http.MethodPut || req.Method == http.MethodPatch {
		bw.WriteString("Content-Length: ")
		bw.WriteString(strconv.FormatInt(max(req.ContentLength, 0), 10))
		bw.WriteString("\r\n")
	}
	if req.Header["Accept-Encoding"] == nil && req.Header["Range"] == nil && req.Method != http.MethodHead {
		bw.WriteString("Accept-Encoding: gzip\r\n")
	}
	if err := req.Header.WriteSubset(bw, skipHeaders); err != nil {
		return err
	}
	bw.WriteString("\r\n")
	if hasBody {
		if _, err := io.Copy(bw, req.Body); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// skipHeaders are the fields writeRequest writes itself, or not at all.
var skipHeaders = map[string]bool{"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true, "Connection": true}

// get returns an idle connection that is still open, or a new one.
func (t *upstreamTransport) get(ctx context.Context) (*upConn, error) {
	for {
		t.mu.Lock()
		n := len(t.idle)
		if n == 0 {
			t.mu.Unlock()
			break
		}
		uc := t.idle[n-1]
		t.idle = t.idle[:n-1]
		t.mu.Unlock()
		if connOpen(uc.c) {
			return uc, nil
		}
		uc.c.Close() // the upstream closed it while it was idle
	}
	d := net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	c, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err
	}
	uc := &upConn{c: c, lim: io.LimitedReader{R: c, N: math.MaxInt64}, bw: bufio.NewWriterSize(c, 8<<10)}
	uc.br = bufio.NewReaderSize(&uc.lim, 16<<10)
	return uc, nil
}

// release ends an exchange on uc: the connection goes back to the pool if
// reuse is set and there is room, and is closed otherwise.
func (t *upstreamTransport) release(uc *upConn, stop func() bool, reuse bool) {
	if !stop() {
		reuse = false // the context ended: AfterFunc closed it
	}
	if reuse && uc.br.Buffered() == 0 {
		t.mu.Lock()
		if len(t.idle) < maxIdleUpstream {
			t.idle = append(t.idle, uc)
			uc = nil
		}
		t.mu.Unlock()
	}
	if uc != nil {
		uc.c.Close()
	}
}

// CloseIdleConnections closes the idle connections of both pools.
func (t *upstreamTransport) CloseIdleConnections() {
	t.base.CloseIdleConnections()
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, uc := range idle {
		uc.c.Close()
	}
}

// upBody is a response body read from a pooled connection: read to its
// end, the connection goes back to the pool; closed before, it is closed.
type upBody struct {
	rc    io.ReadCloser
	t     *upstreamTransport
	uc    *upConn
	ctx   context.Context // the request's: when it ends, the connection is closed
	stop  func() bool
	reuse bool
	mu    sync.Mutex
	done  bool
}

func (b *upBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil {
		b.end(err == io.EOF)
		if ctxErr := b.ctx.Err(); err != io.EOF && ctxErr != nil {
			err = ctxErr // not the closed connection's error
		}
	}
	return n, err
}

func (b *upBody) Close() error {
	b.end(false)
	return nil
}

// end releases the connection once: to the pool if the body was read to
// its end and may be reused.
func (b *upBody) end(eof bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	if eof {
		b.t.release(b.uc, b.stop, b.reuse)
		return
	}
	b.stop()
	b.uc.c.Close()
}

// gzipBody decodes a gzip-encoded body as it is read.
type gzipBody struct {
	body *upBody
	zr   *gzip.Reader
	err  error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.zr.Read(p)
	if err == io.EOF {
		// Read the body to its end, so that the connection is reused.
		if _, err := io.Copy(io.Discard, g.body); err != nil {
			return n, err
		}
	} else if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		g.err = err
	}
	return n, err
}

func (g *gzipBody) Close() error { return g.body.Close() }
