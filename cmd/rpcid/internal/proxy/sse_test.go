package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// An endpoint event the proxy leaves alone is either relative (the client
// resolves it against the proxy's own URL) or reported: a client using the
// WHATWG URL parser (every browser, Node's URL, the TypeScript SDK) strips
// leading and trailing spaces and C0 controls, reads "\" as "/" in http and
// https URLs, and percent-encodes control characters, so values that Go's
// url.Parse rejects can still send the client's POSTs to the upstream or
// elsewhere, around the proxy.
func TestProxyEndpointDecision(t *testing.T) {
	target := &url.URL{Scheme: "http", Host: "gw.example:8080"}
	const proxy = "127.0.0.1:8939"
	for _, tc := range []struct {
		value, rewritten string
		reported         bool // left alone and reported
	}{
		{"/messages?s=1", "", false},
		{"messages", "", false},
		{"?s=1", "", false},
		{"#f", "", false},
		{"", "", false},
		{"http://gw.example:8080/m?s=1", "http://" + proxy + "/m?s=1", false},
		{"//gw.example:8080/m", "http://" + proxy + "/m", false},
		{" http://gw.example:8080/m", "http://" + proxy + "/m", false},
		{"\t\x01http://gw.example:8080/m ", "http://" + proxy + "/m ", false},
		{"http://other.example/m", "", true},
		{" http://other.example/m", "", true},
		{"http:\\\\gw.example:8080/m", "", true},
		{"\\\\gw.example:8080/m", "", true},
		{"/\\gw.example:8080/m", "", true},
		{"\\/other.example/m", "", true},
		{"http://gw.example:8080\\@other.example/m", "", true},
		{"http://other.example/\x1b[31m", "", true},
		{"http://gw.example:8080/\x1b[31m", "", true},
		{"ht\ttp://other.example/m", "", true},
		{"https:other.example/m", "", true},
		{"mailto:x@other.example", "", true},
	} {
		got := rewriteEndpoint([]byte(tc.value), target, proxy)
		if string(got) != tc.rewritten || (got == nil) != (tc.rewritten == "") {
			t.Errorf("rewriteEndpoint(%q) = %q, want %q", tc.value, got, tc.rewritten)
		}
		if got == nil {
			if rep := !endpointRelative([]byte(tc.value)); rep != tc.reported {
				t.Errorf("%q: reported %v, want %v", tc.value, rep, tc.reported)
			}
		}
	}
}

// Through the proxy: an endpoint with a leading space is rewritten, one
// Go cannot parse is passed on and reported.
func TestProxyEndpointOddValues(t *testing.T) {
	var upURL string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		switch r.URL.Path {
		case "/space":
			io.WriteString(w, "event: endpoint\ndata:  "+upURL+"/m\n\n")
		case "/backslash":
			io.WriteString(w, "event: endpoint\ndata: "+upURL+"\\@other.example/m\n\n")
		}
	}))
	defer up.Close()
	upURL = up.URL
	p := startProxy(t, up.URL+"/sse")
	if _, body := do(t, newRequest(t, "GET", p.url+"/space", "")); body != "event: endpoint\ndata: "+p.url+"/m\n\n" {
		t.Errorf("GET /space: client read %q, want the endpoint rewritten to the proxy", body)
	}
	want := "event: endpoint\ndata: " + upURL + "\\@other.example/m\n\n"
	if _, body := do(t, newRequest(t, "GET", p.url+"/backslash", "")); body != want {
		t.Errorf("GET /backslash: client read %q, want %q", body, want)
	}
	if w := `rpcid proxy: endpoint event ` + upURL + `\@other.example/m passes unchanged: the proxy cannot tell`; !strings.Contains(p.stderr.String(), w) {
		t.Errorf("stderr lacks %q:\n%s", w, p.stderr.String())
	}
}

// An endpoint event split over two data lines is one URL to the client,
// which joins them with a line break that URL parsers drop: one naming the
// upstream is passed on (the proxy rewrites single lines only) but reported,
// not passed silently around the proxy.
func TestProxyEndpointTwoDataLines(t *testing.T) {
	var upURL string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/rel" {
			io.WriteString(w, "event: endpoint\ndata: /messages\ndata: ?s=1\n\n")
			return
		}
		io.WriteString(w, "event: endpoint\ndata: "+upURL+"\ndata: /messages\n\n")
	}))
	defer up.Close()
	upURL = up.URL
	p := startProxy(t, up.URL+"/sse")
	want := "event: endpoint\ndata: " + upURL + "\ndata: /messages\n\n"
	if _, body := do(t, newRequest(t, "GET", p.url+"/sse", "")); body != want {
		t.Errorf("client read %q, want %q", body, want)
	}
	if _, body := do(t, newRequest(t, "GET", p.url+"/rel", "")); body != "event: endpoint\ndata: /messages\ndata: ?s=1\n\n" {
		t.Errorf("GET /rel: client read %q", body)
	}
	p.stop(t)
	log := p.stderr.String()
	if w := `rpcid proxy: endpoint event "` + upURL + `\n/messages" passes unchanged: it has 2 data lines`; !strings.Contains(log, w) {
		t.Errorf("stderr lacks %q:\n%s", w, log)
	}
	if strings.Contains(log, "/messages\\n?s=1") {
		t.Errorf("a relative endpoint over two lines was reported:\n%s", log)
	}
}

// legacyGateway is a gateway on the 2024-11-05 HTTP+SSE transport that
// turns every response id into a string: GET /sse opens a session's stream,
// whose endpoint event names /messages?PARAM=SESSION; a POST there is
// answered 202, and its response is sent on its session's stream once
// every session has posted (so that all requests are in flight at once).
type legacyGateway struct {
	param string // the query parameter that names the session
	posts int    // POSTs to wait for before answering
	mu    sync.Mutex
	n     int
	next  int
	stms  map[string]chan string // each session's stream, by session
	held  []func()               // the answers, once every POST arrived
}

func (g *legacyGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		g.mu.Lock()
		g.next++
		session := fmt.Sprintf("s%d", g.next)
		ch := make(chan string, 4)
		g.stms[session] = ch
		g.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: /messages?%s=%s\n\n", g.param, session)
		w.(http.Flusher).Flush()
		for {
			select {
			case ev := <-ch:
				io.WriteString(w, ev)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		session := r.URL.Query().Get(g.param)
		id := regexp.MustCompile(`"id":("?1"?)`).FindSubmatch(body)
		g.mu.Lock()
		ch := g.stms[session]
		if ch == nil || id == nil {
			g.mu.Unlock()
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		g.held = append(g.held, func() { ch <- "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\n\n" })
		if g.n++; g.n == g.posts {
			for _, f := range g.held {
				f()
			}
		}
		g.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}
}

// Two clients on the 2024-11-05 HTTP+SSE transport through one proxy: A
// sends "id":1 and B "id":"1", and the gateway answers "1" on each
// client's own stream. Each must read its own spelling: the stream's
// responses answer the requests of the session its endpoint event named.
func TestProxyLegacySSESessions(t *testing.T) {
	for _, param := range []string{"sessionId", "session_id", "sessionid"} {
		for _, order := range [][2]int{{0, 1}, {1, 0}} {
			t.Run(fmt.Sprintf("%s/%d%d", param, order[0], order[1]), func(t *testing.T) {
				g := &legacyGateway{param: param, posts: 2, stms: map[string]chan string{}}
				up := httptest.NewServer(g)
				defer up.Close()
				p := startProxy(t, up.URL)
				ids := []string{`1`, `"1"`}
				type client struct {
					events   *bufio.Reader
					endpoint string
					body     io.Closer
				}
				clients := make([]client, 2)
				for i := range clients {
					req := newRequest(t, "GET", p.url+"/sse", "")
					resp, err := testClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					defer resp.Body.Close()
					br := bufio.NewReader(resp.Body)
					ev := readEvent(t, br)
					endpoint, ok := strings.CutPrefix(ev, "event: endpoint\ndata: ")
					if !ok {
						t.Fatalf("first event %q", ev)
					}
					clients[i] = client{br, endpoint, resp.Body}
				}
				for _, i := range order {
					req := newRequest(t, "POST", p.url+clients[i].endpoint, `{"jsonrpc":"2.0","id":`+ids[i]+`,"method":"ping"}`)
					if resp, body := do(t, req); resp.StatusCode != http.StatusAccepted {
						t.Fatalf("POST: status %d %s", resp.StatusCode, body)
					}
				}
				for i, c := range clients {
					want := `event: message` + "\n" + `data: {"jsonrpc":"2.0","id":` + ids[i] + `,"result":{}}`
					if got := readEvent(t, c.events); got != want {
						t.Errorf("client %d, which sent id %s, read %q, want %q", i, ids[i], got, want)
					}
				}
			})
		}
	}
}

// readEvent reads one event (up to its blank line, which it drops) from
// br, within the bounded wait.
func readEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	type result struct {
		ev  string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var lines []string
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				ch <- result{strings.Join(lines, "\n"), err}
				return
			}
			line = strings.TrimSuffix(line, "\n")
			if line == "" {
				ch <- result{strings.Join(lines, "\n"), nil}
				return
			}
			lines = append(lines, line)
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("reading an event: %v after %q", r.err, r.ev)
		}
		return r.ev
	case <-time.After(wait):
		t.Fatalf("no event within %v", wait)
	}
	return ""
}
