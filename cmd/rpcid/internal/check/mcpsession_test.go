package check

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// The sessions of a HAR share the bound on answered requests, and idle
// ones are forgotten beyond maxSessions: after entries to more origins than
// that, each answered at once, at most maxSessions sessions are kept and the
// answered requests kept over all sessions are answeredMax.
func TestHARSessionsBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newCapture(c, "x")
	s.har = true
	n := answeredMax + 1000
	for i := 0; i < n; i++ {
		s.harEntry(i+1, pingEntry(t, fmt.Sprintf("https://s%d.example.test/mcp", i%(2*maxSessions)), i, true))
	}
	s.finish()
	answered := 0
	for _, a := range s.t.ring.reqs {
		if a.t == nil {
			continue
		}
		if r := a.t.at(a.x); r.flags&fLive != 0 && r.flags&fAnswered != 0 {
			answered++
		}
	}
	if len(s.sessions) > maxSessions || len(s.sessionIdx) != len(s.sessions) || answered != answeredMax || s.t.ring.n != answeredMax {
		t.Errorf("after %d entries to %d origins: %d sessions (%d named), %d answered requests kept, ring %d; want at most %d, the same, %d, %d",
			n, 2*maxSessions, len(s.sessions), len(s.sessionIdx), answered, s.t.ring.n, maxSessions, answeredMax, answeredMax)
	}
	if c.errors+c.warnings != 0 {
		t.Errorf("%d errors, %d warnings; want none", c.errors, c.warnings)
	}
}

// pingEntry is a HAR entry of a ping with id to url, answered if answer
// is true (else the response is 202 without a body).
func pingEntry(t *testing.T, url string, id int, answer bool) *harEntry {
	t.Helper()
	resp := fmt.Sprintf(`"response":{"status":200,"content":{"mimeType":"application/json","text":%q}}`, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id))
	if !answer {
		resp = `"response":{"status":202,"content":{"size":0}}`
	}
	var e harEntry
	entry := fmt.Sprintf(`{"request":{"method":"POST","url":%q,"postData":{"mimeType":"application/json","text":%q}},%s}`,
		url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id), resp)
	if err := json.Unmarshal([]byte(entry), &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

// Sessions with requests pending are never shared or forgotten, however
// many: 3000 sessions each send a request with id 0, and the answers come
// after all of them. Sharing a table (as before) made the ids collide:
// duplicates and second answers that were not.
func TestHARManySessionsPending(t *testing.T) {
	var c checker
	c.w = bufio.NewWriter(io.Discard)
	c.otherEvents = map[string]int{}
	s := newCapture(&c, "x")
	s.har = true
	const n = 3 * maxSessions
	for i := 0; i < n; i++ {
		s.harEntry(i+1, pingEntry(t, fmt.Sprintf("https://s%d.example.test/mcp", i), 0, false))
	}
	if len(s.sessions) != n {
		t.Errorf("%d sessions with a request pending, kept %d", n, len(s.sessions))
	}
	// The answers, on each session's GET stream.
	for i := 0; i < n; i++ {
		var e harEntry
		entry := fmt.Sprintf(`{"request":{"method":"GET","url":"https://s%d.example.test/mcp"},"response":{"status":200,"content":{"mimeType":"text/event-stream","text":%q}}}`,
			i, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n\n")
		if err := json.Unmarshal([]byte(entry), &e); err != nil {
			t.Fatal(err)
		}
		s.harEntry(n+i+1, &e)
	}
	s.finish()
	if c.errors+c.warnings != 0 {
		t.Errorf("%d errors, %d warnings; want none", c.errors, c.warnings)
	}
}

// sessionKey: a HAR entry's session is its endpoint (scheme and host in lower
// case, the path as sent, without query or fragment) and the Mcp-Session-Id
// of its request, or else the one its response assigns.
func TestSessionKey(t *testing.T) {
	entry := func(method, url, reqSID, respSID string) *harEntry {
		hdr := func(sid string) string {
			if sid == "" {
				return `[]`
			}
			return fmt.Sprintf(`[{"name":"Content-Type","value":"application/json"},{"name":"mcp-session-id","value":%q}]`, sid)
		}
		var e harEntry
		text := fmt.Sprintf(`{"request":{"method":%q,"url":%q,"headers":%s},"response":{"status":200,"headers":%s,"content":{}}}`,
			method, url, hdr(reqSID), hdr(respSID))
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			t.Fatal(err)
		}
		return &e
	}
	tests := []struct {
		e    *harEntry
		want string
	}{
		{entry("POST", "https://gw.example/servers/github/mcp", "", "a1"), "https://gw.example/servers/github/mcp a1"},
		{entry("POST", "https://gw.example/servers/slack/mcp", "", "b1"), "https://gw.example/servers/slack/mcp b1"},
		{entry("POST", "HTTPS://GW.Example/servers/github/mcp?profile=x#f", "a1", ""), "https://gw.example/servers/github/mcp a1"},
		{entry("POST", "https://gw.example/Servers/GitHub/mcp", "a1", ""), "https://gw.example/Servers/GitHub/mcp a1"},
		{entry("POST", "https://gw.example", "", ""), "https://gw.example/ "},
		{entry("POST", "https://gw.example:8443/mcp", "", ""), "https://gw.example:8443/mcp "},
		// The request's session wins over one its response names.
		{entry("GET", "https://gw.example/mcp", "a1", "a2"), "https://gw.example/mcp a1"},
		{entry("POST", "/mcp", "a1", ""), " a1"},
		{entry("POST", "https://gw.example/mcp", " a1\t", ""), "https://gw.example/mcp a1"},
		{entry("POST", "https://gw.example/messages?sessionId=s9", "", "a1"), "sse s9"},
	}
	for _, tt := range tests {
		if got := sessionKey(1, tt.e); got != tt.want {
			t.Errorf("sessionKey(%s %s) = %q, want %q", tt.e.Request.Method, tt.e.Request.URL.v, got, tt.want)
		}
	}
}
