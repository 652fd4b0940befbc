package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// A long-lived HTTP+SSE session (2024-11-05 transport) in one HAR: the GET
// stream, listed first, carries the answers to n POSTs listed after it,
// with comments, event ids, multi-line data and an endpoint event; it
// checks clean, and a server request in the stream is answered by a POST.
func TestLongLivedSSEHAR(t *testing.T) {
	n := 3000
	var stream strings.Builder
	stream.WriteString("event: endpoint\ndata: /messages?sessionId=1\n\n: keep-alive\n\n")
	stream.WriteString("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"method\":\"ping\"}\n\n")
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&stream, "id: %d\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":%d,\"result\":{\"n\":%d}}\r\n\r\n", i, i, i)
		} else {
			fmt.Fprintf(&stream, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n\n", i)
		}
		if i%100 == 0 {
			stream.WriteString(": ping\n\n")
		}
	}
	type content struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	type entry struct {
		Request struct {
			Method   string   `json:"method"`
			PostData *content `json:"postData,omitempty"`
		} `json:"request"`
		Response struct {
			Status  int     `json:"status"`
			Content content `json:"content"`
		} `json:"response"`
	}
	var entries []entry
	var get entry
	get.Request.Method = "GET"
	get.Response.Status = 200
	get.Response.Content = content{"text/event-stream", stream.String()}
	entries = append(entries, get)
	post := func(body string) {
		var e entry
		e.Request.Method = "POST"
		e.Request.PostData = &content{"application/json", body}
		e.Response.Status = 202
		e.Response.Content = content{"text/plain", "Accepted"}
		entries = append(entries, e)
	}
	for i := 0; i < n; i++ {
		post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t"}}`, i))
		if i == n/2 {
			post(`{"jsonrpc":"2.0","id":"s-1","result":{}}`)
		}
	}
	har, err := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "entries": entries}})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, bytes.NewReader(har), "check", "-")
	want := fmt.Sprintf("checked 1 file: %d messages (%d requests, %d responses, 0 notifications); 1 SSE event of other types than message not examined (endpoint 1); no findings\n", 2*n+2, n+1, n+1)
	if code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stderr %q, output (%d bytes) ends\n%s\nwant\n%s", code, errOut, len(out), out[max(0, len(out)-600):], want)
	}
}

// The SSE events remembered for redeliveries are bounded by number and by
// the bytes of their ids, over all sessions of a HAR: an event replayed
// after the last seenEventsMax is still a redelivery, one replayed after
// they were forgotten is read as a new message.
func TestSeenEventsBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newCapture(c, "x")
	s.har = true
	event := func(id string) []byte {
		return []byte("id: " + id + "\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
	}
	const extra = 100
	for i := 0; i < seenEventsMax+extra; i++ {
		s.use(fmt.Sprintf("https://s%d.example.test/mcp ", i%3), i+1)
		s.sse(position{entry: i + 1}, "", fromServer, event(fmt.Sprintf("e%d", i)))
	}
	g := &s.seen
	held := 0
	for _, p := range s.sessions {
		held += len(p.events)
	}
	if g.n != seenEventsMax || held != seenEventsMax || s.counts.notifications != seenEventsMax+extra || s.counts.redelivered != 0 {
		t.Errorf("after %d events: %d remembered, %d held by sessions, %d notifications, %d redelivered; want %d, %d, %d, 0",
			seenEventsMax+extra, g.n, held, s.counts.notifications, s.counts.redelivered, seenEventsMax, seenEventsMax, seenEventsMax+extra)
	}
	last := seenEventsMax + extra - 1
	s.resumed = true // the replays come on resumed streams (GET with Last-Event-ID)
	s.use(fmt.Sprintf("https://s%d.example.test/mcp ", last%3), last+2)
	s.sse(position{entry: last + 2}, "", fromServer, event(fmt.Sprintf("e%d", last)))
	if s.counts.redelivered != 1 {
		t.Errorf("the last event replayed: %d redelivered, want 1", s.counts.redelivered)
	}
	s.use("https://s0.example.test/mcp ", last+3)
	s.sse(position{entry: last + 3}, "", fromServer, event("e0"))
	if s.counts.redelivered != 1 || s.counts.notifications != seenEventsMax+extra+1 {
		t.Errorf("the first event, forgotten, replayed: %d redelivered, %d notifications; want 1, %d", s.counts.redelivered, s.counts.notifications, seenEventsMax+extra+1)
	}

	// Ids of 1 MiB: at most seenEventBytesMax bytes of them are kept.
	s = newCapture(c, "y")
	s.har = true
	s.use("https://s.example.test/mcp ", 1)
	long := strings.Repeat("x", 1<<20)
	const n = 40
	for i := 0; i < n; i++ {
		s.sse(position{entry: 1}, "", fromServer, event(fmt.Sprintf("%s%d", long, i)))
	}
	g = &s.seen
	if g.bytes > seenEventBytesMax || g.n != seenEventBytesMax/(len(long)+2) || len(s.p.events) != g.n {
		t.Errorf("after %d events with 1 MiB ids: %d remembered (%d held), %d bytes; want at most %d bytes, %d events",
			n, g.n, len(s.p.events), g.bytes, seenEventBytesMax, seenEventBytesMax/(len(long)+2))
	}
	s.resumed = true
	s.sse(position{entry: 1}, "", fromServer, event(fmt.Sprintf("%s%d", long, n-1)))
	if s.counts.redelivered != 1 {
		t.Errorf("the last long event replayed: %d redelivered, want 1", s.counts.redelivered)
	}
}

// An event stream that starts with a byte order mark (which the SSE
// standard skips, as httpid does) still holds its first event: the request
// it answers is answered.
func TestHARStreamByteOrderMark(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newCapture(c, "x")
	s.har = true
	var e harEntry
	entry := fmt.Sprintf(`{"request":{"method":"POST","url":"https://s.example.test/mcp","postData":{"mimeType":"application/json","text":%q}},`+
		`"response":{"status":200,"content":{"mimeType":"text/event-stream","text":%q}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "\ufeffdata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n")
	if err := json.Unmarshal([]byte(entry), &e); err != nil {
		t.Fatal(err)
	}
	s.harEntry(1, &e)
	s.finish()
	if c.errors+c.warnings != 0 || s.counts.responses != 1 {
		t.Errorf("%d errors, %d warnings, %d responses; want none, none, 1", c.errors, c.warnings, s.counts.responses)
	}
}
