package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rpcid/rpcid/internal/restore"
)

// scopeUpstream is a gateway in front of a JSON-RPC server, on 127.0.0.1,
// that turns every id into a string and answers each POST in its own
// response body: as application/json when the test releases it, or, for a
// method named "ends-early", at once as an event stream that ends without
// the response. A GET gets an event stream with the responses the test sends on
// late.
type scopeUpstream struct {
	*httptest.Server
	arrived chan string              // the method of each POST, as it arrives
	release map[string]chan struct{} // per method: answer now
	late    chan string              // responses for the next GET stream
	ids     *regexp.Regexp           // a request's id and method
}

func newScopeUpstream(t *testing.T, methods ...string) *scopeUpstream {
	u := &scopeUpstream{
		arrived: make(chan string, 8),
		release: make(map[string]chan struct{}),
		late:    make(chan string, 1),
		ids:     regexp.MustCompile(`^\{"jsonrpc":"2\.0","id":("?)([^",]*)"?,"method":"([^"]*)"\}$`),
	}
	for _, m := range methods {
		u.release[m] = make(chan struct{})
	}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Close)
	return u
}

func (u *scopeUpstream) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		select {
		case msg := <-u.late:
			io.WriteString(w, "event: message\ndata: "+msg+"\n\n")
		case <-time.After(wait):
		}
		return
	}
	body, _ := io.ReadAll(r.Body)
	m := u.ids.FindSubmatch(body)
	if m == nil {
		http.Error(w, "not a request this gateway knows", http.StatusBadRequest)
		return
	}
	method := string(m[3])
	u.arrived <- method
	if method == "ends-early" {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": the response will come later\n\n")
		return
	}
	select {
	case <-u.release[method]:
	case <-time.After(wait):
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":"`+string(m[2])+`","result":{"method":"`+method+`"}}`)
}

// waitArrived waits for a POST of method to reach the upstream.
func (u *scopeUpstream) waitArrived(t *testing.T, method string) {
	t.Helper()
	select {
	case m := <-u.arrived:
		if m != method {
			t.Fatalf("upstream got %s, want %s", m, method)
		}
	case <-time.After(wait):
		t.Fatalf("%s did not reach the upstream", method)
	}
}

// sendAsync sends body to url with a client of its own (a connection of its
// own), as a POST, or as a GET for an event stream if body is "", with
// Mcp-Session-Id session unless it is "", and delivers the response body
// read, or the error.
func sendAsync(url, body, session string) <-chan string {
	got := make(chan string, 1)
	go func() {
		c := &http.Client{Transport: &http.Transport{}, Timeout: wait}
		defer c.CloseIdleConnections()
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if body != "" {
			req, err = http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		}
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		} else {
			req.Header.Set("Accept", "text/event-stream")
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := c.Do(req)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(b)
	}()
	return got
}

func await(t *testing.T, got <-chan string, who string) string {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(wait):
		t.Fatalf("%s: no response within %v", who, wait)
	}
	return ""
}

// stopBinary ends an rpcid proxy started by startBinary with SIGTERM and
// returns the lines it wrote to standard error after its start line.
func stopBinary(t *testing.T, cmd *exec.Cmd, lines <-chan string) []string {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	var rest []string
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				if err := waitBounded(t, cmd); err != nil {
					t.Errorf("after SIGTERM: %v, want exit status 0", err)
				}
				return rest
			}
			rest = append(rest, l)
		case <-time.After(wait):
			t.Fatal("stderr did not end after SIGTERM")
		}
	}
}

// TestProxyBinaryOwnExchange runs the built rpcid proxy as a separate process
// in HTTP mode, with -v, between two clients and a gateway that turns every
// id into a string: client A posts id 1, then client B posts id "1" while A's
// request is in flight, and each POST is answered in its own response body.
// Each client must read the id it sent, whichever answer comes first.
// Before matching was scoped to the exchange, A read "1" (B's request,
// spelled as received, took A's answer) and B read 1. In the orphan
// variant, B's POST is answered with an event stream that ends without the
// response, then A posts 1 and must read 1, not "1" left unrestored because
// B's orphan was spelled as received; B's answer arrives later on a GET
// stream and -v says that it answered a request of another HTTP request. In
// the session variant, two MCP sessions' orphans, 1 and "1", are answered on
// GET streams with each session's Mcp-Session-Id, each of which answers its
// own session's request.
func TestProxyBinaryOwnExchange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	bin := buildRpcid(t)
	const (
		reqA = `{"jsonrpc":"2.0","id":1,"method":"A"}`
		reqB = `{"jsonrpc":"2.0","id":"1","method":"B"}`
	)
	for _, first := range []string{"A", "B"} {
		t.Run("in-flight/"+first+"-answered-first", func(t *testing.T) {
			up := newScopeUpstream(t, "A", "B")
			cmd := exec.Command(bin, "proxy", "-v", "-listen", "127.0.0.1:0", up.URL+"/mcp")
			addr, lines := startBinary(t, cmd)
			url := "http://" + addr + "/mcp"
			got := map[string]<-chan string{"A": sendAsync(url, reqA, "")}
			up.waitArrived(t, "A")
			got["B"] = sendAsync(url, reqB, "")
			up.waitArrived(t, "B")
			want := map[string]string{
				"A": `{"jsonrpc":"2.0","id":1,"result":{"method":"A"}}`,
				"B": `{"jsonrpc":"2.0","id":"1","result":{"method":"B"}}`,
			}
			for _, k := range []string{first, map[string]string{"A": "B", "B": "A"}[first]} {
				close(up.release[k])
				if body := await(t, got[k], k); body != want[k] {
					t.Errorf("client %s read %s, want %s", k, body, want[k])
				}
			}
			log := strings.Join(stopBinary(t, cmd, lines), "\n")
			for _, s := range []string{
				`rpcid proxy: restored response id "1" to 1`,
				`rpcid proxy: 2 requests forwarded (2 request ids recorded, 2 response ids examined); 1 id restored, 0 unmatched`,
			} {
				if !strings.Contains(log, s) {
					t.Errorf("stderr lacks %q:\n%s", s, log)
				}
			}
			if strings.Contains(log, "another HTTP request") {
				t.Errorf("stderr says a response answered another HTTP request's, and none did:\n%s", log)
			}
		})
	}

	t.Run("orphan", func(t *testing.T) {
		up := newScopeUpstream(t, "ends-early", "A")
		cmd := exec.Command(bin, "proxy", "-v", "-listen", "127.0.0.1:0", up.URL+"/mcp")
		addr, lines := startBinary(t, cmd)
		url := "http://" + addr + "/mcp"
		b := sendAsync(url, `{"jsonrpc":"2.0","id":"1","method":"ends-early"}`, "")
		up.waitArrived(t, "ends-early")
		if body := await(t, b, "B"); body != ": the response will come later\n\n" {
			t.Fatalf("client B read %q, want the event stream without the response", body)
		}
		a := sendAsync(url, reqA, "")
		up.waitArrived(t, "A")
		close(up.release["A"])
		if body, want := await(t, a, "A"), `{"jsonrpc":"2.0","id":1,"result":{"method":"A"}}`; body != want {
			t.Errorf("client A read %s, want %s", body, want)
		}
		// B's answer, late, on a GET stream: it answers B's orphan.
		up.late <- `{"jsonrpc":"2.0","id":"1","result":{"method":"ends-early"}}`
		stream := sendAsync(url, "", "")
		if body, want := await(t, stream, "GET"), "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"method\":\"ends-early\"}}\n\n"; body != want {
			t.Errorf("GET stream read %q, want %q", body, want)
		}
		log := strings.Join(stopBinary(t, cmd, lines), "\n")
		for _, s := range []string{
			`rpcid proxy: restored response id "1" to 1`,
			`rpcid proxy: response id "1" answers request id "1" of another HTTP request, whose response had ended without it`,
			`rpcid proxy: 3 requests forwarded (2 request ids recorded, 2 response ids examined); 1 id restored, 0 unmatched`,
		} {
			if !strings.Contains(log, s) {
				t.Errorf("stderr lacks %q:\n%s", s, log)
			}
		}
		if n := strings.Count(log, "another HTTP request"); n != 1 {
			t.Errorf("stderr says %d times that a response answered another HTTP request's, want once:\n%s", n, log)
		}
	})

	// Two MCP sessions each leave an id orphaned, 1 and "1"; each answer
	// comes on a GET stream of its own session (the standalone stream, or
	// resumption with Last-Event-ID), which answers its session's request
	// first. Before, the first GET's "1" answered the other session's "1".
	for _, first := range []string{"a", "b"} {
		t.Run("session-GET/"+first+"-first", func(t *testing.T) {
			up := newScopeUpstream(t)
			cmd := exec.Command(bin, "proxy", "-v", "-listen", "127.0.0.1:0", up.URL+"/mcp")
			addr, lines := startBinary(t, cmd)
			url := "http://" + addr + "/mcp"
			sent := map[string]string{"a": `1`, "b": `"1"`}
			for _, session := range []string{"a", "b"} {
				got := sendAsync(url, `{"jsonrpc":"2.0","id":`+sent[session]+`,"method":"ends-early"}`, session)
				up.waitArrived(t, "ends-early")
				if body := await(t, got, session); strings.Contains(body, "result") {
					t.Fatalf("session %s read %q, want no response", session, body)
				}
			}
			for _, session := range []string{first, map[string]string{"a": "b", "b": "a"}[first]} {
				up.late <- `{"jsonrpc":"2.0","id":"1","result":{}}`
				want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + sent[session] + ",\"result\":{}}\n\n"
				if body := await(t, sendAsync(url, "", session), "GET "+session); body != want {
					t.Errorf("GET of session %s, which sent %s, read %q, want %q", session, sent[session], body, want)
				}
			}
			log := strings.Join(stopBinary(t, cmd, lines), "\n")
			for _, s := range []string{
				`rpcid proxy: restored response id "1" to 1`,
				`rpcid proxy: response id "1" answers request id 1 of another HTTP request in the same MCP session, whose response had ended without it`,
				`rpcid proxy: response id "1" answers request id "1" of another HTTP request in the same MCP session, whose response had ended without it`,
			} {
				if !strings.Contains(log, s) {
					t.Errorf("stderr lacks %q:\n%s", s, log)
				}
			}
		})
	}
}

// TestProxyLogElsewhere checks the -v line for each kind of match with
// another HTTP request's request, and that without -v there is none.
func TestProxyLogElsewhere(t *testing.T) {
	for _, tt := range []struct {
		m    restore.Elsewhere
		want string
	}{
		{restore.Elsewhere{Received: []byte(`"1"`), Sent: []byte(`1`)},
			`rpcid proxy: response id "1" answers request id 1 of another HTTP request, which is still in flight` + "\n"},
		{restore.Elsewhere{Received: []byte(`1.0`), Sent: []byte(`"1"`), Ended: true},
			`rpcid proxy: response id 1.0 answers request id "1" of another HTTP request, whose response had ended without it` + "\n"},
		{restore.Elsewhere{Received: []byte(`"7"`), Sent: []byte(`7`), Session: true},
			`rpcid proxy: response id "7" answers request id 7 of another HTTP request in the same MCP session, which is still in flight` + "\n"},
		{restore.Elsewhere{Received: []byte(`"\u202e"`), Sent: []byte(`"` + "\u202e" + `"`), Ended: true, Session: true},
			`rpcid proxy: response id "\u202e" answers request id "\"\u202e\"" (Go-quoted) of another HTTP request in the same MCP session, whose response had ended without it` + "\n"},
	} {
		var b strings.Builder
		(&proxyLog{w: &b, verbose: true}).elsewhere(tt.m)
		if b.String() != tt.want {
			t.Errorf("elsewhere(%+v) wrote\n%q, want\n%q", tt.m, b.String(), tt.want)
		}
		b.Reset()
		(&proxyLog{w: &b}).elsewhere(tt.m)
		if b.String() != "" {
			t.Errorf("without -v, elsewhere(%+v) wrote %q, want nothing", tt.m, b.String())
		}
	}
}
