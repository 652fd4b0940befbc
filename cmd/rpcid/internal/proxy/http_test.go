package proxy

import (
	"os/exec"
	"regexp"
	"runtime"
	"strconv"

	"bufio"
	"context"
	"fmt"
	"github.com/rpcid/rpcid/httpid"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testProxy is rpcid proxy in HTTP mode, run in this process on 127.0.0.1.
type testProxy struct {
	addr   string // host:port
	url    string // http://host:port
	stderr *syncBuffer
	sig    chan os.Signal
	done   chan int
}

// startProxy runs the proxy in front of upstream (a URL) with extra flags,
// and stops it with SIGTERM when the test ends.
func startProxy(t *testing.T, upstream string, flags ...string) *testProxy {
	t.Helper()
	var stdout strings.Builder
	p := &testProxy{stderr: &syncBuffer{}, sig: make(chan os.Signal, 2), done: make(chan int, 1)}
	cfg, code, ok := parseProxyArgs(append(append([]string{"-listen", "127.0.0.1:0"}, flags...), upstream), &stdout, p.stderr)
	if !ok {
		t.Fatalf("parsing flags: status %d: %s", code, p.stderr)
	}
	started := make(chan net.Addr, 1)
	go func() { p.done <- proxyHTTP(cfg, p.stderr, p.sig, func(a net.Addr) { started <- a }) }()
	select {
	case a := <-started:
		p.addr = a.String()
		p.url = "http://" + p.addr
	case code := <-p.done:
		t.Fatalf("proxy ended with status %d: %s", code, p.stderr)
	case <-time.After(wait):
		t.Fatal("proxy did not start")
	}
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop sends SIGTERM and waits for the proxy to end; it returns the exit
// status. A second call returns -1.
func (p *testProxy) stop(t *testing.T) int {
	t.Helper()
	if p.sig == nil {
		return -1
	}
	p.sig <- syscall.SIGTERM
	p.sig = nil
	select {
	case code := <-p.done:
		return code
	case <-time.After(wait):
		t.Fatal("proxy did not stop after SIGTERM")
	}
	return -1
}

var testClient = &http.Client{Timeout: wait}

// do sends a request and returns the response with its body read.
func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return resp, string(b)
}

func newRequest(t *testing.T, method, url, body string) *http.Request {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

func TestProxyStartLine(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	// The query's values are redacted: a token there must not reach the
	// host's logs.
	p := startProxy(t, up.URL+"/mcp?api_key=SECRET123&v=2&bare")
	want := fmt.Sprintf("rpcid proxy: listening on http://%s/mcp, forwarding to %s/mcp?api_key=xxxxx&v=xxxxx&xxxxx\n", p.addr, up.URL)
	if got := p.stderr.String(); got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("exit status after SIGTERM = %d, want 0", code)
	}
	if got := p.stderr.String(); got != want {
		t.Errorf("without -v, stderr after stopping = %q, want only the start line", got)
	}
}

func TestProxyHostRefused(t *testing.T) {
	var hits atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "upstream")
	}))
	defer up.Close()
	p := startProxy(t, up.URL)
	_, port, _ := net.SplitHostPort(p.addr)
	tests := []struct {
		host, origin string
		ok           bool
	}{
		{host: "evil.example"},
		{host: "evil.example:" + port},
		{host: "127.0.0.1"},
		{host: "127.0.0.1:1"},
		{host: "localhost"},
		{host: "localhost.:" + port},
		{host: "127.0.0.2:" + port},
		{host: "[::1]:" + port}, // the proxy listens on 127.0.0.1 only
		{host: "127.0.0.1:" + port, origin: "http://evil.example"},
		{host: "127.0.0.1:" + port, origin: "null"},
		{host: "127.0.0.1:" + port, ok: true},
		{host: "LocalHost:" + port, ok: true},
		{host: "localhost:" + port, origin: "http://localhost:6274", ok: true},
		{host: "127.0.0.1:" + port, origin: "http://" + p.addr, ok: true},
	}
	for _, tt := range tests {
		before := hits.Load()
		req := newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"m"}`)
		req.Host = tt.host
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		resp, body := do(t, req)
		reached := hits.Load() - before
		if tt.ok {
			if resp.StatusCode != 200 || body != "upstream" || reached != 1 {
				t.Errorf("Host %q Origin %q: status %d, body %q, upstream reached %d times; want 200, \"upstream\", 1", tt.host, tt.origin, resp.StatusCode, body, reached)
			}
			continue
		}
		if resp.StatusCode != http.StatusForbidden || reached != 0 {
			t.Errorf("Host %q Origin %q: status %d, upstream reached %d times; want 403, 0", tt.host, tt.origin, resp.StatusCode, reached)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || !strings.HasPrefix(body, "rpcid proxy: ") {
			t.Errorf("Host %q Origin %q: refusal %q with Content-Type %q, want a plain-text reason", tt.host, tt.origin, body, ct)
		}
	}
}

func TestAllowedHosts(t *testing.T) {
	tests := []struct {
		listen string
		addr   *net.TCPAddr
		want   []string
	}{
		{"127.0.0.1:0", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5000}, []string{"127.0.0.1:5000", "localhost:5000"}},
		{"localhost:5000", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5000}, []string{"127.0.0.1:5000", "localhost:5000"}},
		{"[::1]:5000", &net.TCPAddr{IP: net.IPv6loopback, Port: 5000}, []string{"[::1]:5000", "localhost:5000"}},
		{"127.0.0.1:80", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}, []string{"127.0.0.1", "127.0.0.1:80", "localhost", "localhost:80"}},
	}
	for _, tt := range tests {
		got := allowedHosts(tt.listen, tt.addr)
		want := map[string]bool{}
		for _, h := range tt.want {
			want[h] = true
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("allowedHosts(%q, %v) (-want +got):\n%s", tt.listen, tt.addr, diff)
		}
	}
	// Listening on every address accepts this machine's addresses too.
	got := allowedHosts(":5000", &net.TCPAddr{IP: net.IPv4zero, Port: 5000})
	for _, h := range []string{"localhost:5000", "127.0.0.1:5000", "[::1]:5000", "0.0.0.0:5000"} {
		if !got[h] {
			t.Errorf("allowedHosts(:5000) lacks %q: %v", h, got)
		}
	}
	if got["evil.example:5000"] {
		t.Errorf("allowedHosts(:5000) accepts evil.example")
	}
}

func TestProxyForwards(t *testing.T) {
	type seen struct {
		method, uri, host, body string
		header                  http.Header
	}
	reqs := make(chan seen, 10)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reqs <- seen{r.Method, r.RequestURI, r.Host, string(b), r.Header.Clone()}
		w.Header().Set("Mcp-Session-Id", "s-123")
		w.Header().Set("Content-Type", "application/json")
		if r.Method == "POST" {
			io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{"ok":true}}`)
		}
	}))
	defer up.Close()
	upHost := strings.TrimPrefix(up.URL, "http://")
	p := startProxy(t, up.URL+"/base/mcp")
	sent := map[string]string{
		"Authorization":        "Bearer secret-token",
		"Mcp-Session-Id":       "s-123",
		"Mcp-Protocol-Version": "2025-06-18",
		"Last-Event-Id":        "ev-7",
		"Accept":               "application/json, text/event-stream",
		"X-Custom":             "kept",
	}
	for _, method := range []string{"POST", "GET", "DELETE", "PATCH"} {
		body := ""
		if method == "POST" {
			body = `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`
		}
		req := newRequest(t, method, p.url+"/other/path?a=1&b=%20x", body)
		for k, v := range sent {
			req.Header.Set(k, v)
		}
		resp, respBody := do(t, req)
		var s seen
		select {
		case s = <-reqs:
		case <-time.After(wait):
			t.Fatalf("%s: upstream saw nothing", method)
		}
		if s.method != method || s.uri != "/other/path?a=1&b=%20x" || s.host != upHost || s.body != body {
			t.Errorf("%s: upstream saw %s %s Host %s body %q; want %s /other/path?a=1&b=%%20x Host %s body %q", method, s.method, s.uri, s.host, s.body, method, upHost, body)
		}
		for k, v := range sent {
			if got := s.header.Get(k); got != v {
				t.Errorf("%s: upstream saw %s %q, want %q", method, k, got, v)
			}
		}
		for _, k := range []string{"X-Forwarded-For", "X-Forwarded-Host", "Forwarded"} {
			if got := s.header.Get(k); got != "" {
				t.Errorf("%s: proxy added %s: %q", method, k, got)
			}
		}
		if got := resp.Header.Get("Mcp-Session-Id"); got != "s-123" {
			t.Errorf("%s: client saw Mcp-Session-Id %q, want s-123", method, got)
		}
		if method == "POST" {
			if want := `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`; respBody != want {
				t.Errorf("POST: client read %s, want %s", respBody, want)
			}
		}
	}
	// Paths and queries reach the upstream as the client wrote them, even
	// where Go would re-encode them.
	for _, uri := range []string{"/a%2Fb//c/", "/q?a=1;b=2&c=%zz&d=%20+e", "/"} {
		do(t, newRequest(t, "GET", p.url+uri, ""))
		if s := <-reqs; s.uri != uri {
			t.Errorf("GET %s: upstream saw %s", uri, s.uri)
		}
	}
	// The proxy never adds credentials: a request without Authorization
	// arrives without it.
	do(t, newRequest(t, "GET", p.url+"/x", ""))
	if s := <-reqs; s.header.Get("Authorization") != "" || s.header.Get("Cookie") != "" {
		t.Errorf("upstream saw credentials the client did not send: %v", s.header)
	}
}

// The forwarding headers a client sends reach the upstream unchanged, every
// value of each, as every other header does (httputil.ReverseProxy drops
// them when Rewrite is used, which the proxy does), unless the client's
// Connection field names them (hop-by-hop); the proxy adds none of its own.
func TestProxyForwardingHeaders(t *testing.T) {
	headers := make(chan http.Header, 2)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	defer up.Close()
	p := startProxy(t, up.URL)
	sent := http.Header{
		"Forwarded":         {`for=192.0.2.60;proto=http;by=203.0.113.43`, `for="[2001:db8::1]"`},
		"X-Forwarded-For":   {"192.0.2.60, 198.51.100.17"},
		"X-Forwarded-Host":  {"mcp.example"},
		"X-Forwarded-Proto": {"https"},
	}
	for _, tt := range []struct {
		name       string
		connection string
		want       http.Header
	}{
		{"passed", "", sent},
		{"hop-by-hop", "X-Forwarded-Host, forwarded", http.Header{"X-Forwarded-For": sent["X-Forwarded-For"], "X-Forwarded-Proto": sent["X-Forwarded-Proto"]}},
	} {
		req := newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		for k, v := range sent {
			req.Header[k] = v
		}
		if tt.connection != "" {
			req.Header.Set("Connection", tt.connection)
		}
		if _, body := do(t, req); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("%s: client read %s", tt.name, body)
		}
		var got http.Header
		select {
		case got = <-headers:
		case <-time.After(wait):
			t.Fatalf("%s: the request never reached the upstream", tt.name)
		}
		for _, k := range forwardingHeaders {
			if diff := cmp.Diff(tt.want[k], got[k]); diff != "" {
				t.Errorf("%s: upstream's %s (-want +got):\n%s", tt.name, k, diff)
			}
		}
	}
	// A client that sends none gets none added.
	do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	select {
	case got := <-headers:
		for _, k := range forwardingHeaders {
			if v, ok := got[k]; ok {
				t.Errorf("upstream saw %s %q, which the client did not send", k, v)
			}
		}
	case <-time.After(wait):
		t.Fatal("the request never reached the upstream")
	}
}

// Compressed responses are restored: the client's Accept-Encoding does not
// reach the upstream, so the proxy's own transport decodes gzip.
func TestProxyAcceptEncoding(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ae := r.Header.Get("Accept-Encoding"); ae != "gzip" {
			t.Errorf("upstream saw Accept-Encoding %q, want the proxy's own gzip", ae)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"4","result":{}}`)
	}))
	defer up.Close()
	p := startProxy(t, up.URL)
	req := newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":4,"method":"m"}`)
	req.Header.Set("Accept-Encoding", "br")
	if _, body := do(t, req); body != `{"jsonrpc":"2.0","id":4,"result":{}}` {
		t.Errorf("client read %s", body)
	}
}

// An event of an event stream reaches the client while the upstream is still
// writing the stream, with its id restored.
func TestProxyStreams(t *testing.T) {
	release := make(chan struct{})
	upstreamDone := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(upstreamDone)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(wait):
		}
		io.WriteString(w, "data: last\n\n")
	}))
	defer up.Close()
	p := startProxy(t, up.URL)
	resp, err := testClient.Do(newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":7,"method":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var first strings.Builder
	got := make(chan error, 1)
	go func() {
		for {
			line, err := br.ReadString('\n')
			first.WriteString(line)
			if err != nil || line == "\n" {
				got <- err
				return
			}
		}
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("reading the first event: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("the first event did not arrive while the stream was open")
	}
	close(release)
	if want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n"; first.String() != want {
		t.Errorf("first event %q, want %q", first.String(), want)
	}
	rest, _ := io.ReadAll(br)
	if string(rest) != "data: last\n\n" {
		t.Errorf("rest of stream %q", rest)
	}
}

// A client that goes away cancels the upstream request.
func TestProxyClientDisconnect(t *testing.T) {
	canceled := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": open\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(canceled)
		case <-time.After(wait):
		}
	}))
	defer up.Close()
	p := startProxy(t, up.URL)
	ctx, cancel := context.WithCancel(context.Background())
	req := newRequest(t, "GET", p.url+"/mcp", "").WithContext(ctx)
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-canceled:
	case <-time.After(wait):
		t.Fatal("the upstream request was not canceled when the client went away")
	}
	p.stop(t)
	if s := p.stderr.String(); strings.Count(s, "\n") != 1 {
		t.Errorf("stderr has more than the start line after a client went away:\n%s", s)
	}
}

// SIGTERM ends open GET streams and unused connections at once and lets a
// POST in flight finish.
func TestProxyShutdown(t *testing.T) {
	inPost := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "GET" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(wait):
			}
			return
		}
		close(inPost)
		time.Sleep(200 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	defer up.Close()
	p := startProxy(t, up.URL)
	stream, err := testClient.Get(p.url + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	posted := make(chan string, 1)
	go func() {
		resp, err := testClient.Do(newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"m"}`))
		if err != nil {
			posted <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		posted <- string(b)
	}()
	select {
	case <-inPost:
	case <-time.After(wait):
		t.Fatal("POST did not reach the upstream")
	}
	// A connection on which no request has started (HTTP clients open them
	// ahead of need) must not hold the grace period either.
	idle, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	time.Sleep(50 * time.Millisecond) // let the server accept it
	start := time.Now()
	if code := p.stop(t); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if d := time.Since(start); d > proxyGrace-time.Second {
		t.Errorf("stopping took %v: the open GET stream or the fresh connection held the grace period", d)
	}
	if got := <-posted; got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("POST in flight during shutdown got %q", got)
	}
}

func TestProxyEndpointEvent(t *testing.T) {
	var upURL string
	events := map[string]string{
		"/abs":      "event: endpoint\ndata: %s/messages?sessionId=1\n\nevent: message\ndata: %[1]s/messages\n\n",
		"/rel":      "event: endpoint\ndata: /messages?sessionId=2\n\n",
		"/other":    "event: endpoint\ndata: http://other.example/messages\n\n",
		"/crlf":     ": hello\r\n\r\nevent:endpoint\r\ndata:%s/m\r\n\r\n",
		"/nonfirst": "data: x\n\nevent: endpoint\ndata: %s/m\n\n",
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		ev := events[r.URL.Path]
		if strings.Contains(ev, "%") {
			ev = fmt.Sprintf(ev, upURL)
		}
		io.WriteString(w, ev)
	}))
	defer up.Close()
	upURL = up.URL
	p := startProxy(t, up.URL+"/sse", "-v")
	want := map[string]string{
		"/abs":      fmt.Sprintf("event: endpoint\ndata: %s/messages?sessionId=1\n\nevent: message\ndata: %s/messages\n\n", p.url, up.URL),
		"/rel":      events["/rel"],
		"/other":    events["/other"],
		"/crlf":     fmt.Sprintf(": hello\r\n\r\nevent:endpoint\r\ndata:%s/m\r\n\r\n", p.url),
		"/nonfirst": fmt.Sprintf(events["/nonfirst"], up.URL),
	}
	for path, w := range want {
		_, body := do(t, newRequest(t, "GET", p.url+path, ""))
		if body != w {
			t.Errorf("GET %s: client read %q, want %q", path, body, w)
		}
	}
	// A POST answered with an event stream is never an endpoint stream.
	_, body := do(t, newRequest(t, "POST", p.url+"/abs", `{}`))
	if want := fmt.Sprintf(events["/abs"], up.URL); body != want {
		t.Errorf("POST /abs: client read %q, want %q", body, want)
	}
	if s := p.stderr.String(); !strings.Contains(s, "endpoint event names http://other.example/messages, which is not the upstream") {
		t.Errorf("stderr does not warn of the endpoint elsewhere:\n%s", s)
	}
}

func TestEndpointBody(t *testing.T) {
	target, _ := url.Parse("https://gw.example")
	rewrite := func(v []byte) []byte { return rewriteEndpoint(v, target, "127.0.0.1:8939") }
	tests := []struct{ in, want string }{
		{"event: endpoint\ndata: https://gw.example/m?s=1\n\n", "event: endpoint\ndata: http://127.0.0.1:8939/m?s=1\n\n"},
		{"event: endpoint\ndata: https://GW.example:443/m#f\n\n", "event: endpoint\ndata: http://127.0.0.1:8939/m#f\n\n"},
		{"event: endpoint\ndata: //gw.example/m\n\n", "event: endpoint\ndata: http://127.0.0.1:8939/m\n\n"},
		{"event: endpoint\ndata: https://gw.example\n\n", "event: endpoint\ndata: http://127.0.0.1:8939\n\n"},
		{"data: https://gw.example/m\nevent: endpoint\nid: 1\n\n", "data: http://127.0.0.1:8939/m\nevent: endpoint\nid: 1\n\n"},
		{"\uFEFFevent: endpoint\rdata: https://gw.example/m\r\r", "\uFEFFevent: endpoint\rdata: http://127.0.0.1:8939/m\r\r"},
		{"retry: 10\n\n: c\n\nevent: endpoint\r\ndata: https://gw.example/m\r\n\r\ndata: https://gw.example/m\n\n",
			"retry: 10\n\n: c\n\nevent: endpoint\r\ndata: http://127.0.0.1:8939/m\r\n\r\ndata: https://gw.example/m\n\n"},
		// Left alone:
		{"event: endpoint\ndata: http://gw.example/m\n\n", "event: endpoint\ndata: http://gw.example/m\n\n"},             // port 80, not 443
		{"event: endpoint\ndata: https://gw.example:8443/m\n\n", "event: endpoint\ndata: https://gw.example:8443/m\n\n"}, // other port
		{"event: endpoint\ndata: /m\n\n", "event: endpoint\ndata: /m\n\n"},
		{"event: endpoint\ndata: https://gw.example/a\ndata: b\n\n", "event: endpoint\ndata: https://gw.example/a\ndata: b\n\n"},
		{"event: message\ndata: https://gw.example/m\n\n", "event: message\ndata: https://gw.example/m\n\n"},
		{"event: endpoint\ndata: https://gw.example/m", "event: endpoint\ndata: https://gw.example/m"}, // never dispatched
		{"event: endpoint\ndata: https://gw.example/m\n", "event: endpoint\ndata: https://gw.example/m\n"},
		{"", ""},
		{"\uFEFF", "\uFEFF"},
		{":" + strings.Repeat("x", maxEndpointEvent) + "\n\nevent: endpoint\ndata: https://gw.example/m\n\n",
			":" + strings.Repeat("x", maxEndpointEvent) + "\n\nevent: endpoint\ndata: https://gw.example/m\n\n"},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 2, 3, 7, 1 << 20} {
			b := newEndpointBody(io.NopCloser(&chunkReader{s: tt.in, n: chunk}), rewrite)
			got, err := io.ReadAll(b)
			if err != nil || string(got) != tt.want {
				t.Errorf("%.60q in %d-byte reads = %.80q, %v; want %.80q", tt.in, chunk, got, err, tt.want)
			}
		}
	}
}

// chunkReader returns s n bytes at a time.
type chunkReader struct {
	s string
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := min(r.n, len(p), len(r.s))
	copy(p, r.s[:n])
	r.s = r.s[n:]
	return n, nil
}

func TestProxyArgs(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{}, 2, "a URL or -- COMMAND is needed"},
		{[]string{"ftp://gw.example"}, 2, "scheme must be http or https"},
		{[]string{"gw.example/mcp"}, 2, "scheme must be http or https"},
		{[]string{"http:///mcp"}, 2, "has no host"},
		{[]string{"https://user:pw@gw.example/mcp"}, 2, "holds user information"},
		{[]string{"http://a", "http://b"}, 2, "one URL expected"},
		{[]string{"http://a", "-v"}, 2, "flags go before the URL"},
		{[]string{"--"}, 2, "no COMMAND after --"},
		{[]string{"-listen", "127.0.0.1:0", "--", "cat"}, 2, "-listen applies to HTTP mode only"},
		{[]string{"-listen", "nocolon", "http://a"}, 2, "-listen \"nocolon\""},
		{[]string{"-max-pending", "0", "http://a"}, 2, "-max-pending must be at least 1"},
		{[]string{"-max-message-size", "-1", "http://a"}, 2, "-max-message-size must be at least 1"},
		{[]string{"-bogus", "http://a"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"-max-buffered", "0", "http://a"}, 2, "-max-buffered must be at least 1"},
		{[]string{"-body-timeout", "0s", "http://a"}, 2, "-body-timeout must be positive"},
		{[]string{"-body-timeout", "5", "http://a"}, 2, "invalid value \"5\" for flag -body-timeout"},
	}
	for _, tt := range tests {
		var stdout, stderr strings.Builder
		_, code, ok := parseProxyArgs(tt.args, &stdout, &stderr)
		if ok || code != tt.code || !strings.Contains(stderr.String(), tt.stderr) || stdout.Len() != 0 {
			t.Errorf("proxy %q: ok %v, status %d, stdout %q, stderr %q; want status %d and %q", tt.args, ok, code, stdout.String(), stderr.String(), tt.code, tt.stderr)
		}
	}
	var stdout, stderr strings.Builder
	if _, code, ok := parseProxyArgs([]string{"-h"}, &stdout, &stderr); ok || code != 0 || !strings.Contains(stdout.String(), "rpcid proxy: listening on http://HOST:PORT/PATH") || !strings.Contains(stdout.String(), "-max-message-size BYTES") || stderr.Len() != 0 {
		t.Errorf("proxy -h: ok %v, status %d, stderr %q; want 0 and the usage on stdout", ok, code, stderr.String())
	}
	// The help states the defaults the code uses.
	for _, want := range []string{"(default " + defaultProxyListen, "(default " + strconv.Itoa(httpid.DefaultMaxPending) + ")", "(default " + strconv.Itoa(httpid.DefaultMaxMessageSize) + ")"} {
		if !strings.Contains(Cmd.Long, want) {
			t.Errorf("proxy -h does not say %q", want)
		}
	}
	cfg, _, ok := parseProxyArgs([]string{"-v", "--", "npx", "mcp-remote", "--", "-x"}, &stdout, &stderr)
	if !ok || !cfg.verbose || !cmp.Equal(cfg.command, []string{"npx", "mcp-remote", "--", "-x"}) {
		t.Errorf("proxy -v -- npx ...: ok %v, %+v", ok, cfg)
	}
	cfg, _, ok = parseProxyArgs([]string{"https://gw.example/mcp"}, &stdout, &stderr)
	if !ok || cfg.listen != defaultProxyListen || cfg.upstream.Host != "gw.example" || cfg.command != nil ||
		cfg.maxBuffered != defaultMaxBuffered || cfg.bodyTimeout != defaultBodyTimeout {
		t.Errorf("proxy URL: ok %v, %+v", ok, cfg)
	}
	// The buffer budget holds two of the largest messages, unless set.
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{[]string{"-max-message-size", "100000000", "http://a"}, 200000000},
		{[]string{"-max-message-size", "100000000", "-max-buffered", "5000", "http://a"}, 5000},
		{[]string{"-max-message-size", "1000", "http://a"}, defaultMaxBuffered},
	} {
		if cfg, _, ok := parseProxyArgs(tc.args, &stdout, &stderr); !ok || cfg.maxBuffered != tc.want {
			t.Errorf("proxy %q: ok %v, max-buffered %d, want %d", tc.args, ok, cfg.maxBuffered, tc.want)
		}
	}
	for _, want := range []string{"(default " + strconv.Itoa(defaultMaxBuffered) + ",", "(default " + defaultBodyTimeout.String() + ")"} {
		if !strings.Contains(Cmd.Long, want) {
			t.Errorf("proxy -h does not say %q", want)
		}
	}
}

// With -v, HTTP mode logs each restored id and each unmatched one, and a
// summary on exit.
func TestProxyHTTPVerbose(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, id := range []string{"3", "77", "4"} {
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\""+id+"\",\"result\":{}}\n\n")
		}
	}))
	defer up.Close()
	p := startProxy(t, up.URL, "-v")
	_, body := do(t, newRequest(t, "POST", p.url+"/mcp", `[{"jsonrpc":"2.0","id":3,"method":"m"},{"jsonrpc":"2.0","id":4,"method":"m"}]`))
	want := "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":\"77\",\"result\":{}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n\n"
	if body != want {
		t.Errorf("client read %q, want %q", body, want)
	}
	p.stop(t)
	for _, s := range []string{
		"rpcid proxy: restored response id \"3\" to 3\n",
		"rpcid proxy: response id \"77\" matches no remembered request id\n",
		"rpcid proxy: restored response id \"4\" to 4\n",
		"rpcid proxy: 1 request forwarded (2 request ids recorded, 3 response ids examined); 2 ids restored, 1 unmatched\n",
	} {
		if !strings.Contains(p.stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, p.stderr.String())
		}
	}
}

// A redirect to the upstream's own host is turned into one to the proxy.
func TestProxyLocation(t *testing.T) {
	var upURL string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/mcp":
			http.Redirect(w, r, upURL+"/mcp/?a=1", http.StatusTemporaryRedirect)
		case "/elsewhere":
			http.Redirect(w, r, "https://other.example/mcp", http.StatusFound)
		case "/relative":
			w.Header().Set("Location", "/mcp/")
			w.WriteHeader(http.StatusFound)
		}
	}))
	defer up.Close()
	upURL = up.URL
	p := startProxy(t, up.URL)
	noFollow := &http.Client{Timeout: wait, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for path, want := range map[string]string{
		"/mcp":       p.url + "/mcp/?a=1",
		"/elsewhere": "https://other.example/mcp",
		"/relative":  "/mcp/",
	} {
		resp, err := noFollow.Get(p.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("GET %s: Location %q, want %q", path, got, want)
		}
	}
}

func TestProxyListenInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stdout, stderr strings.Builder
	cfg, _, ok := parseProxyArgs([]string{"-listen", ln.Addr().String(), "http://127.0.0.1:1"}, &stdout, &stderr)
	if !ok {
		t.Fatal(stderr.String())
	}
	code := proxyHTTP(cfg, &stderr, make(chan os.Signal), nil)
	if code != 1 || !strings.Contains(stderr.String(), "address already in use") || strings.Contains(stderr.String(), "listening") {
		t.Errorf("status %d, stderr %q; want 1 and the reason, no start line", code, stderr.String())
	}
}

// FuzzEndpointBody checks that an endpointBody changes nothing when its
// function declines, gives the same bytes however the stream is cut into
// reads, calls its function at most once, and changes only the value passed.
func FuzzEndpointBody(f *testing.F) {
	f.Add("event: endpoint\ndata: https://gw.example/m\n\n", 3)
	f.Add("\uFEFFevent:endpoint\r\ndata:/m\r\n\r\ndata: x\r\r", 1)
	f.Add(": c\n\nretry: 1\n\nevent: endpoint\rdata: a\rdata: b\r\r", 2)
	f.Add("data\n\nevent: endpoint\ndata\n\n", 5)
	f.Fuzz(func(t *testing.T, in string, chunk int) {
		chunk = 1 + (chunk&0xffff)%64
		read := func(fn func([]byte) []byte, n int) string {
			got, err := io.ReadAll(newEndpointBody(io.NopCloser(&chunkReader{s: in, n: n}), fn))
			if err != nil {
				t.Fatal(err)
			}
			return string(got)
		}
		if got := read(func([]byte) []byte { return nil }, chunk); got != in {
			t.Fatalf("declining: %q became %q", in, got)
		}
		calls := 0
		var value string
		mark := func(v []byte) []byte {
			calls++
			value = string(v)
			return []byte("<" + string(v) + ">")
		}
		whole := read(mark, len(in)+1)
		if calls > 1 {
			t.Fatalf("function called %d times", calls)
		}
		if calls == 1 {
			// Exactly the value was replaced: removing the marks gives the
			// input back.
			if strings.Replace(whole, "<"+value+">", value, 1) != in {
				t.Fatalf("%q became %q, more than the value %q changed", in, whole, value)
			}
		}
		if got := read(mark, chunk); got != whole {
			t.Fatalf("%q in %d-byte reads = %q, in one read %q", in, chunk, got, whole)
		}
	})
}

// With -max-pending ids in flight, another request is answered 503 and
// never sent.
func TestProxyTooManyPending(t *testing.T) {
	var hits atomic.Int64
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-release:
		case <-time.After(wait):
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	defer up.Close()
	p := startProxy(t, up.URL, "-max-pending", "1")
	first := make(chan struct{})
	go func() {
		defer close(first)
		testClient.Do(newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"m"}`))
	}()
	deadline := time.Now().Add(wait)
	for hits.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	resp, body := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"m"}`))
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "too many request ids pending") || hits.Load() != 1 {
		t.Errorf("second request: status %d, body %q, upstream hits %d; want 503, the reason, 1", resp.StatusCode, body, hits.Load())
	}
	if s := p.stderr.String(); !strings.Contains(s, "too many request ids pending") {
		t.Errorf("stderr does not report the refusal:\n%s", s)
	}
	close(release)
	select {
	case <-first:
	case <-time.After(wait):
		t.Fatal("the first request did not end")
	}
}

// Bodies and events longer than -max-message-size pass byte for byte,
// unexamined; shorter ones after them are still restored.
func TestProxyLongMessages(t *testing.T) {
	pad := strings.Repeat("x", 2<<20)
	longJSON := `{"jsonrpc":"2.0","id":"1","result":{"pad":"` + pad + `"}}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/json" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, longJSON)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+longJSON+"\n\n")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":{}}\n\n")
	}))
	defer up.Close()
	p := startProxy(t, up.URL, "-max-message-size", "1024")
	_, body := do(t, newRequest(t, "POST", p.url+"/json", `{"jsonrpc":"2.0","id":1,"method":"m"}`))
	if body != longJSON {
		t.Errorf("long JSON body changed (%d bytes, want %d)", len(body), len(longJSON))
	}
	_, body = do(t, newRequest(t, "POST", p.url+"/sse", `[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":2,"method":"m"}]`))
	want := "data: " + longJSON + "\n\n" + "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"
	if body != want {
		t.Errorf("event stream: got %d bytes ending %q, want %d bytes ending %q", len(body), body[max(0, len(body)-60):], len(want), want[len(want)-60:])
	}
}

// A second signal ends the grace period at once.
func TestProxySecondSignal(t *testing.T) {
	inPost := make(chan struct{})
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(inPost)
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(wait):
		}
	}))
	defer up.Close()
	defer close(release)
	p := startProxy(t, up.URL)
	go testClient.Do(newRequest(t, "POST", p.url+"/mcp", `{}`))
	select {
	case <-inPost:
	case <-time.After(wait):
		t.Fatal("POST did not reach the upstream")
	}
	start := time.Now()
	sig := p.sig
	p.sig = nil // stopped here, not by the cleanup
	sig <- syscall.SIGTERM
	sig <- syscall.SIGINT
	select {
	case code := <-p.done:
		if code != 0 {
			t.Errorf("exit status %d, want 0", code)
		}
	case <-time.After(wait):
		t.Fatal("proxy did not stop")
	}
	if d := time.Since(start); d > proxyGrace/2 {
		t.Errorf("stopping after a second signal took %v", d)
	}
}

func TestProxyRefusesItself(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // free the port for the proxy
	_, port, _ := net.SplitHostPort(addr)
	for _, u := range []string{"http://" + addr + "/mcp?token=SECRET123", "http://LOCALHOST:" + port} {
		var stdout, stderr strings.Builder
		cfg, _, ok := parseProxyArgs([]string{"-listen", addr, u}, &stdout, &stderr)
		if !ok {
			t.Fatal(stderr.String())
		}
		code := proxyHTTP(cfg, &stderr, make(chan os.Signal), nil)
		if code != 2 || !strings.Contains(stderr.String(), "names this proxy's own address") || strings.Contains(stderr.String(), "SECRET") {
			t.Errorf("URL %s: status %d, stderr %q; want 2 and the reason, without the token", u, code, stderr.String())
		}
	}
}

// The upstream URL's query (a token) reaches the upstream on every request,
// before the client's own query, as httputil.NewSingleHostReverseProxy
// joins them; the client's path replaces the URL's.
func TestProxyUpstreamQuery(t *testing.T) {
	uris := make(chan string, 4)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uris <- r.RequestURI
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	defer up.Close()
	p := startProxy(t, up.URL+"/mcp?api_key=a%2Fb")
	defer p.stop(t)
	for _, tt := range []struct{ path, want string }{
		{"/mcp", "/mcp?api_key=a%2Fb"},
		{"/messages?session=1&x=%20", "/messages?api_key=a%2Fb&session=1&x=%20"},
		{"/other", "/other?api_key=a%2Fb"},
	} {
		resp, body := do(t, newRequest(t, "POST", p.url+tt.path, `{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if resp.StatusCode != 200 || body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("POST %s: %s %q", tt.path, resp.Status, body)
		}
		select {
		case got := <-uris:
			if got != tt.want {
				t.Errorf("POST %s reached the upstream as %q, want %q", tt.path, got, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("POST %s never reached the upstream", tt.path)
		}
	}
}

// Where the proxy says it listens: a URL a client can use, and a warning
// when it listens on every address (not tested by listening there: tests
// listen on 127.0.0.1 only).
func TestListeningLines(t *testing.T) {
	tests := []struct {
		addr *net.TCPAddr
		want []string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8939}, []string{"listening on http://127.0.0.1:8939/mcp, forwarding to https://gw.example/mcp"}},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8939}, []string{"listening on http://[::1]:8939/mcp, forwarding to https://gw.example/mcp"}},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 41107}, []string{
			"listening on port 41107 of every address (http://127.0.0.1:41107/mcp from this machine), forwarding to https://gw.example/mcp",
			"warning: other machines that can reach this one can use the gateway through the proxy (-listen 127.0.0.1:41107 keeps it to this machine)",
		}},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 5000}, []string{
			"listening on port 5000 of every address (http://127.0.0.1:5000/mcp from this machine), forwarding to https://gw.example/mcp",
			"warning: other machines that can reach this one can use the gateway through the proxy (-listen 127.0.0.1:5000 keeps it to this machine)",
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, listeningLines(tt.addr, "/mcp", "https://gw.example/mcp")); diff != "" {
			t.Errorf("listeningLines(%v) (-want +got):\n%s", tt.addr, diff)
		}
	}
}

// Every Origin header is checked, not only the first: a request that holds
// a local Origin and a foreign one is refused and never reaches the
// upstream (which might read the last one).
func TestProxyEveryOriginChecked(t *testing.T) {
	var hits atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
	}))
	defer up.Close()
	p := startProxy(t, up.URL)
	for _, origins := range [][]string{
		{"http://localhost", "http://evil.example"},
		{"http://evil.example", "http://localhost"},
		{"http://localhost, http://evil.example"},
	} {
		req := newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"m"}`)
		req.Header["Origin"] = origins
		resp, body := do(t, req)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "evil.example") {
			t.Errorf("Origin %q: %s %q, want 403 naming evil.example", origins, resp.Status, body)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the upstream was reached %d times, want 0", n)
	}
}

// In HTTP mode, a script that reads the start line and closes its end of
// standard error does not kill the proxy with the next line it logs.
func TestProxyHTTPStderrClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	bin := buildRpcid(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer up.Close()
	cmd := exec.Command(bin, "proxy", "-v", "-listen", "127.0.0.1:0", up.URL+"/mcp")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	first, err := bufio.NewReader(stderr).ReadString('\n')
	m := regexp.MustCompile(`^rpcid proxy: listening on http://(127\.0\.0\.1:[0-9]+)/`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("start line %q, %v", first, err)
	}
	stderr.Close()
	for i := 0; i < 3; i++ { // each refusal is logged with -v
		if got := rawRequest(t, m[1], "GET /mcp HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"); !strings.Contains(got, " 403 ") {
			t.Fatalf("request %d: %s, want 403 (the proxy still serving)", i, got)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := waitBounded(t, cmd); err != nil {
		t.Errorf("proxy ended with %v, want exit status 0 after SIGTERM", err)
	}
}

// A connection left idle after a request is closed after proxyIdleTimeout,
// so that idle connections (from a peer on the network, with -listen on a
// non-loopback address) cannot pile up without bound.
func TestProxyIdleConnectionsClosed(t *testing.T) {
	defer func(d time.Duration) { proxyIdleTimeout = d }(proxyIdleTimeout)
	proxyIdleTimeout = 50 * time.Millisecond
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer up.Close()
	p := startProxy(t, up.URL)
	c, err := net.DialTimeout("tcp", p.addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(wait))
	io.WriteString(c, "GET /mcp HTTP/1.1\r\nHost: "+p.addr+"\r\n\r\n")
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	start := time.Now()
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("idle connection: read %v, want io.EOF (closed by the proxy)", err)
	}
	if d := time.Since(start); d > wait/2 {
		t.Errorf("idle connection closed after %v", d)
	}
}
