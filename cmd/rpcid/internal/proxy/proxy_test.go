package proxy

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// terminalUnsafe returns the first rune (or invalid byte, as
// utf8.RuneError) in s that a terminal acts on or that changes how a line
// reads: C0 and C1 controls, DEL, format characters such as the bidi
// override U+202E, line and paragraph separators; ok is false if there is
// none. The final LF of each line is allowed.
func terminalUnsafe(s string) (r rune, ok bool) {
	for _, line := range strings.SplitAfter(s, "\n") {
		line = strings.TrimSuffix(line, "\n")
		for i := 0; i < len(line); {
			r, n := utf8.DecodeRuneInString(line[i:])
			if r == utf8.RuneError && n == 1 || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
				return r, true
			}
			i += n
		}
	}
	return 0, false
}

// rawRequest writes req (a whole HTTP/1.1 request) to addr and returns the
// status line of the response.
func rawRequest(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the response to %q: %v", req, err)
	}
	return strings.TrimRight(line, "\r\n")
}

// Text the proxy logs from a request path, an upstream's id or endpoint
// event cannot drive the terminal or forge a log line: a page on another
// site can make a browser send such a request (it is refused, and logged
// with -v), and the upstream chooses its ids and events.
func TestProxyLogIsTerminalSafe(t *testing.T) {
	// The upstream answers with ids and an endpoint event holding raw
	// U+202E (right-to-left override) and U+009B (the C1 control CSI),
	// valid in JSON strings and in URLs.
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("event: endpoint\ndata: http://elsewhere.example/\u009b2J\u202emessages\n\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"jsonrpc":"2.0","id":"` + "\u202e\u009b31m" + `","result":{}},` +
			`{"jsonrpc":"2.0","id":"` + "\u2028x\u009b" + `","result":{}}]`))
	}))
	defer up.Close()
	p := startProxy(t, up.URL+"/mcp", "-v")

	got := rawRequest(t, p.addr, "GET /%1b[31mred%e2%80%ae%0arpcid%20proxy:%20forged HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
	if !strings.Contains(got, " 403 ") {
		t.Errorf("request for evil.example: %s, want 403", got)
	}
	// The request id is JSON-escaped; the upstream's id has the same
	// characters raw, so it is restored.
	resp, body := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":"\u202e\u009b31m","method":"m"}`))
	if resp.StatusCode != 200 || !strings.Contains(body, `"id":"\u202e\u009b31m"`) {
		t.Errorf("POST: %s %q, want 200 and the id restored", resp.Status, body)
	}
	resp, body = do(t, newRequest(t, "GET", p.url+"/sse", ""))
	if resp.StatusCode != 200 || !strings.Contains(body, "\u009b2J\u202e") {
		t.Errorf("GET: %s %q, want 200 and the event as sent", resp.Status, body)
	}
	p.stop(t)
	log := p.stderr.String()
	if r, bad := terminalUnsafe(log); bad {
		t.Errorf("stderr holds %U raw:\n%q", r, log)
	}
	for _, want := range []string{
		"rpcid proxy: refused GET /%1b[31mred%e2%80%ae%0arpcid%20proxy:%20forged: Host \"evil.example\" is not this proxy's address",
		`rpcid proxy: restored response id "\"\u202e\u009b31m\"" (Go-quoted) to "\u202e\u009b31m"` + "\n",
		`rpcid proxy: response id "\"\u2028x\u009b\"" (Go-quoted) matches no`,
		`rpcid proxy: endpoint event names "http://elsewhere.example/\u009b2J\u202emessages", which is not the upstream`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		if !strings.HasPrefix(line, "rpcid proxy: ") {
			t.Errorf("stderr line %q is not one of the proxy's", line)
		}
	}
}

func TestLogID(t *testing.T) {
	long := `"` + strings.Repeat("a", 100) + `"`
	longUnsafe := `"` + strings.Repeat("\u202e", 40) + `"`
	for _, tc := range []struct{ raw, want string }{
		{`3`, `3`},
		{`"3"`, `"3"`},
		{`"\u202e"`, `"\u202e"`}, // escaped in JSON: shown as it is
		{`"é"`, `"é"`},
		{"\"\u202e\"", `"\"\u202e\"" (Go-quoted)`},
		{"\"\u00ad\"", `"\"\u00ad\"" (Go-quoted)`}, // soft hyphen, a format character
		{"\"\u0085\"", `"\"\u0085\"" (Go-quoted)`}, // NEL, a C1 control
		{"\"\x9b\"", `"\"\x9b\"" (Go-quoted)`},     // not UTF-8
		{"\"\x1b\"", `"\"\x1b\"" (Go-quoted)`},
		{long, long[:80] + "... (102 bytes)"},
		{longUnsafe, `"\"` + strings.Repeat(`\u202e`, 26) + `"... (Go-quoted, 122 bytes)`},
	} {
		if got := logID([]byte(tc.raw)); got != tc.want {
			t.Errorf("logID(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// A response id that matches no remembered request id is not said to match
// no request sent: here the request was sent, and its id forgotten when its
// first response came.
func TestProxyUnmatchedMessageIsTrue(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	script := `read line; echo '{"jsonrpc":"2.0","id":"1","result":1}'; echo '{"jsonrpc":"2.0","id":"1","result":2}'`
	code, stdout, stderr := runProxyArgs(t, `{"jsonrpc":"2.0","id":1,"method":"m"}`+"\n", "-v", "--", "sh", "-c", script)
	want := `{"jsonrpc":"2.0","id":1,"result":1}` + "\n" + `{"jsonrpc":"2.0","id":"1","result":2}` + "\n"
	if code != 0 || stdout != want {
		t.Errorf("exit status %d, stdout %q; want 0, %q", code, stdout, want)
	}
	if strings.Contains(stderr, "no request sent") {
		t.Errorf("stderr says a request that was sent was not:\n%s", stderr)
	}
	if w := `rpcid proxy: response id "1" matches no remembered request id` + "\n"; !strings.Contains(stderr, w) {
		t.Errorf("stderr lacks %q:\n%s", w, stderr)
	}
}

// A failingWriter fails every write with err.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// The -v summary counts as forwarded only the requests the upstream
// answered: not one answered 503 because its id could not be recorded, nor
// one the upstream could not be reached for.
func TestProxySummaryForwardedIsTrue(t *testing.T) {
	release := make(chan struct{})
	var hits atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-release:
		case <-time.After(wait):
		}
	}))
	defer up.Close()
	p := startProxy(t, up.URL, "-v", "-max-pending", "1")
	first := make(chan struct{})
	go func() {
		defer close(first)
		if resp, err := testClient.Do(newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"m"}`)); err == nil {
			resp.Body.Close()
		}
	}()
	deadline := time.Now().Add(wait)
	for hits.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if resp, _ := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"m"}`)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("second request: %s, want 503", resp.Status)
	}
	close(release)
	<-first
	p.stop(t)
	if w := "rpcid proxy: 1 request forwarded ("; !strings.Contains(p.stderr.String(), w) {
		t.Errorf("stderr lacks %q:\n%s", w, p.stderr.String())
	}

	// An upstream that cannot be reached: nothing is forwarded.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	p = startProxy(t, dead, "-v")
	if resp, _ := do(t, newRequest(t, "GET", p.url+"/mcp", "")); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("GET with the upstream down: %s, want 502", resp.Status)
	}
	p.stop(t)
	if w := "rpcid proxy: 0 requests forwarded ("; !strings.Contains(p.stderr.String(), w) {
		t.Errorf("stderr lacks %q:\n%s", w, p.stderr.String())
	}
}

// URL errors say what is wrong with that URL: "http://@host" has an empty
// user name and no password, and a port above 65535 cannot be reached.
func TestProxyArgsURLMessages(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://@gw.example/mcp", "holds user information"},
		{"http://user@gw.example/mcp", "holds user information"},
		{"https://user:pw@gw.example/mcp", "holds user information"},
		{"http://gw.example:99999/mcp", "port 99999 is out of range"},
		{"http://gw.example:0/mcp", "port 0 is out of range"},
	} {
		var stdout, stderr strings.Builder
		_, code, ok := parseProxyArgs([]string{tc.url}, &stdout, &stderr)
		if ok || code != 2 || !strings.Contains(stderr.String(), tc.want) || strings.Contains(stderr.String(), "holds credentials") {
			t.Errorf("proxy %s: ok %v, status %d, stderr %q; want status 2 and %q", tc.url, ok, code, stderr.String(), tc.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"},
		{"http://127.0.0.1:8080/mcp?api_key=SECRET123", "http://127.0.0.1:8080/mcp?api_key=xxxxx"},
		{"https://gw.example/mcp?a=1&b=&c;d=2#frag", "https://gw.example/mcp?a=xxxxx&b=&xxxxx;d=xxxxx#xxxxx"},
		{"https://gw.example/?SECRET123", "https://gw.example/?xxxxx"},
		{"https://gw.example/mcp#access_token=SECRET123", "https://gw.example/mcp#access_token=xxxxx"},
		{"http://user:SECRET123@gw.example/mcp", "http://user:xxxxx@gw.example/mcp"},
		{"http://user@gw.example/mcp", "http://user@gw.example/mcp"},
		{"http://u:p:q@a@gw.example:99/x?y=1", "http://u:xxxxx@gw.example:99/x?y=xxxxx"},
		{"http://h/p@q:r", "http://h/p@q:r"}, // an @ in the path is no user information
		{"http://127.0.0.1:1\\@other.example/m", "http://127.0.0.1:1\\@other.example/m"},
		{"/messages?sessionId=abc", "/messages?sessionId=xxxxx"},
		{"gw.example:8080/mcp?k=SECRET123", "gw.example:8080/mcp?k=xxxxx"},
		{"?", "?"},
		{"", ""},
	} {
		if got := redactURL(tt.in); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// No message the proxy prints holds the upstream URL's token or password:
// usage errors about the URL, and any line that quotes a request's URL
// (an error from below, say).
func TestProxyMessagesRedactURL(t *testing.T) {
	for _, u := range []string{
		"http://user:SECRET123@gw.example/mcp",
		"ftp://gw.example/mcp?api_key=SECRET123",
		"gw.example/mcp?api_key=SECRET123",
		"http://gw.example:99999/mcp?api_key=SECRET123",
		"http://gw.example/%zz?api_key=SECRET123",
		"http:///mcp?api_key=SECRET123",
		"http://u:SECRET123@[::1/mcp",
	} {
		var stdout, stderr strings.Builder
		if _, code, ok := parseProxyArgs([]string{u}, &stdout, &stderr); ok || code != 2 {
			t.Errorf("URL %q: parsed (%v, %d), want a usage error", u, ok, code)
		}
		if strings.Contains(stderr.String(), "SECRET") || !strings.Contains(stderr.String(), "URL ") {
			t.Errorf("URL %q: stderr %q: want the URL's problem without its secret", u, stderr.String())
		}
	}
	var stderr strings.Builder
	lg := &proxyLog{w: &stderr, query: "api_key=SECRET123&v=1"}
	lg.printf("POST %s: %v", "/mcp", errors.New(`Post "http://gw.example/mcp?api_key=SECRET123&v=1&client=2": EOF`))
	if want := "rpcid proxy: POST /mcp: Post \"http://gw.example/mcp?api_key=xxxxx&v=xxxxx&client=2\": EOF\n"; stderr.String() != want {
		t.Errorf("log line %q, want %q", stderr.String(), want)
	}
}
