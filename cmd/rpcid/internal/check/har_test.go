package check

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A HAR capture that ends inside its structure is a finding (exit 1), not an
// unreadable file (exit 2).
func TestCheckTruncatedHARAtMemberName(t *testing.T) {
	for _, in := range []string{`{"log":{},`, `{"log":{"entries":[],`, `{"log":{"entries":[{},`} {
		code, out, errOut := runCmd(t, strings.NewReader(in), "check", "-")
		if code != 1 || !strings.Contains(out, "not a valid HAR file") {
			t.Errorf("check of %q: exit %d, stdout %q, stderr %q; want exit 1 and a not-valid-HAR finding", in, code, out, errOut)
		}
	}
}

// TestNothingToCheckCountsBadEntries checks that the nothing-to-check
// finding of a HAR file counts its entries that are not HAR entries (each an
// invalid-message of its own) instead of saying it has none.
func TestNothingToCheckCountsBadEntries(t *testing.T) {
	bad := `{"request":{"method":"POST","url":"http://127.0.0.1/mcp","postData":{"text":5}},"response":{"status":200}}`
	good := `{"request":{"method":"GET","url":"http://127.0.0.1/"},"response":{"status":200,"content":{"mimeType":"text/html","text":"<p>"}}}`
	for _, c := range []struct {
		entries []string
		want    string
	}{
		{[]string{bad}, "its 1 entry is not a HAR entry"},
		{[]string{bad, bad}, "none of its 2 entries is a HAR entry"},
		{[]string{bad, good}, "none of its 2 entries has a JSON-RPC 2.0 message (bodies not examined: 1 text/html)"},
		{nil, "the HAR file has no entries"},
	} {
		har := `{"log":{"version":"1.2","entries":[` + strings.Join(c.entries, ",") + `]}}`
		_, out, _ := runCmd(t, strings.NewReader(har), "check", "-")
		if !strings.Contains(out, "<stdin>: error: nothing to check: "+c.want+"\n") {
			t.Errorf("%d entries: check says\n%s\nwant nothing to check: %s", len(c.entries), out, c.want)
		}
	}
}

// TestCutBody checks that a HAR response body shorter than its content.size
// (the capture tool kept only the first part of it, as tools with a limit on
// body size do) is said to be cut short, in the finding about its text and
// in its requests' findings, which say the capture lacks their answers
// rather than that they were never answered; and that an answer in the MCP session
// kept still counts.
func TestCutBody(t *testing.T) {
	entry := func(id int, body string, size int) string {
		req, _ := json.Marshal(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call"}`, id))
		text, _ := json.Marshal(body)
		return fmt.Sprintf(`{"request":{"method":"POST","url":"http://127.0.0.1/mcp","postData":{"mimeType":"application/json","text":%s}},`+
			`"response":{"status":200,"content":{"mimeType":"%s","size":%d,"text":%s}}}`, req, "text/event-stream", size, text)
	}
	answer := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"
	har := `{"log":{"version":"1.2","entries":[` +
		entry(1, `event: message`+"\n"+`data: {"jsonrpc":"2.0","id":1,"res`, 2000000) + "," +
		entry(2, answer, len(answer)+500) + "," +
		entry(3, answer[:10], 10) + `]}}`
	_, out, _ := runCmd(t, strings.NewReader(har), "check", "-")
	findings, _, _ := strings.Cut(out, "checked ")
	want := `<stdin>:entry 1: error: response body (the capture holds 49 bytes of the 2000000 its content.size gives): event 1: not JSON at byte offset 28: unexpected end of input
<stdin>:entry 1: error: request 1 (tools/call) has no response in the capture: the body of its HTTP response (status 200) is cut short: the capture holds 49 bytes of the 2000000 its content.size gives
<stdin>:entry 3: error: request 3 (tools/call) was never answered (its HTTP response (status 200, text/event-stream) held no response with its id)
`
	if findings != want {
		t.Errorf("check:\n%s\nwant findings:\n%s", out, want)
	}
}

// TestUnendedEvent checks that an event-stream body ending in an event
// without the blank line that ends it (LF, CR, CRLF or no line end at all
// after its last data line) draws an ambiguous-event warning, and that the
// event is read as a message still: the capture cannot tell whether the
// stream ended there.
func TestUnendedEvent(t *testing.T) {
	answer := `data: {"jsonrpc":"2.0","id":1,"result":{}}`
	for _, end := range []string{"", "\n", "\r", "\r\n"} {
		har := harOf(t, [6]any{"POST", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, "text/event-stream", ": hi\n\nevent: message\n" + answer + end})
		_, out, _ := runCmd(t, strings.NewReader(har), "check", "-")
		want := "<stdin>:entry 1: warning: response body: event 1: the body ends before the blank line that ends this event: if the stream ended here, clients that follow the SSE standard discard the event (WHATWG HTML, section 9.2.6; browsers, the TypeScript SDK), and go-sdk and mcp-go deliver it\n" +
			"checked 1 file: 2 messages (1 request, 1 response, 0 notifications); 0 errors, 1 warning\n"
		if out != want {
			t.Errorf("body ending %q: check says\n%s\nwant\n%s", end, out, want)
		}
		har = harOf(t, [6]any{"POST", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, "text/event-stream", answer + end + end})
		if _, out, _ := runCmd(t, strings.NewReader(har), "check", "-"); end != "" && !strings.Contains(out, "no findings") {
			t.Errorf("body ending %q twice: check says\n%s\nwant no findings", end, out)
		}
	}
}

// TestAmbiguousEventType checks that an event typed "message" with spaces
// around it is read as a message, as go-sdk and mcp-go read it, with an
// ambiguous-event warning saying who ignores it; that a page's own event
// stream (no JSON-RPC) ending without its blank line draws no warning; and
// that another type is still not a message.
func TestAmbiguousEventType(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	answer := "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	for _, c := range []struct {
		name string
		e    [][6]any
		want string
	}{
		{"spaced type", [][6]any{{"POST", "", req, 200, "text/event-stream", "event:  message \n" + answer}},
			"<stdin>:entry 1: warning: response body: event 1: its type is \" message \", \"message\" with spaces around it: go-sdk and mcp-go read it as a message (they trim the type), and clients that follow the SSE standard (browsers, the TypeScript SDK) ignore it\n"},
		{"page stream", [][6]any{{"POST", "", req, 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`},
			{"GET", "", "", 200, "text/event-stream", "data: {\"tick\":1}\n\ndata: {\"tick\":2}\n"}}, ""},
		{"other type", [][6]any{{"POST", "", req, 200, "text/event-stream", "event: messages\n" + answer}},
			"<stdin>:entry 1: error: request 1 (ping) was never answered (its HTTP response (status 200, text/event-stream) held no response with its id)\n"},
	} {
		_, out, _ := runCmd(t, strings.NewReader(harOf(t, c.e...)), "check", "-")
		if findings, _, _ := strings.Cut(out, "checked "); findings != c.want {
			t.Errorf("%s: check says\n%s\nwant findings\n%s", c.name, out, c.want)
		}
	}
}

// TestPageStreamText checks that text that is not JSON at all, in a body or
// event nothing asks to be JSON-RPC (a dev server's heartbeat stream, as
// webpack-hot-middleware sends "data: 💓"), is passed over like JSON without
// JSON-RPC, while what starts like an object or array there, and any text
// in the answer to a JSON-RPC request, is reported as not JSON.
func TestPageStreamText(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	ok := [6]any{"POST", "", req, 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`}
	for _, c := range []struct {
		name string
		e    [][6]any
		want string
	}{
		{"heartbeats", [][6]any{ok, {"GET", "", "", 200, "text/event-stream", "data: 💓\n\ndata: hello world\n\n"}}, ""},
		{"broken object", [][6]any{ok, {"GET", "", "", 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\n\n"}},
			"<stdin>:entry 2: error: response body: event 1: not JSON at byte offset 17: unexpected end of input\n"},
		{"text answering a request", [][6]any{{"POST", "", req, 200, "text/event-stream", "data: hello\n\n"}},
			"<stdin>:entry 1: error: response body: event 1: not JSON at byte offset 0: invalid character at start of value ('h')\n" +
				"<stdin>:entry 1: error: request 1 (ping) was never answered (its HTTP response (status 200, text/event-stream) held no response with its id)\n"},
	} {
		_, out, _ := runCmd(t, strings.NewReader(harOf(t, c.e...)), "check", "-")
		if findings, _, _ := strings.Cut(out, "checked "); findings != c.want {
			t.Errorf("%s: check says\n%s\nwant findings\n%s", c.name, out, c.want)
		}
	}
}

// TestTruncatedHAR checks that a HAR cut off before its first entry gives
// one finding about the file, naming no entry it does not have.
func TestTruncatedHAR(t *testing.T) {
	name := t.TempDir() + "/trunc.har"
	if err := os.WriteFile(name, []byte(`{"log":{"version":"1.2","entries":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, nil, "check", name)
	want := name + ": error: nothing to check: not a valid HAR file: it is cut short (the input ends at byte offset 35), and no entry could be read\n"
	if code != 1 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 2 {
		t.Errorf("check trunc.har = %d, %q\nwant one finding %q and the summary", code, out, want)
	}
}
