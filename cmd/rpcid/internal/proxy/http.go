package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rpcid/rpcid/httpid"
	"github.com/rpcid/rpcid/internal/restore"
)

// proxyGrace is how long requests in flight may take to finish after SIGINT
// or SIGTERM before their connections are closed.
const proxyGrace = 5 * time.Second

// proxyIdleTimeout is how long a client connection may stay idle between
// requests before the proxy closes it (http.Server has no limit unless told).
// A variable for tests.
var proxyIdleTimeout = 2 * time.Minute

// An httpProxy is the handler of rpcid proxy in HTTP mode.
type httpProxy struct {
	target   *url.URL        // the upstream's scheme and host only
	query    string          // the upstream URL's query, as written
	hosts    map[string]bool // Host header values accepted, lower case
	rp       *httputil.ReverseProxy
	log      *proxyLog
	stopping chan struct{}  // closed on shutdown: event streams opened with GET end
	table    *restore.Table // the Transport's, for -v
	requests atomic.Int64   // requests forwarded: the upstream answered
	// bodyTimeout is the longest wait for the next byte of a request body
	// (-body-timeout).
	bodyTimeout time.Duration
	remap       bool // -remap
}

type inboundHostKey struct{}

// proxyHTTP runs HTTP mode until a signal arrives on sig. If started is not
// nil it is called with the listener's address once the start line is
// printed (for tests).
func proxyHTTP(cfg proxyConfig, stderr io.Writer, sig <-chan os.Signal, started func(net.Addr)) int {
	lg := &proxyLog{w: stderr, verbose: cfg.verbose, query: cfg.upstream.RawQuery}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			lg.printf("%v (choose another port with -listen, or 127.0.0.1:0 for any free one)", err)
		} else {
			lg.printf("%v", err)
		}
		return 1
	}
	addr := ln.Addr().(*net.TCPAddr)
	hosts := allowedHosts(cfg.listen, addr)
	if hosts[hostPort(cfg.upstream.Host, cfg.upstream.Scheme)] {
		ln.Close()
		lg.printf("URL %s names this proxy's own address: every request would come back to it", redactURL(cfg.rawURL))
		return 2
	}
	p := newHTTPProxy(cfg, lg, hosts)
	var fresh freshConns
	srv := &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       proxyIdleTimeout,
		ErrorLog:          log.New(stderrWriter{lg}, "", 0),
		ConnState:         fresh.track,
	}
	for _, line := range listeningLines(addr, hostPath(cfg.upstream), redactURL(cfg.rawURL)) {
		lg.printf("%s", line)
	}
	if started != nil {
		started(addr)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	code := 0
	select {
	case err := <-served:
		lg.printf("%v", err)
		code = 1
	case <-sig:
		close(p.stopping)
		ctx, cancel := context.WithTimeout(context.Background(), proxyGrace)
		done := make(chan error, 1)
		go func() { done <- srv.Shutdown(ctx) }()
		fresh.stop()
		select {
		case err = <-done:
		case <-sig: // a second signal: stop at once
			err = context.Canceled
		}
		cancel()
		if err != nil {
			srv.Close()
		}
	}
	p.summary()
	return code
}

// freshConns tracks the connections on which no request has started.
// http.Server.Shutdown counts such a connection as busy until it is 5 seconds
// old, and HTTP clients open them ahead of need; on shutdown they are closed
// at once, so that only requests in flight can hold the grace period.
type freshConns struct {
	mu       sync.Mutex
	conns    map[net.Conn]bool
	stopping bool
}

// track is the http.Server ConnState hook.
func (f *freshConns) track(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case st == http.StateNew && f.stopping:
		c.Close()
	case st == http.StateNew:
		if f.conns == nil {
			f.conns = make(map[net.Conn]bool)
		}
		f.conns[c] = true
	default:
		delete(f.conns, c)
	}
}

// stop closes the fresh connections, and those that arrive from now on.
func (f *freshConns) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopping = true
	for c := range f.conns {
		c.Close()
	}
	f.conns = nil
}

// newHTTPProxy returns the handler for cfg, accepting the Host values hosts.
func newHTTPProxy(cfg proxyConfig, lg *proxyLog, hosts map[string]bool) *httpProxy {
	p := &httpProxy{
		target:      &url.URL{Scheme: cfg.upstream.Scheme, Host: cfg.upstream.Host},
		query:       cfg.upstream.RawQuery,
		hosts:       hosts,
		log:         lg,
		stopping:    make(chan struct{}),
		bodyTimeout: cfg.bodyTimeout,
	}
	base := http.DefaultTransport.(*http.Transport).Clone() // system roots, HTTP_PROXY and friends
	// Every request goes to one host: keep as many idle connections to it
	// as clients keep requests in flight, not http.Transport's default of
	// 2, so that concurrent requests do not each open a connection.
	base.MaxIdleConns, base.MaxIdleConnsPerHost = maxIdleUpstream, maxIdleUpstream
	base.MaxResponseHeaderBytes = maxResponseHead
	// Counted below httpid.Transport, so that a request it answers 503
	// itself, or one the upstream cannot be reached for, is not counted as
	// forwarded.
	tr := &httpid.Transport{Base: countingTransport{base, &p.requests}, MaxPending: cfg.maxPending, MaxMessageSize: cfg.maxMessageSize}
	// The Transport's own table, reached through the hook package httpid
	// sets, so that -v can log what it restores and count it.
	p.table = restore.TransportTable(tr)
	p.table.OnRestore = lg.restored
	p.table.OnUnmatched = lg.unmatched
	p.table.OnAmbiguous = lg.ambiguous
	p.table.OnElsewhere = lg.elsewhere
	p.table.Budget = restore.NewBudget(cfg.maxBuffered)
	if cfg.remap {
		lg.remapTable(p.table)
	}
	p.remap = cfg.remap
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      tr,
		FlushInterval:  -1, // every write reaches the client at once: events pass one by one
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       log.New(stderrWriter{lg}, "", 0),
		BufferPool:     copyBufs{},
	}
	return p
}

// maxIdleUpstream is the number of idle connections to the upstream the
// proxy keeps at most.
const maxIdleUpstream = 256

// maxResponseHead is the size in bytes of the largest response head (status
// line and header fields) read from the upstream: http.Transport's default,
// set here so that a test can rely on it.
const maxResponseHead = 10 << 20

// copyBufs is the pool of the buffers ReverseProxy copies response bodies
// with, one per response otherwise.
type copyBufs struct{}

var copyBufPool = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func (copyBufs) Get() []byte  { return copyBufPool.Get().(*[32 << 10]byte)[:] }
func (copyBufs) Put(b []byte) { copyBufPool.Put((*[32 << 10]byte)(b)) }

// ServeHTTP refuses requests for other hosts and forwards the rest.
func (p *httpProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.hosts[strings.ToLower(r.Host)] {
		p.refuse(w, r, "Host "+strconv.Quote(r.Host)+" is not this proxy's address (DNS rebinding protection)")
		return
	}
	// Every Origin header, not only the first: the upstream may read
	// another one.
	for _, o := range r.Header.Values("Origin") {
		if o != "" && !p.allowedOrigin(o) {
			p.refuse(w, r, "Origin "+strconv.Quote(o)+" is not a local origin")
			return
		}
	}
	if r.Body != nil && r.Body != http.NoBody {
		// Full duplex: the upstream may answer before the request body
		// has all arrived (a server that reads a stream of its own, an
		// error), and net/http would otherwise stop reading the body once
		// the response starts and cut the response.
		rc := http.NewResponseController(w)
		rc.EnableFullDuplex()
		b := &idleBody{body: r.Body, rc: rc, timeout: p.bodyTimeout}
		defer b.end()
		defer b.linger()
		// On a copy of r: net/http reads the original's Body after the
		// handler, to decide whether the connection can serve another
		// request.
		r = r.WithContext(context.WithValue(r.Context(), idleBodyKey{}, b))
		r.Body = b
	}
	ctx := context.WithValue(r.Context(), inboundHostKey{}, r.Host)
	if r.Method == http.MethodGet {
		// A GET opens a stream that may never end; on shutdown it ends at
		// once instead of holding the grace period.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-p.stopping:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

// refuse answers 403 with reason as plain text; the request goes nowhere.
func (p *httpProxy) refuse(w http.ResponseWriter, r *http.Request, reason string) {
	p.log.verbosef("refused %s %s: %s", r.Method, logText(r.URL.EscapedPath()), reason)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusForbidden)
	io.WriteString(w, "rpcid proxy: "+reason+"\n")
}

// allowedOrigin reports whether a request with this Origin header may pass:
// a page served from this machine (localhost, 127.0.0.1 or [::1], any port)
// or from this proxy's own address. Pages of other sites are refused, as MCP
// asks of local servers.
func (p *httpProxy) allowedOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	if p.hosts[strings.ToLower(u.Host)] {
		return true
	}
	switch strings.ToLower(u.Hostname()) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// rewrite sends the request to the upstream's scheme and host with the
// client's path, byte for byte, and the upstream URL's query (a token, say)
// followed by the client's, joined by "&" when both are present, as
// httputil.NewSingleHostReverseProxy joins them. The upstream sees its own
// name in Host. The client's Accept-Encoding is dropped so that the response
// arrives uncompressed (http.Transport asks for gzip itself and decodes it)
// and its ids can be restored. The forwarding headers the client sent
// (forwardingHeaders) pass as they are, and the proxy adds none.
func (p *httpProxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.target)
	// The path and query as the client wrote them: ReverseProxy re-encodes
	// some queries, and the proxy reads neither.
	pr.Out.URL.Path, pr.Out.URL.RawPath = pr.In.URL.Path, pr.In.URL.RawPath
	pr.Out.URL.RawQuery = joinQuery(p.query, pr.In.URL.RawQuery)
	pr.Out.Header.Del("Accept-Encoding")
	for _, k := range forwardingHeaders {
		if v, ok := pr.In.Header[k]; ok && !connectionOption(pr.In.Header, k) {
			pr.Out.Header[k] = slices.Clone(v)
		}
	}
}

// forwardingHeaders are the fields that httputil.ReverseProxy removes from
// a request before its Rewrite function is called. The proxy passes the
// client's on unchanged, as it passes every header but hop-by-hop ones: a
// client behind a proxy of its own, or one that names itself for a
// gateway's logs, keeps what it says; the proxy is no trust boundary that
// could vouch for them or replace them, since it adds nothing of its own.
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"}

// connectionOption reports whether the Connection field of h names the
// field name, which makes that field hop-by-hop (RFC 9110 section 7.6.1).
func connectionOption(h http.Header, name string) bool {
	for _, v := range h["Connection"] {
		for _, opt := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(opt), name) {
				return true
			}
		}
	}
	return false
}

// joinQuery returns the query of a request to the upstream: the upstream
// URL's, then the client's.
func joinQuery(upstream, client string) string {
	if upstream == "" || client == "" {
		return upstream + client
	}
	return upstream + "&" + client
}

// modifyResponse arranges for the endpoint event of a 2024-11-05 HTTP+SSE
// stream to name this proxy (see endpointBody), and for a Location header
// that names the upstream in an absolute URL (a redirect, say from /mcp to
// /mcp/) to name this proxy too, so that the client does not go around it.
func (p *httpProxy) modifyResponse(resp *http.Response) error {
	if b, _ := resp.Request.Context().Value(idleBodyKey{}).(*idleBody); b != nil && !b.eof.Load() {
		// The upstream answers before the request body has all arrived:
		// what the client sends after the answer is read and dropped
		// (idleBody.linger), and the connection is not used again, so
		// that the client reads the whole answer and knows not to send
		// another request on it.
		resp.Header.Set("Connection", "close")
	}
	host, _ := resp.Request.Context().Value(inboundHostKey{}).(string)
	if loc := resp.Header.Get("Location"); loc != "" {
		if out := rewriteEndpoint([]byte(loc), p.target, host); out != nil {
			resp.Header.Set("Location", string(out))
		}
	}
	if resp.Request.Method != http.MethodGet || resp.StatusCode/100 != 2 || resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return nil
	}
	eb := newEndpointBody(resp.Body, func(value []byte) []byte {
		out := rewriteEndpoint(value, p.target, host)
		switch {
		case out != nil:
			p.log.verbosef("endpoint event: %s rewritten to %s", logText(redactURL(string(value))), logText(redactURL(string(out))))
		case endpointRelative(value):
			// The client resolves it against the proxy's URL.
		case endpointElsewhere(value, p.target):
			p.log.printf("endpoint event names %s, which is not the upstream %s: the client's POSTs there bypass the proxy and their ids are not restored", logText(redactURL(string(value))), p.target)
		default:
			p.log.printf("endpoint event %s passes unchanged: the proxy cannot tell which host it sends the client to, and if that is not this proxy, the client's POSTs there bypass it and their ids are not restored", logText(redactURL(string(value))))
		}
		return out
	})
	eb.multi = func(value []byte) {
		if !endpointRelative(value) {
			p.log.printf("endpoint event %s passes unchanged: it has %d data lines, which the proxy does not rewrite; if the client's POSTs go to another host than this proxy, they bypass it and their ids are not restored",
				logText(redactURL(string(value))), bytes.Count(value, []byte("\n"))+1)
		}
	}
	resp.Body = eb
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return nil
}

// errorHandler answers a request the upstream could not serve.
func (p *httpProxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	select {
	case <-p.stopping:
		// An event stream opened with GET, ended by the shutdown.
		http.Error(w, "rpcid proxy: stopping", http.StatusServiceUnavailable)
		return
	default:
	}
	if b, _ := r.Context().Value(idleBodyKey{}).(*idleBody); b != nil && b.timedOut.Load() {
		// The error may be the context's: a read that timed out cancels
		// it. The client is still there.
		err = errBodyIdle
	}
	if r.Context().Err() != nil && !errors.Is(err, errBodyIdle) {
		return // the client went away: nobody to answer
	}
	status, reason := http.StatusBadGateway, err.Error()
	switch {
	case errors.Is(err, httpid.ErrTooManyPending):
		status = http.StatusServiceUnavailable
	case errors.Is(err, restore.ErrBudget):
		status = http.StatusServiceUnavailable
		reason = fmt.Sprintf("busy: the bodies held reached -max-buffered (%d bytes); try again later", p.table.Budget.Limit())
	case errors.Is(err, errBodyIdle):
		status = http.StatusRequestTimeout
		reason = fmt.Sprintf("no byte of the request body for %v (-body-timeout)", p.bodyTimeout)
		w.Header().Set("Connection", "close")
	}
	if b, _ := r.Context().Value(idleBodyKey{}).(*idleBody); b != nil && !b.eof.Load() {
		w.Header().Set("Connection", "close") // see modifyResponse
	}
	p.log.printf("%s %s: %s", r.Method, logText(r.URL.EscapedPath()), reason)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, "rpcid proxy: "+reason+"\n")
}

// summary prints the -v summary line.
func (p *httpProxy) summary() {
	if !p.log.verbose {
		return
	}
	st := p.table.Stats()
	p.log.printf("%s forwarded (%s recorded, %s examined); %s restored, %d unmatched%s%s",
		proxyCount(p.requests.Load(), "request"), proxyCount(st.Requests, "request id"),
		proxyCount(st.Responses, "response id"), proxyCount(st.Restored, "id"), st.Unmatched, ambiguousNote(st.Ambiguous),
		remapNote(p.remap, st))
}

// allowedHosts returns the Host header values (lower case) that name a proxy
// listeningLines returns the lines that say where the proxy listens: addr,
// with path, forwarding to url. For every address (-listen :PORT) they name
// the URL this machine's clients can use, since http://[::]:PORT is none,
// and warn that other machines can reach the gateway through the proxy.
func listeningLines(addr *net.TCPAddr, path, url string) []string {
	if !addr.IP.IsUnspecified() {
		return []string{fmt.Sprintf("listening on http://%s%s, forwarding to %s", addr, path, url)}
	}
	return []string{
		fmt.Sprintf("listening on port %d of every address (http://127.0.0.1:%d%s from this machine), forwarding to %s", addr.Port, addr.Port, path, url),
		fmt.Sprintf("warning: other machines that can reach this one can use the gateway through the proxy (-listen 127.0.0.1:%d keeps it to this machine)", addr.Port),
	}
}

// listening on addr, from -listen value listen: the listen host as written and
// the listener's address, each with the port; localhost with the port; when
// listening on all addresses, 127.0.0.1, [::1] and each address of this
// machine's interfaces with the port. For port 80 each name is accepted
// without the port as well.
func allowedHosts(listen string, addr *net.TCPAddr) map[string]bool {
	port := strconv.Itoa(addr.Port)
	names := []string{"localhost", addr.IP.String()}
	if h, _, err := net.SplitHostPort(listen); err == nil && h != "" {
		names = append(names, h)
	}
	if addr.IP.IsUnspecified() {
		names = append(names, "127.0.0.1", "::1")
		if as, err := net.InterfaceAddrs(); err == nil {
			for _, a := range as {
				if n, ok := a.(*net.IPNet); ok {
					names = append(names, n.IP.String())
				}
			}
		}
	}
	hosts := make(map[string]bool)
	for _, n := range names {
		n = strings.ToLower(n)
		hosts[net.JoinHostPort(n, port)] = true
		if port == "80" {
			if strings.Contains(n, ":") {
				n = "[" + n + "]"
			}
			hosts[n] = true
		}
	}
	return hosts
}

// countingTransport is an http.Transport that counts the requests it gets
// a response to.
type countingTransport struct {
	*http.Transport
	n *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.Transport.RoundTrip(r)
	if err == nil {
		c.n.Add(1)
	}
	return resp, err
}

// stderrWriter lets a log.Logger write through a proxyLog.
type stderrWriter struct{ l *proxyLog }

func (s stderrWriter) Write(b []byte) (int, error) {
	s.l.printf("%s", strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
