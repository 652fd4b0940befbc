package interop

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plainFails runs session, the plain go-sdk client straight at g, and fails
// t unless it fails after g changed an id: by hanging until canceled when
// the server answers with application/json (mode m.json), with "request
// terminated without response" when it answers with event streams.
func plainFails(t *testing.T, g *gateway, m mode, session func(context.Context) error) {
	t.Helper()
	var r run
	if m.json {
		r = runUntilHang(t, g, session)
	} else {
		r = runSession(g, session)
	}
	if r.err == nil {
		t.Fatalf("the plain go-sdk client succeeded through the gateway; is the gateway active?")
	}
	if !r.changed {
		t.Fatalf("failed before the gateway changed any id: %v", r.err)
	}
	if m.json && (!r.hung || !errors.Is(r.err, context.Canceled)) {
		t.Errorf("JSON responses: got %v, hung %v; want a hang ended by cancellation", r.err, r.hung)
	}
	if !m.json && !strings.Contains(r.err.Error(), "request terminated without response") {
		t.Errorf("event streams: got %v; want %q", r.err, "request terminated without response")
	}
}

// TestProxyGoSDK runs an unmodified go-sdk client (a plain http.Client, no
// httpid) through "rpcid proxy" and the stringifying gateway to a go-sdk
// server, in each server mode: it connects and calls a tool twice. Control:
// the same client straight at the gateway fails. mcp-go's client, which works
// without the proxy, works through it too.
func TestProxyGoSDK(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			srv := startMCP(t, m)
			g := newGateway(t, srv.URL, stringify, nil)

			t.Run("through the proxy", func(t *testing.T) {
				p := startProxy(t, g.URL+"/mcp")
				before := g.changes.Load()
				r := runSession(g, func(ctx context.Context) error {
					return goSDKSession(ctx, p.URL, plainClient())
				})
				if r.err != nil {
					t.Fatalf("plain go-sdk client through rpcid proxy: %v", r.err)
				}
				if g.changes.Load() == before {
					t.Errorf("the gateway changed no id")
				}
				p.quiet(t)
			})

			t.Run("control straight at the gateway fails", func(t *testing.T) {
				plainFails(t, g, m, func(ctx context.Context) error {
					return goSDKSession(ctx, g.URL+"/mcp", plainClient())
				})
			})

			// mcp-go never compares ids (see TestMCPGoThroughGateway): the
			// proxy must stay transparent to it. Its version is pinned
			// against the stateful server for the reason given there.
			t.Run("mcp-go through the proxy", func(t *testing.T) {
				version := ""
				if !m.stateless {
					version = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
				}
				p := startProxy(t, g.URL+"/mcp")
				before := g.changes.Load()
				r := runSession(g, func(ctx context.Context) error {
					return mcpgoSession(ctx, p.URL, plainClient(), version)
				})
				if r.err != nil {
					t.Fatalf("mcp-go through rpcid proxy: %v", r.err)
				}
				if g.changes.Load() == before {
					t.Errorf("the gateway changed no id")
				}
				p.quiet(t)
			})
		})
	}
}

// TestProxyLegacySSE runs go-sdk's SSEClientTransport (the HTTP+SSE
// transport of MCP 2024-11-05: responses arrive on the GET event stream, not
// on the POSTs) through the proxy and the gateway, once with the relative
// endpoint URL the go-sdk server sends and once with a gateway that makes it
// an absolute URL on the gateway's host, which the proxy must point at
// itself. Control: the same client straight at the gateway fails.
func TestProxyLegacySSE(t *testing.T) {
	t.Parallel()
	s := newMCPServer()
	mux := http.NewServeMux()
	mux.Handle("/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := startHTTP(t, mux)
	for _, abs := range []bool{false, true} {
		name := "relative endpoint"
		if abs {
			name = "absolute endpoint"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := newGateway(t, srv.URL, stringify, nil)
			g.absEndpoint = abs

			t.Run("through the proxy", func(t *testing.T) {
				p := startProxy(t, g.URL+"/sse")
				r := runSession(g, func(ctx context.Context) error {
					return goSDKSessionOver(ctx, &mcp.SSEClientTransport{Endpoint: p.URL, HTTPClient: plainClient()})
				})
				if r.err != nil {
					t.Fatalf("plain go-sdk SSE client through rpcid proxy: %v", r.err)
				}
				if !r.changed {
					t.Errorf("the gateway changed no id")
				}
				if abs && g.endpoints.Load() == 0 {
					t.Errorf("the gateway made no endpoint absolute")
				}
				p.quiet(t)
			})

			t.Run("control straight at the gateway fails", func(t *testing.T) {
				r := runUntilHang(t, g, func(ctx context.Context) error {
					return goSDKSessionOver(ctx, &mcp.SSEClientTransport{Endpoint: g.URL + "/sse", HTTPClient: plainClient()})
				})
				if r.err == nil || !r.changed {
					t.Fatalf("got %v (gateway changed ids: %v); want failure after the gateway changed an id", r.err, r.changed)
				}
				if abs && g.endpoints.Load() == 0 {
					t.Errorf("the gateway made no endpoint absolute")
				}
			})
		})
	}
}

// A seen is one request as the upstream received it.
type seen struct {
	host   string
	uri    string // RequestURI: the path and query as sent
	header http.Header
}

// TestProxySecurity checks the DNS-rebinding defence: a request
// whose Host is not the proxy's own address or localhost:PORT, or whose
// Origin is another site's, is refused with 403 or 421 and a short
// plain-text reason, and never reaches the upstream; and that Authorization,
// Mcp-Session-Id and the other end-to-end headers reach the upstream
// unchanged (hop-by-hop ones do not), that the upstream sees its own host
// name, that the client's path and query arrive byte for byte, and that the
// proxy adds no credentials.
func TestProxySecurity(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		hits []seen
	)
	upstream := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		hits = append(hits, seen{r.Host, r.RequestURI, r.Header.Clone()})
		mu.Unlock()
		w.Header().Set("Mcp-Session-Id", "session-from-upstream")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	p := startProxy(t, upstream.URL+"/mcp")
	port := p.Host[strings.LastIndex(p.Host, ":")+1:]
	upstreamHost := strings.TrimPrefix(upstream.URL, "http://")
	nhits := func() int { mu.Lock(); defer mu.Unlock(); return len(hits) }
	last := func() seen { mu.Lock(); defer mu.Unlock(); return hits[len(hits)-1] }

	send := func(t *testing.T, method, host string, header map[string]string) (*http.Response, []byte) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		}
		req, err := http.NewRequestWithContext(ctx, method, p.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := plainClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, data
	}

	type refusal struct{ host, origin string }
	var refused []refusal
	for _, host := range []string{"evil.example", "evil.example:" + port, "127.0.0.1.evil.example:" + port, "localhost.evil.example:" + port} {
		refused = append(refused, refusal{host, ""})
	}
	// A page of another site in a browser sends its Origin with the
	// proxy's own Host (MCP: servers must validate Origin).
	refused = append(refused, refusal{p.Host, "http://evil.example"}, refusal{p.Host, "http://evil.example:" + port})
	for _, rf := range refused {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			name := "refused " + method + " Host " + rf.host
			if rf.origin != "" {
				name += " Origin " + rf.origin
			}
			t.Run(name, func(t *testing.T) {
				n := nhits()
				header := map[string]string{"Authorization": "Bearer interop-secret"}
				if rf.origin != "" {
					header["Origin"] = rf.origin
				}
				resp, data := send(t, method, rf.host, header)
				if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusMisdirectedRequest {
					t.Errorf("status %s, want 403 or 421", resp.Status)
				}
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
					t.Errorf("Content-Type %q, want text/plain", ct)
				}
				if len(bytes.TrimSpace(data)) == 0 || len(data) > 200 {
					t.Errorf("reason %q: want a short plain-text reason", data)
				}
				if got := nhits(); got != n {
					t.Errorf("the upstream received the refused request (%d requests, was %d)", got, n)
				}
			})
		}
	}

	for _, ac := range []struct{ host, origin string }{
		{p.Host, ""},
		{"localhost:" + port, ""},
		{p.Host, "http://localhost:" + port},
	} {
		name := "accepted Host " + ac.host
		if ac.origin != "" {
			name += " Origin " + ac.origin
		}
		t.Run(name, func(t *testing.T) {
			n := nhits()
			// End-to-end headers pass unchanged; a header that Connection
			// names is hop-by-hop (RFC 9110 section 7.6.1) and does not.
			header := map[string]string{
				"Authorization":        "Bearer interop-secret",
				"Mcp-Session-Id":       "session-from-client",
				"Mcp-Protocol-Version": "2025-11-25",
				"Last-Event-Id":        "stream-1:7",
				"Connection":           "X-Interop-Hop",
				"X-Interop-Hop":        "1",
			}
			if ac.origin != "" {
				header["Origin"] = ac.origin
			}
			resp, data := send(t, http.MethodPost, ac.host, header)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %s (%q), want 200", resp.Status, data)
			}
			if got := nhits(); got != n+1 {
				t.Fatalf("the upstream received %d requests, want 1", got-n)
			}
			up := last()
			if got := up.header.Values("Authorization"); len(got) != 1 || got[0] != "Bearer interop-secret" {
				t.Errorf("upstream Authorization %q, want [%q]", got, "Bearer interop-secret")
			}
			for _, k := range []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id"} {
				if got := up.header.Values(k); len(got) != 1 || got[0] != header[k] {
					t.Errorf("upstream %s %q, want [%q]", k, got, header[k])
				}
			}
			if got := up.header.Values("Accept"); len(got) != 1 || got[0] != "application/json, text/event-stream" {
				t.Errorf("upstream Accept %q, want the client's", got)
			}
			if got := up.header.Values("X-Interop-Hop"); len(got) != 0 {
				t.Errorf("upstream got the hop-by-hop header X-Interop-Hop %q", got)
			}
			if up.host != upstreamHost {
				t.Errorf("upstream Host %q, want its own %q", up.host, upstreamHost)
			}
			if got := resp.Header.Get("Mcp-Session-Id"); got != "session-from-upstream" {
				t.Errorf("client got Mcp-Session-Id %q, want %q", got, "session-from-upstream")
			}
			if want := `{"jsonrpc":"2.0","id":1,"result":{}}`; string(data) != want {
				t.Errorf("client got %q, want %q", data, want)
			}
		})
	}

	t.Run("path and query kept", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		const uri = "/mcp/a%2Fb/c?x=1&y=%2F&z=a+b&x=2"
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Base+uri, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := plainClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %s, want 200", resp.Status)
		}
		if got := last().uri; got != uri {
			t.Errorf("upstream request URI %q, want the client's %q", got, uri)
		}
	})

	t.Run("no credentials added", func(t *testing.T) {
		n := nhits()
		resp, data := send(t, http.MethodPost, p.Host, nil)
		if resp.StatusCode != http.StatusOK || nhits() != n+1 {
			t.Fatalf("status %s (%q), %d upstream requests; want 200 and 1", resp.Status, data, nhits()-n)
		}
		for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Mcp-Session-Id"} {
			if v := last().header.Values(k); len(v) > 0 {
				t.Errorf("upstream got %s %q from a client that sent none", k, v)
			}
		}
	})
}

// An exchange of httpScript: the client POSTs request, and the server
// answers with contentType and the events (or body pieces) of reply, written
// and flushed one by one.
type exchange struct {
	request     string
	contentType string
	reply       []*wire
}

// httpScript is the conversation of the raw JSON-RPC HTTP server of
// TestProxyBytes, which uses no SDK: JSON bodies and event streams with
// batches, error responses, requests from the server, a duplicate id member,
// events that are not JSON or not messages, multi-line data with CRLF, a
// 20 MiB body and a 20 MiB event. The server sends the same bytes whatever
// examined says; examined says whether the proxy examines 20 MiB messages
// (-max-message-size above it) and so what the client must receive.
func httpScript(examined bool) []exchange {
	w := func() *wire { return &wire{} }
	// restoredIf returns want when examined, else sent (the id passes unchanged).
	restoredIf := func(examined bool, sent, want string) (string, string) {
		if examined {
			return sent, want
		}
		return sent, sent
	}
	return []exchange{
		// One response with its own whitespace; nested "id" members are not its id.
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "application/json", []*wire{
			w().raw(" {\n  \"jsonrpc\" : \"2.0\",\n  \"result\" : {\"id\":1,\"note\":{\"id\":\"1\"}},\n  \"id\" : ").id(`"1"`, `1`).raw("\n}\n"),
		}},
		// A batch with a notification, answered out of order, one answer an
		// error response whose data holds an id.
		{`[{"jsonrpc":"2.0","id":2,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":3,"method":"b"}]`, "application/json; charset=utf-8", []*wire{
			w().raw(`[ {"jsonrpc" : "2.0", "id" : `).id(`"3"`, `3`).raw(` , "result" : [ ] },`+"\t").
				raw(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":{"id":"2"}},"id":`).id(`"2"`, `2`).raw("} ]"),
		}},
		// An event stream: comments, fields, events that are not JSON-RPC or
		// not responses, then the response split over three CRLF data lines.
		{`{"jsonrpc":"2.0","id":4,"method":"c"}`, "text/event-stream", []*wire{
			w().raw(": a comment\r\n\r\n"),
			w().raw("retry: 1000\n\n"),
			w().raw("event: ping\ndata: not JSON at all\n\n"),
			w().raw("id: 4\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"4\",\"method\":\"ping\"}\n\n"),
			w().raw("data: {\"jsonrpc\":\"2.0\",\"id\":\"4\",\"id\":\"4\",\"result\":\"two ids\"}\n\n"),
			w().raw("data: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n\n"),
			w().raw("data: {\"jsonrpc\":\"2.0\",\"id\":\"99\",\"result\":\"matches nothing\"}\n\n"),
			w().raw("event: message\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata:  \"id\" : ").id(`"4"`, `4`).raw(",\r\ndata: \"result\":\"four\"}\r\n\r\n"),
		}},
		// A 20 MiB body: restored if examined, else unchanged, and id 5
		// stays pending.
		{`{"jsonrpc":"2.0","id":5,"method":"big"}`, "application/json", []*wire{
			w().raw(`{"jsonrpc":"2.0","id":`).id(restoredIf(examined, `"5"`, `5`)).raw(`,"result":"`, big(), `"}`),
		}},
		// A 20 MiB event, then the answer to 5 on another exchange and a
		// second answer to 6: whichever answer comes first is restored, and
		// a later one matches nothing and passes unchanged.
		{`{"jsonrpc":"2.0","id":6,"method":"big"}`, "text/event-stream", []*wire{
			w().raw(`data: {"jsonrpc":"2.0","id":`).id(restoredIf(examined, `"6"`, `6`)).raw(`,"result":"`, big(), `"}`+"\n\n"),
			w().raw(`data: {"jsonrpc":"2.0","id":`).id(restoredIf(!examined, `"5"`, `5`)).raw(`,"result":"late"}` + "\n\n"),
			w().raw(`data: {"jsonrpc":"2.0","id":`).id(restoredIf(!examined, `"6"`, `6`)).raw(`,"result":"small"}` + "\n\n"),
		}},
	}
}

// bigLimit is a -max-message-size under which the 20 MiB messages of the
// scripts are examined.
const bigLimit = "33554432" // 32 MiB

// TestProxyBytes runs a raw JSON-RPC server (no SDK) behind "rpcid proxy -v",
// with the default message size limit and with one above the script's
// largest message, and checks that the client receives every byte the server
// sent, except the restored ids, and that -v logs each restored id and the
// id that matched nothing.
func TestProxyBytes(t *testing.T) {
	t.Parallel()
	// Built once each: they hold four copies of 20 MiB. The server's bytes
	// do not depend on examined.
	scripts := map[bool][]exchange{false: httpScript(false), true: httpScript(true)}
	script := scripts[false]
	var unknown atomic.Int64
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		for _, ex := range script {
			if string(body) != ex.request {
				continue
			}
			w.Header().Set("Content-Type", ex.contentType)
			if !strings.HasPrefix(ex.contentType, "text/event-stream") {
				w.Header().Set("Content-Length", fmt.Sprint(len(ex.reply[0].sent)))
			}
			for _, piece := range ex.reply {
				w.Write(piece.sent)
				w.(http.Flusher).Flush()
			}
			return
		}
		unknown.Add(1)
		http.Error(w, "unknown request", http.StatusBadRequest)
	}))
	for _, c := range []struct {
		name     string
		flags    []string
		examined bool
		received []string // ids restored, as received, in order
		sent     []string // the same ids as sent
		unmatch  []string // ids that match nothing
	}{
		{"default limit", []string{"-v"}, false,
			[]string{`"1"`, `"3"`, `"2"`, `"4"`, `"5"`, `"6"`}, []string{`1`, `3`, `2`, `4`, `5`, `6`}, []string{`"99"`}},
		// The second answers to 5 and 6 come when no id is pending: -v
		// names them too (httpid examines responses while nothing is
		// remembered when someone listens for unmatched ids).
		{"-max-message-size " + bigLimit, []string{"-v", "-max-message-size", bigLimit}, true,
			[]string{`"1"`, `"3"`, `"2"`, `"4"`, `"5"`, `"6"`}, []string{`1`, `3`, `2`, `4`, `5`, `6`}, []string{`"99"`, `"5"`, `"6"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startProxy(t, srv.URL+"/rpc", c.flags...)
			hc := plainClient()
			for i, ex := range scripts[c.examined] {
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, strings.NewReader(ex.request))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := hc.Do(req)
				if err != nil {
					cancel()
					t.Fatalf("exchange %d: %v", i+1, err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				cancel()
				if err != nil {
					t.Fatalf("exchange %d: reading the body: %v", i+1, err)
				}
				var want []byte
				for _, piece := range ex.reply {
					want = append(want, piece.want...)
				}
				if resp.StatusCode != http.StatusOK {
					t.Errorf("exchange %d: status %s", i+1, resp.Status)
				}
				if ct := resp.Header.Get("Content-Type"); ct != ex.contentType {
					t.Errorf("exchange %d: Content-Type %q, want %q", i+1, ct, ex.contentType)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("exchange %d (request %s): %s", i+1, ex.request, firstDiff(got, want))
				}
				if resp.ContentLength != -1 && resp.ContentLength != int64(len(got)) {
					t.Errorf("exchange %d: ContentLength %d for %d bytes", i+1, resp.ContentLength, len(got))
				}
			}
			log, err := p.stopped(t)
			if err != nil {
				t.Errorf("rpcid proxy, stopped with SIGTERM: %v", err)
			}
			t.Run("-v", func(t *testing.T) {
				checkVerbose(t, log, c.received, c.sent, c.unmatch)
			})
		})
	}
	if n := unknown.Load(); n != 0 {
		t.Errorf("the server received %d requests that are not in the script", n)
	}
}

// TestProxyStreaming checks that the proxy passes each event of a stream on
// as it arrives (the server sends the second event only after the client has
// received the first) and that a client that goes away cancels the upstream
// request.
func TestProxyStreaming(t *testing.T) {
	t.Parallel()
	received := make(chan struct{})
	canceled := make(chan struct{})
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":\"first\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-received:
		case <-r.Context().Done():
			return
		case <-time.After(wait):
			return
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(canceled)
		case <-time.After(wait):
		}
	}))
	p := startProxy(t, srv.URL+"/mcp")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"slow"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := plainClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readEvent := func(want string) {
		t.Helper()
		got := make([]byte, len(want))
		if _, err := io.ReadFull(resp.Body, got); err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	readEvent("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"first\"}\n\n")
	close(received)
	readEvent("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
	resp.Body.Close()
	cancel()
	select {
	case <-canceled:
	case <-time.After(wait):
		t.Fatalf("the upstream request was not canceled within %v of the client going away", wait)
	}
	p.quiet(t)
}

// TestProxyUpstreams checks two kinds of upstream a real gateway often is:
// one reached over https, verified with the system's roots (here the test
// server's certificate, named by SSL_CERT_FILE, which Go reads on Unix), and
// one that compresses its responses with gzip when asked. In both the
// client receives the restored id.
func TestProxyUpstreams(t *testing.T) {
	t.Parallel()
	const want = `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`
	respond := func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		const body = `{"jsonrpc":"2.0","id":"1","result":{"ok":true}}`
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, body)
		zw.Close()
	}
	post := func(t *testing.T, url string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := plainClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != want {
			t.Errorf("client got %s %q, want %q", resp.Status, data, want)
		}
	}

	t.Run("https", func(t *testing.T) {
		t.Parallel()
		if runtime.GOOS == "darwin" || runtime.GOOS == "ios" || runtime.GOOS == "windows" {
			t.Skipf("on %s Go takes its roots from the system, not from SSL_CERT_FILE", runtime.GOOS)
		}
		srv := httptest.NewTLSServer(http.HandlerFunc(respond))
		t.Cleanup(srv.Close)
		certFile := filepath.Join(t.TempDir(), "cert.pem")
		cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		if err := os.WriteFile(certFile, cert, 0o600); err != nil {
			t.Fatal(err)
		}
		p := startProxyEnv(t, append(os.Environ(), "SSL_CERT_FILE="+certFile, "SSL_CERT_DIR="+t.TempDir()), srv.URL+"/mcp")
		post(t, p.URL)
		p.quiet(t)

		// Control: without the certificate among its roots the proxy
		// refuses the upstream (it verifies certificates).
		p = startProxy(t, srv.URL+"/mcp")
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := plainClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("upstream with an unknown certificate: status %s, want 502", resp.Status)
		}
	})

	t.Run("gzip", func(t *testing.T) {
		t.Parallel()
		var gzipped atomic.Int64
		srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				gzipped.Add(1)
			}
			respond(w, r)
		}))
		p := startProxy(t, srv.URL+"/mcp")
		post(t, p.URL)
		if gzipped.Load() == 0 {
			t.Errorf("the upstream was never asked for gzip, so nothing was compressed")
		}
		p.quiet(t)
	})
}

// TestProxyLongEvent is TestProxyStdioLongLine for HTTP: with
// -max-message-size 4096, a 20 MiB event passes through unchanged and
// streamed (the client receives its first MiB before the upstream writes the
// rest, which it does only when the client says so), the next event's id is
// restored, and the proxy's peak resident memory stays under 20 MiB (Linux
// only).
func TestProxyLongEvent(t *testing.T) {
	t.Parallel()
	gotHead := make(chan struct{})
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+longHead+strings.Repeat("x", 1<<20))
		w.(http.Flusher).Flush()
		select {
		case <-gotHead:
		case <-r.Context().Done():
			return
		case <-time.After(wait):
			return
		}
		io.WriteString(w, strings.Repeat("x", 19<<20)+longTail+"\n")
		io.WriteString(w, "data: "+longNext+"\n")
	}))
	p := startProxy(t, srv.URL+"/mcp", "-max-message-size", "4096")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"long"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := plainClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readWant := func(what, want string) {
		t.Helper()
		got := make([]byte, len(want))
		if n, err := io.ReadFull(resp.Body, got); err != nil {
			t.Fatalf("%s: %v after %d bytes", what, err, n)
		}
		if string(got) != want {
			t.Fatalf("%s: %s", what, firstDiff(got, []byte(want)))
		}
	}
	readWant("the first MiB of the long event", "data: "+longHead+strings.Repeat("x", 1<<20))
	close(gotHead)
	readWant("the rest of the long event", strings.Repeat("x", 19<<20)+longTail+"\n")
	readWant("the event after it", `data: {"jsonrpc":"2.0","id":1,"result":"short"}`+"\n\n")
	hwm := peakRSS(p.cmd.Process.Pid)
	p.quiet(t)
	if hwm < 0 {
		t.Logf("peak resident memory not measured: no /proc/PID/status on %s", runtime.GOOS)
		return
	}
	t.Logf("rpcid proxy peak resident memory: %d KiB", hwm>>10)
	if hwm >= 20<<20 {
		t.Errorf("rpcid proxy peak resident memory %d KiB: it held the 20 MiB event whole", hwm>>10)
	}
}
