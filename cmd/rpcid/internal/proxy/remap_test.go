package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// echoServer is the echo mode of TestProxyHelperProcess.
func echoServer(r io.Reader, w, log io.Writer) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			fmt.Fprintf(log, "got: %s", line)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &m) == nil && m.ID != nil && m.Method != "" && m.Method != "hold" {
				id := string(m.ID)
				switch m.Method {
				case "stringify":
					id = `"` + id + `"`
				case "ghost":
					id = "999"
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
			}
		}
		if err != nil {
			return
		}
	}
}

// remapIDs are the ids of the bridge matrix (conformance/BRIDGES.md) that
// JavaScript bridges change or drop.
var remapIDs = []string{"9007199254740993", "18446744073709551616", "1.0", "1.5", "1e2", "-0", `"\u0061"`, `"a\/b"`, `"` + strings.Repeat("k", 1024) + `"`}

func TestProxyRemapStdio(t *testing.T) {
	cmd := helperCommand(t, "echo")
	var in, want strings.Builder
	for i, id := range remapIDs {
		method := "ping"
		if i%2 == 1 {
			method = "stringify" // the server (a bridge) turns the id it got into a string
		}
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%s,"method":"%s"}`+"\n", id, method)
		fmt.Fprintf(&want, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
	}
	// Two requests in flight with one id, a cancel of it, a server request
	// answered by the client, and a notification.
	in.WriteString(`{"jsonrpc":"2.0","id":77,"method":"hold"}
{"jsonrpc":"2.0","id":77,"method":"hold"}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77,"reason":"x"}}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":78}}
{"jsonrpc":"2.0","id":"s1","result":{}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":5,"method":"ghost"}
`)
	want.WriteString(`{"jsonrpc":"2.0","id":999,"result":{}}` + "\n")
	code, stdout, stderr := runProxyArgs(t, in.String(), append([]string{"-remap", "-v", "--"}, cmd...)...)
	if code != 0 {
		t.Errorf("exit status %d, want 0; stderr:\n%s", code, stderr)
	}
	if diff := cmp.Diff(want.String(), stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	var sent strings.Builder
	for i := range remapIDs {
		method := "ping"
		if i%2 == 1 {
			method = "stringify"
		}
		fmt.Fprintf(&sent, `got: {"jsonrpc":"2.0","id":%d,"method":"%s"}`+"\n", i+1, method)
	}
	n := len(remapIDs)
	fmt.Fprintf(&sent, `got: {"jsonrpc":"2.0","id":%d,"method":"hold"}
got: {"jsonrpc":"2.0","id":%d,"method":"hold"}
got: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"x"}}
got: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":78}}
got: {"jsonrpc":"2.0","id":"s1","result":{}}
got: {"jsonrpc":"2.0","method":"notifications/initialized"}
got: {"jsonrpc":"2.0","id":%d,"method":"ghost"}
`, n+1, n+2, n+2, n+3)
	var got strings.Builder
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(l, "got: ") {
			got.WriteString(l)
		}
	}
	if diff := cmp.Diff(sent.String(), got.String()); diff != "" {
		t.Errorf("what the server read (-want +got):\n%s", diff)
	}
	for _, s := range []string{
		"rpcid proxy: request 9007199254740993 sent as 1\n",
		"rpcid proxy: response 1 restored to 9007199254740993\n",
		"rpcid proxy: request 18446744073709551616 sent as 2\n",
		"rpcid proxy: response \"2\" restored to 18446744073709551616\n",
		"rpcid proxy: response id 999 was not assigned by the proxy: passed unchanged\n",
		fmt.Sprintf("; %d ids restored, 1 unmatched, %d requests remapped\n", n, n+3),
	} {
		if strings.Count(stderr, s) != 1 {
			t.Errorf("stderr does not contain %q once:\n%s", s, stderr)
		}
	}
}

// A request that does not fit within -max-pending is answered at once with
// an error carrying its own id; it never reaches the command.
func TestProxyRemapStdioRefused(t *testing.T) {
	cmd := helperCommand(t, "echo")
	in := `{"jsonrpc":"2.0","id":1.0,"method":"hold"}
[{"jsonrpc":"2.0","id":"b","method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]
{"jsonrpc":"2.0","id":"c","method":"ping"}
`
	code, stdout, stderr := runProxyArgs(t, in, append([]string{"-remap", "-max-pending", "2", "--"}, cmd...)...)
	if code != 0 {
		t.Errorf("exit status %d; stderr:\n%s", code, stderr)
	}
	msg := `"rpcid proxy: too many request ids pending: 1 pending, the message adds 2, MaxPending is 2"`
	want := `[{"jsonrpc":"2.0","id":"b","error":{"code":-32000,"message":` + msg + `}},{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":` + msg + `}}]
{"jsonrpc":"2.0","id":"c","result":{}}
`
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s\nstderr:\n%s", diff, stderr)
	}
	if strings.Contains(stderr, `"id":"b"`) || strings.Contains(stderr, `got: [`) {
		t.Errorf("the refused batch reached the command:\n%s", stderr)
	}
	if !strings.Contains(stderr, "rpcid proxy: request not sent, answered with a JSON-RPC error: too many request ids pending") {
		t.Errorf("stderr does not report the refusal:\n%s", stderr)
	}
}

// remapUpstream is an MCP streamable HTTP server that answers each POSTed
// request on an event stream with the id it received turned into a string
// (a bridge that changes ids), method "later" on the session's GET stream
// instead, and method "wait" only once release is closed. It keeps what
// it received.
type remapUpstream struct {
	mu       sync.Mutex
	bodies   []string
	later    chan string // responses for the GET stream
	release  chan struct{}
	received chan struct{} // a "wait" request arrived
}

func (u *remapUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case m := <-u.later:
			fmt.Fprintf(w, "id: 1\ndata: %s\n\n", m)
		case <-r.Context().Done():
		case <-time.After(wait):
		}
		return
	}
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies = append(u.bodies, string(body))
	u.mu.Unlock()
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","result":{}}`, bytes.Trim(m.ID, `"`))
	switch m.Method {
	case "later":
		u.later <- resp
		w.WriteHeader(http.StatusAccepted)
		return
	case "drop":
		// The stream ends after an event id, before the response: the
		// client resumes with Last-Event-ID on a GET, which replays it.
		u.later <- resp
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: 0\ndata: \n\n")
		return
	case "wait":
		u.received <- struct{}{}
		<-u.release
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", resp)
}

func TestProxyRemapHTTP(t *testing.T) {
	u := &remapUpstream{later: make(chan string, 1), release: make(chan struct{}), received: make(chan struct{}, 1)}
	up := httptest.NewServer(u)
	defer up.Close()
	p := startProxy(t, up.URL+"/mcp", "-remap", "-v", "-max-pending", "2")
	for i, id := range remapIDs {
		_, body := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`))
		if want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}\n\n"; body != want {
			t.Errorf("response %d = %q, want %q", i, body, want)
		}
	}
	// The response arrives on the GET stream.
	get := make(chan string, 1)
	go func() {
		_, body := do(t, newRequest(t, "GET", p.url+"/mcp", ""))
		get <- body
	}()
	if resp, _ := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":"\u0061","method":"later"}`)); resp.StatusCode != http.StatusAccepted {
		t.Errorf("status %d, want 202", resp.StatusCode)
	}
	select {
	case body := <-get:
		if want := "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"\\u0061\",\"result\":{}}\n\n"; body != want {
			t.Errorf("GET stream %q, want %q", body, want)
		}
	case <-time.After(wait):
		t.Fatal("no GET stream")
	}
	// The POST's stream ends before its response, which a GET with
	// Last-Event-ID replays.
	if _, body := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1.50,"method":"drop"}`)); body != "id: 0\ndata: \n\n" {
		t.Errorf("the dropped stream = %q", body)
	}
	req := newRequest(t, "GET", p.url+"/mcp", "")
	req.Header.Set("Last-Event-ID", "0")
	if _, body := do(t, req); body != "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1.50,\"result\":{}}\n\n" {
		t.Errorf("replayed on GET with Last-Event-ID: %q", body)
	}
	// Two requests in flight fill -max-pending 2; a third is answered with
	// an error carrying its own id, and its cancel names the proxy's id.
	done := make(chan string, 2)
	for _, id := range []string{"5", `"5"`} {
		go func() {
			_, body := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":`+id+`,"method":"wait"}`))
			done <- body
		}()
		select {
		case <-u.received:
		case <-time.After(wait):
			t.Fatal("the upstream did not get the request")
		}
	}
	resp, body := do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":1e0,"method":"ping"}`))
	if want := `{"jsonrpc":"2.0","id":1e0,"error":{"code":-32000,"message":"rpcid proxy: too many request ids pending: 2 pending, the message adds 1, MaxPending is 2"}}`; resp.StatusCode != http.StatusOK || body != want {
		t.Errorf("refused request: %d %s\nwant 200 %s", resp.StatusCode, body, want)
	}
	do(t, newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`))
	close(u.release)
	var answers []string
	for range 2 {
		answers = append(answers, <-done)
	}
	if !(strings.Contains(answers[0]+answers[1], `"id":5,`) && strings.Contains(answers[0]+answers[1], `"id":"5",`)) {
		t.Errorf("answers %q, want ids 5 and \"5\"", answers)
	}
	n := len(remapIDs)
	u.mu.Lock()
	last := u.bodies[len(u.bodies)-1]
	u.mu.Unlock()
	// 5 and "5" are one id under the rule: the cancel names the request
	// sent last, "5", sent as n+4.
	if want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, n+4); last != want {
		t.Errorf("the upstream got %s, want %s", last, want)
	}
	// The end of an MCP session (a DELETE) forgets its requests: an answer
	// that comes after passes as the upstream sent it.
	req = newRequest(t, "POST", p.url+"/mcp", `{"jsonrpc":"2.0","id":"z","method":"later"}`)
	req.Header.Set("Mcp-Session-Id", "S")
	do(t, req)
	req = newRequest(t, "DELETE", p.url+"/mcp", "")
	req.Header.Set("Mcp-Session-Id", "S")
	if resp, _ := do(t, req); resp.StatusCode != http.StatusAccepted {
		t.Errorf("DELETE: status %d", resp.StatusCode)
	}
	if _, body := do(t, newRequest(t, "GET", p.url+"/mcp", "")); body != fmt.Sprintf("id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"%d\",\"result\":{}}\n\n", n+5) {
		t.Errorf("after the session's end, GET stream %q", body)
	}
	p.stop(t)
	for _, s := range []string{
		"rpcid proxy: request 9007199254740993 sent as 1\n",
		"rpcid proxy: response \"1\" restored to 9007199254740993\n",
		"rpcid proxy: request not sent, answered with a JSON-RPC error",
		fmt.Sprintf("%d requests remapped\n", n+5),
		fmt.Sprintf("rpcid proxy: response id \"%d\" was not assigned by the proxy: passed unchanged\n", n+5),
	} {
		if !strings.Contains(p.stderr.String(), s) {
			t.Errorf("stderr does not contain %q:\n%s", s, p.stderr)
		}
	}
}

// Content-Length framing: the lengths of the remapped request and of the
// restored response are rewritten.
func TestProxyRemapStdioFramed(t *testing.T) {
	cmd := helperCommand(t, "lsp")
	body := `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`
	in := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	code, stdout, stderr := runProxyArgs(t, in, append([]string{"-remap", "--"}, cmd...)...)
	if code != 0 {
		t.Errorf("exit status %d; stderr:\n%s", code, stderr)
	}
	resp := `{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`
	want := fmt.Sprintf("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(resp), resp)
	if stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
}

// The -v transcript README shows for -remap is what the proxy writes for a
// request with the id 9007199254740993 through a server that answers it.
func TestREADMERemapTranscript(t *testing.T) {
	readme, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)logs each mapping once each way.*?```text\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no text block after \"logs each mapping once each way\"")
	}
	cmd := helperCommand(t, "echo")
	_, _, stderr := runProxyArgs(t, `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`+"\n", append([]string{"-remap", "-v", "--"}, cmd...)...)
	var got strings.Builder
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(l, "rpcid proxy: ") && !strings.HasPrefix(l, "rpcid proxy: started") {
			got.WriteString(l)
		}
	}
	if diff := cmp.Diff(string(m[1]), got.String()); diff != "" {
		t.Errorf("README's transcript (-README +proxy):\n%s\nwhole stderr:\n%s", diff, stderr)
	}
}
