package proxy

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"sync/atomic"
	"testing"
)

// The proxy's own upstream connections: reused from request to request,
// replaced when the upstream closed them while idle, not reused after
// Connection: close; 1xx responses pass on, gzip is decoded, HEAD and
// chunked bodies are read as they are framed.
func TestUpstreamTransport(t *testing.T) {
	var conns atomic.Int64
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/early":
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
		case "/close":
			w.Header().Set("Connection", "close")
		case "/gzip":
			if r.Header.Get("Accept-Encoding") != "gzip" {
				t.Errorf("upstream saw Accept-Encoding %q, want gzip", r.Header.Get("Accept-Encoding"))
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "application/json")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, `{"jsonrpc":"2.0","id":"1","result":{}}`)
			zw.Close()
			return
		case "/chunked":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0",`)
			w.(http.Flusher).Flush()
			io.WriteString(w, `"id":"1","result":{}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	up.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	up.Start()
	defer up.Close()
	p := startProxy(t, up.URL)
	post := func(path string) (*http.Response, string) {
		t.Helper()
		return do(t, newRequest(t, "POST", p.url+path, `{"jsonrpc":"2.0","id":1,"method":"m"}`))
	}
	const want = `{"jsonrpc":"2.0","id":1,"result":{}}`
	for range 20 {
		if _, body := post("/mcp"); body != want {
			t.Fatalf("read %s, want %s", body, want)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("20 requests in a row took %d upstream connections, want 1", n)
	}
	up.CloseClientConnections() // as an upstream's idle timeout does
	for range 3 {
		if resp, body := post("/mcp"); resp.StatusCode != 200 || body != want {
			t.Fatalf("after the upstream closed the idle connection: %d %s", resp.StatusCode, body)
		}
	}
	before := conns.Load()
	for _, path := range []string{"/close", "/close", "/mcp"} {
		if _, body := post(path); body != want {
			t.Errorf("%s: read %s, want %s", path, body, want)
		}
	}
	if n := conns.Load() - before; n != 2 {
		t.Errorf("after two answers with Connection: close, %d new connections, want 2", n)
	}
	for _, path := range []string{"/gzip", "/chunked"} {
		if resp, body := post(path); body != want || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: read %s (Content-Encoding %q), want %s", path, body, resp.Header.Get("Content-Encoding"), want)
		}
	}
	var early []int
	req := newRequest(t, "POST", p.url+"/early", `{"jsonrpc":"2.0","id":1,"method":"m"}`)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
			early = append(early, code)
			return nil
		},
	}))
	if _, body := do(t, req); body != want || len(early) != 1 || early[0] != http.StatusEarlyHints {
		t.Errorf("/early: 1xx %v, body %s; want [103] and %s", early, body, want)
	}
	resp, err := testClient.Head(p.url + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, body := post("/mcp"); body != want {
		t.Errorf("after HEAD: read %s", body)
	}
	if !bytes.Contains([]byte(p.stderr.String()), []byte("listening")) || strings.Count(p.stderr.String(), "\n") != 1 {
		t.Errorf("stderr: %s", p.stderr)
	}
}

// An upstream whose response head never ends is cut off after
// maxResponseHead bytes: the client is answered 502.
func TestUpstreamHeadLimit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 4096)
		c.Read(buf) // the request
		io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Long: ")
		line := bytes.Repeat([]byte("a"), 64<<10)
		for range (maxResponseHead + 1<<20) / len(line) {
			if _, err := c.Write(line); err != nil {
				return
			}
		}
	}()
	p := startProxy(t, "http://"+ln.Addr().String())
	if resp, _ := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"m"}`)); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d, want 502", resp.StatusCode)
	}
}
