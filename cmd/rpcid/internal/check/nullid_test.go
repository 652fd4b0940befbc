package check

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNamesMethod(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"Method not found: notifications/initialized", "notifications/initialized", true},
		{"notifications/initialized", "notifications/initialized", true},
		{"Method 'notifications/initialized' not found.", "notifications/initialized", true},
		{"Method not found: notifications/initialized2", "notifications/initialized", false},
		{"Method not found: notifications/initialized/x", "notifications/initialized", false},
		{"Method not found: x-notifications/initialized", "notifications/initialized", false},
		{"Method not found", "notifications/initialized", false},
		// The second occurrence stands alone.
		{"pings ping", "ping", true},
		{"pings", "ping", false},
	} {
		if got := namesMethod(c.text, c.name); got != c.want {
			t.Errorf("namesMethod(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}

// A side remembers the latest notification of each method, at most
// noticesMax of them: a null-id error naming a method forgotten since is
// put to the latest notification, and not called its answer.
func TestNoticesBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newCapture(c, "x")
	line := 0
	for i := 0; i < 100; i++ {
		line++
		s.line(line, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"n/%d"}`, i)))
		line++
		s.line(line, []byte(`{"jsonrpc":"2.0","method":"n/5"}`)) // moved to the end each time
	}
	ns := s.t.sides[0].notices
	if len(ns) != noticesMax || ns[len(ns)-1].name != "n/5" || ns[len(ns)-1].pos != int64(line) || ns[0].name != "n/85" {
		t.Fatalf("notices: %d, last %+v, first %+v; want %d, n/5 at %d, n/85", len(ns), ns[len(ns)-1], ns[0], noticesMax, line)
	}
	var got []string
	for _, m := range []string{"n/3", "n/90"} {
		var b strings.Builder
		c.w = bufio.NewWriter(&b)
		line++
		s.line(line, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found: `+m+`"}}`))
		c.w.Flush()
		got = append(got, b.String())
	}
	want := []string{
		fmt.Sprintf("x:%d: error: response with a null id (error -32601: Method not found: n/3): an answer to a notification, which JSON-RPC forbids (the latest: n/5 at line %d), or the peer read a request and dropped its id (only a parse error, -32700, or an invalid request, -32600, excuses a null id)\n", line-1, line-2),
		fmt.Sprintf("x:%d: error: response with a null id (error -32601: Method not found: n/90): likely an answer to notification n/90 (line %d), whose method its error message names; JSON-RPC forbids answering a notification, and only a parse error (-32700) or an invalid request (-32600) excuses a null id\n", line, 181),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// harOf returns a HAR of entries given as (method, session id, request
// body, status, response media type, response body).
func harOf(t *testing.T, entries ...[6]any) string {
	t.Helper()
	var es []any
	for _, e := range entries {
		req := map[string]any{"method": e[0], "url": "http://127.0.0.1:3000/mcp", "headers": []any{}}
		if sid := e[1].(string); sid != "" {
			req["headers"] = []any{map[string]any{"name": "Mcp-Session-Id", "value": sid}}
		}
		if body := e[2].(string); body != "" {
			req["postData"] = map[string]any{"mimeType": "application/json", "text": body}
		}
		resp := map[string]any{"status": e[3], "statusText": "", "content": map[string]any{"mimeType": e[4], "text": e[5]}}
		es = append(es, map[string]any{"request": req, "response": resp})
	}
	b, err := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "entries": es}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A client answer in a refused POST does not answer the server request
// whichever entry comes first, and one sent again in an exchange that
// succeeds does.
func TestRefusedAnswerOrder(t *testing.T) {
	refused := `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"roots/list\"}\n\n"
	answer := `{"jsonrpc":"2.0","id":5,"result":{"roots":[]}}`
	post := [6]any{"POST", "s1", answer, 404, "application/json", refused}
	get := [6]any{"GET", "s1", "", 200, "text/event-stream", stream}
	again := [6]any{"POST", "s1", answer, 202, "", ""}
	for _, c := range []struct {
		name    string
		entries [][6]any
		want    string
	}{
		{"answer first", [][6]any{post, get},
			"<stdin>:entry 2: error: server request 5 (roots/list) was never answered (the answer sent at entry 1 was not delivered: its HTTP exchange was refused with status 404 and error -32001: Session not found, with a null id)\n"},
		{"stream first", [][6]any{get, post},
			"<stdin>:entry 1: error: server request 5 (roots/list) was never answered (the answer sent at entry 2 was not delivered: its HTTP exchange was refused with status 404 and error -32001: Session not found, with a null id)\n"},
		{"sent again", [][6]any{get, post, again}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, out, _ := runCmd(t, strings.NewReader(harOf(t, c.entries...)), "check", "-")
			findings, _, _ := strings.Cut(out, "checked ")
			if findings != c.want {
				t.Errorf("check:\n%s\nwant findings:\n%s", out, c.want)
			}
		})
	}
}

// TestRefusalIDs checks that a JSON-RPC error in the body of a non-2xx
// response is the HTTP transport's refusal of the exchange whether its id is
// null (the TypeScript SDK), an id no request has ("server-error", the Python
// SDK) or missing (MCP 2025-03-26: "The HTTP response body MAY comprise a
// JSON-RPC error response that has no id"); and that an error with the id of
// the request answers it, and an id-less error in a 2xx body is not
// JSON-RPC.
func TestRefusalIDs(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	refusal := func(id string) string {
		return `{"jsonrpc":"2.0",` + id + `"error":{"code":-32600,"message":"Bad Request: Missing session ID"}}`
	}
	never := "<stdin>:entry 1: error: request 1 (tools/list) was never answered (its HTTP exchange was refused with status 400 and error -32600: Bad Request: Missing session ID, with "
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"null id", 400, refusal(`"id":null,`), never + "a null id)\n"},
		// The body is a JSON-RPC response all the same: its id, which no
		// request has, is reported as unmatched.
		{"id of no request", 400, refusal(`"id":"server-error",`), "<stdin>:entry 1: error: response id \"server-error\" matches no pending request\n" +
			never + "the id \"server-error\", which matches no request sent before it in its session)\n"},
		{"no id", 400, refusal(``), never + "no id)\n"},
		{"the request's id", 400, refusal(`"id":1,`), ""},
		{"no id, status 200", 200, refusal(``),
			"<stdin>:entry 1: error: response body: not JSON-RPC 2.0: a response without an \"id\" member (error -32600: Bad Request: Missing session ID); the peer left out the id of the request it answers, likely pending in the same HTTP exchange: request 1 (entry 1, tools/list)\n" +
				"<stdin>:entry 1: error: request 1 (tools/list) was never answered (the response without an \"id\" member at entry 1 is likely its answer, which left its id out)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, out, _ := runCmd(t, strings.NewReader(harOf(t, [6]any{"POST", "", req, c.status, "application/json", c.body})), "check", "-")
			findings, _, _ := strings.Cut(out, "checked ")
			if findings != c.want {
				t.Errorf("check:\n%s\nwant findings:\n%s", out, c.want)
			}
		})
	}
}
