package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// Cases from the hostile review of rpcid proxy.

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

// The stdio summary counts lines, not messages: a line of binary garbage or
// plain text is no JSON-RPC message, and the proxy does not parse lines it
// passes unexamined.
func TestProxyStdioSummaryCountsLines(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	in := "\x00\xff\x1b[2J not json\n" + `{"jsonrpc":"2.0","id":1,"method":"m"}` + "\n"
	code, _, stderr := runProxyArgs(t, in, "-v", "--", "sh", "-c", `cat >/dev/null; echo 'plain text'`)
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr)
	}
	if w := "rpcid proxy: 3 lines (2 from the client, 1 from the command); 0 ids restored, 0 unmatched\n"; !strings.HasSuffix(stderr, w) {
		t.Errorf("stderr ends %q, want %q", stderr, w)
	}
}

// When the client closes its end of the proxy's standard output, COMMAND
// sees what it would see without the proxy: its own standard output closed
// for reading, so that its next write fails, and the end of its input. The
// proxy reads and discards nothing, so a command that writes forever and
// never reads its input (whose input is not closed here) is not kept alive.
// The proxy is not killed by SIGPIPE, which Go's runtime raises for a write
// to a broken pipe on standard output: it waits for COMMAND, logs why it
// stopped and its summary (-v) and exits with COMMAND's status.
func TestProxyStdioClientClosesOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses SIGPIPE")
	}
	bin := buildRpcid(t)
	tests := []struct {
		mode string
		want int
	}{
		{"flood", 128 + int(syscall.SIGPIPE)}, // ended by SIGPIPE on its next write
		{"flood-nosigpipe", 7},                // its write failed and its input ended
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Setenv("RPCID_PROXY_HELPER_EXIT", "7")
			cmd := exec.Command(bin, append([]string{"proxy", "-v", "--"}, helperCommand(t, tt.mode)...)...)
			var stderr syncBuffer
			cmd.Stderr = &stderr
			stdout := startPiped(t, cmd) // its standard input kept open: the client does not close its end
			line, err := bufio.NewReader(stdout).ReadString('\n')
			pid, perr := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || perr != nil {
				t.Fatalf("first line %q, %v: want the command's process id", line, err)
			}
			stdout.Close()
			err = waitBounded(t, cmd)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || exitStatus(ee.ProcessState) != tt.want {
				t.Errorf("proxy ended with %v, want exit status %d (COMMAND's); stderr:\n%s", err, tt.want, stderr.String())
			}
			got := stderr.String()
			if w := "rpcid proxy: standard output closed: write /dev/stdout: broken pipe; closing the command's standard output and input\n"; !strings.HasPrefix(got, w) {
				t.Errorf("stderr %q, want it to start %q", got, w)
			}
			if !regexp.MustCompile(`\nrpcid proxy: [0-9]+ lines \(0 from the client, [0-9]+ from the command\); 0 ids restored, 0 unmatched\n$`).MatchString(got) {
				t.Errorf("stderr %q, want it to end with the summary", got)
			}
			if runtime.GOOS != "linux" {
				t.Skip("the command's end was seen by the proxy's exit only: alive reads /proc, which is Linux's")
			}
			if alive(pid) {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
				t.Errorf("the command (process %d) still runs after the proxy exited", pid)
			}
		})
	}
}

// When a write to standard output fails, the command's standard output and
// input are closed, whatever the error; a broken pipe (the client went away)
// is logged with -v only, another error always.
func TestProxyStdioOutputFails(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses SIGPIPE")
	}
	epipe := &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	enospc := &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	tests := []struct {
		err     error
		verbose bool
		want    string // stderr before the summary
	}{
		{epipe, true, "rpcid proxy: standard output closed: write /dev/stdout: broken pipe; closing the command's standard output and input\n"},
		{epipe, false, ""},
		{enospc, false, "rpcid proxy: cannot write to standard output: write /dev/stdout: no space left on device; closing the command's standard output and input\n"},
	}
	summary := regexp.MustCompile(`rpcid proxy: [0-9]+ lines? \(0 from the client, [0-9]+ from the command\); 0 ids restored, 0 unmatched\n$`)
	for _, tt := range tests {
		cmd := helperCommand(t, "flood")
		stdinR, stdinW := io.Pipe() // kept open: the client does not close its end
		var stderr bytes.Buffer
		done := make(chan int, 1)
		go func() {
			cfg := proxyConfig{command: cmd, verbose: tt.verbose, maxPending: 16, maxMessageSize: 1 << 10}
			done <- proxyStdio(cfg, stdinR, failingWriter{tt.err}, &stderr, make(chan os.Signal))
		}()
		select {
		case code := <-done:
			if want := 128 + int(syscall.SIGPIPE); code != want {
				t.Errorf("%v, -v %v: exit status %d, want %d (SIGPIPE ended the command)", tt.err, tt.verbose, code, want)
			}
			got := stderr.String()
			if tt.verbose {
				got = summary.ReplaceAllString(got, "")
			}
			if got != tt.want {
				t.Errorf("%v, -v %v: stderr %q, want %q (and the summary with -v)", tt.err, tt.verbose, stderr.String(), tt.want)
			}
		case <-time.After(wait):
			t.Fatalf("%v: the proxy did not end within %v after its output failed", tt.err, wait)
		}
		stdinW.Close()
	}
}

// When COMMAND closes its standard input and lives on, the client's next
// write fails as it would without the proxy, instead of blocking once the
// pipe to the proxy is full.
func TestProxyStdioCommandClosesInput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	stdinR, stdinW, sig, done := startReadyProxy(t, "closein", io.Discard)
	wrote := make(chan error, 1)
	go func() {
		line := []byte(`{"jsonrpc":"2.0","method":"n"}` + "\n")
		for {
			if _, err := stdinW.Write(line); err != nil {
				wrote <- err
				return
			}
		}
	}()
	select {
	case err := <-wrote:
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("the client's write failed with %v, want %v (the proxy closed its standard input)", err, io.ErrClosedPipe)
		}
	case <-time.After(wait):
		stdinR.Close()
		t.Errorf("the client's writes did not fail within %v after the command closed its input", wait)
	}
	sig <- syscall.SIGTERM
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit status %d, want 0 (the command's after SIGTERM)", code)
		}
	case <-time.After(wait):
		t.Fatal("proxy did not end after SIGTERM")
	}
}

// A failingWriter fails every write with err.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

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
