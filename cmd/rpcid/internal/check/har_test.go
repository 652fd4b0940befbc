package check

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
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

// A HAR is recognized by its log member wherever it
// stands, even after a member longer than a read buffer, and read one byte
// at a time.
func TestHARLogAfterLongMember(t *testing.T) {
	har := `{"comment":"` + strings.Repeat("c", 200_000) + `","log":{"entries":[{"request":{"method":"POST","postData":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}},"response":{"status":200,"content":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}"}}}]}}`
	for _, r := range []io.Reader{strings.NewReader(har), iotest.OneByteReader(strings.NewReader(har))} {
		_, out, _ := runCmd(t, r, "check", "-")
		if !strings.HasPrefix(out, `<stdin>:entry 1: warning: response id "1" matches request 1 (entry 1, ping)`) {
			t.Errorf("output %.300q", out)
		}
	}
}

// A response in a HAR entry's response body answers the requests of that
// entry's HTTP exchange before a pending request of an earlier entry with
// an Equal id, as httpid answers a POST's own requests first: the earlier
// request is the one left unanswered. Without an Equal id of its own (a GET
// stream), an exchange's responses answer the earliest request sent.
func TestHAROwnExchangeFirst(t *testing.T) {
	req := func(id, method string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`
	}
	res := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }
	events := func(ids ...string) string {
		var b strings.Builder
		for _, id := range ids {
			b.WriteString("event: message\ndata: " + res(id) + "\n\n")
		}
		return b.String()
	}
	accepted := func(body string) [6]any { return [6]any{"POST", "", body, 202, "", ""} }
	answered := func(body, mt, text string) [6]any { return [6]any{"POST", "", body, 200, mt, text} }
	stream := func(ids ...string) [6]any { return [6]any{"GET", "", "", 200, "text/event-stream", events(ids...)} }
	dup := func(entry int, id, method string, before int, beforeMethod string) string {
		return fmt.Sprintf("<stdin>:entry %d: error: request id %s (%s) sent while request %s (entry %d, %s) is still pending: their responses cannot be told apart\n", entry, id, method, id, before, beforeMethod)
	}
	never := func(entry int, id, method string) string { // each accepted with 202
		return fmt.Sprintf("<stdin>:entry %d: error: request %s (%s) was never answered (its HTTP response was 202 Accepted, with no answer in its body, and no event stream in the capture carries its answer)\n", entry, id, method)
	}
	typeChanged := "<stdin>:entry %d: warning: response id \"1\" matches request 1 (entry %d, %s) only under the rule: the id's JSON type changed from number to string in transit; SDKs that compare type and value (go-sdk, mcp-go's stdio and SSE transports, C#) drop this response\n"
	for _, c := range []struct {
		name    string
		entries [][6]any
		want    string
	}{
		{"JSON body", [][6]any{accepted(req("1", "a")), answered(req("1", "b"), "application/json", res("1"))},
			dup(2, "1", "b", 1, "a") + never(1, "1", "a")},
		{"event stream, type changed", [][6]any{accepted(req("1", "a")), answered(req("1", "b"), "text/event-stream", events(`"1"`))},
			dup(2, "1", "b", 1, "a") + fmt.Sprintf(typeChanged, 2, 2, "b") + never(1, "1", "a")},
		{"null ids", [][6]any{accepted(req("null", "a")), answered(req("null", "b"), "application/json", res("null"))},
			"<stdin>:entry 1: warning: request a has a null id: JSON-RPC 2.0 discourages it and MCP forbids it; its response cannot be told from a reply to an unreadable request\n" +
				"<stdin>:entry 2: warning: request b has a null id: JSON-RPC 2.0 discourages it and MCP forbids it; its response cannot be told from a reply to an unreadable request\n" +
				dup(2, "null", "b", 1, "a") + never(1, "null", "a")},
		// Its own first, then the earliest of the others.
		{"own, then the earliest", [][6]any{accepted(req("1", "a")), accepted(req("1", "b")), answered(req("1", "c"), "application/json", "["+res("1")+","+res("1")+"]")},
			dup(2, "1", "b", 1, "a") + dup(3, "1", "c", 1, "a") + never(2, "1", "b")},
		// A batch of two behind an earlier request: both answered, in the
		// order sent.
		{"own batch", [][6]any{accepted(req("1", "a")), answered("["+req("1", "b")+","+req("1", "c")+"]", "application/json", "["+res("1")+","+res(`"1"`)+"]")},
			dup(2, "1", "b", 1, "a") + dup(2, "1", "c", 1, "a") + fmt.Sprintf(typeChanged, 2, 2, "c") + never(1, "1", "a")},
		// Both of a batch leave the queue from behind the earlier request,
		// which the stream then answers, once.
		{"own batch, then the earlier", [][6]any{accepted(req("1", "a")),
			answered("["+req("1", "b")+","+req("1", "c")+"]", "application/json", "["+res("1")+","+res("1")+"]"), stream("1", "1")},
			dup(2, "1", "b", 1, "a") + dup(2, "1", "c", 1, "a") +
				"<stdin>:entry 3: error: response id 1 is a second answer: request 1 (entry 1, a) was already answered at entry 3\n"},
		// The requests left queued are answered in the order sent after
		// the last one left the queue, and one response more is a second
		// answer to the last answered.
		{"own last, then the rest", [][6]any{accepted(req("1", "a")), accepted(req("1", "b")), accepted(req("1", "c")),
			answered(req("1", "d"), "application/json", res("1")), stream("1", "1", "1", "1")},
			dup(2, "1", "b", 1, "a") + dup(3, "1", "c", 1, "a") + dup(4, "1", "d", 1, "a") +
				"<stdin>:entry 5: error: response id 1 is a second answer: request 1 (entry 3, c) was already answered at entry 5\n"},
		{"own first of a batch, then the rest", [][6]any{accepted(req("1", "a")),
			answered("["+req("1", "b")+","+req("1", "c")+"]", "application/json", res(`"1"`)), stream("1", "1", "1")},
			dup(2, "1", "b", 1, "a") + dup(2, "1", "c", 1, "a") + fmt.Sprintf(typeChanged, 2, 2, "b") +
				"<stdin>:entry 3: error: response id 1 is a second answer: request 1 (entry 2, c) was already answered at entry 3\n"},
		// A stream that answers no request of its exchange answers the
		// earliest.
		{"GET stream", [][6]any{accepted(req("1", "a")), accepted(req("1", "b")), stream("1")},
			dup(2, "1", "b", 1, "a") + never(2, "1", "b")},
		// A request sent with the id of a cancelled one, answered by its
		// own exchange while another with the id is pending: one response
		// more than the requests take is still the cancelled one's late
		// answer.
		{"cancelled id reused", [][6]any{accepted(req("1", "a")), accepted(req("1", "b")),
			accepted(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`),
			answered(req("1", "c"), "application/json", res("1")), stream("1", "1")},
			dup(2, "1", "b", 1, "a") +
				"<stdin>:entry 4: error: request id 1 (c) reuses the id of request 1 (entry 1, a), which its sender cancelled: MCP forbids reusing a request id within a session, and a late answer to the cancelled request would be taken for this one's\n" +
				dup(4, "1", "c", 2, "b")},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, out, _ := runCmd(t, strings.NewReader(harOf(t, c.entries...)), "check", "-")
			findings, _, _ := strings.Cut(out, "checked ")
			if diff := cmp.Diff(c.want, findings); diff != "" {
				t.Errorf("check:\n%s\nfindings (-want +got):\n%s", out, diff)
			}
		})
	}
}

// TestHARCutOrBrokenInEntry checks the findings of a HAR file cut short, or
// not JSON, inside an entry (the first or a later one, in its request or its
// response) or between entries: each says where the file stops being valid,
// with the byte offset where the input ends or of the byte at fault (not
// where the entry starts), and none says the file has no entries.
func TestHARCutOrBrokenInEntry(t *testing.T) {
	const head = `{"log":{"version":"1.2","entries":[`
	entry := func(id int, status int) string {
		req, _ := json.Marshal(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call"}`, id))
		resp, _ := json.Marshal(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id))
		if status == 202 {
			resp = []byte(`""`)
		}
		return fmt.Sprintf(`{"request":{"method":"POST","url":"http://127.0.0.1/mcp","postData":{"mimeType":"application/json","text":%s}},`+
			`"response":{"status":%d,"content":{"mimeType":"application/json","text":%s}},"time":5}`, req, status, resp)
	}
	answered, accepted := entry(1, 200), entry(1, 202)
	second := entry(2, 200)
	notHAR := `{"request":{"method":"POST","url":"http://127.0.0.1/mcp","postData":{"text":5}},"response":{"status":200}}`
	page := `{"request":{"method":"GET","url":"http://127.0.0.1/"},"response":{"status":200,"content":{"mimeType":"text/html","text":"<p>"}}}`
	// upTo cuts e just before the first mark in it.
	upTo := func(e, mark string) string {
		i := strings.Index(e, mark)
		if i < 0 {
			t.Fatalf("%q not in %s", mark, e)
		}
		return e[:i]
	}
	// withX puts an x, which is no JSON, just after the first mark in e.
	withX := func(e, mark string) string {
		cut := upTo(e, mark) + mark
		return cut + "x" + e[len(cut):]
	}
	xAt := func(har string) int { return strings.Index(har, `:x`) + 1 }
	for _, c := range []struct {
		name string
		har  string
		want func(har string) string // the findings, without the summary
	}{
		{"first entry, in its request", head + upTo(answered, `"url"`), func(har string) string {
			return fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file: it is cut short inside entry 1 (the input ends at byte offset %d), and no entry could be read\n", len(har))
		}},
		{"first entry, in its response", head + upTo(answered, `"time"`), func(har string) string {
			return fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file: it is cut short inside entry 1 (the input ends at byte offset %d), and no entry could be read\n", len(har))
		}},
		{"first entry, after a byte order mark", "\ufeff" + head + upTo(answered, `"status"`), func(har string) string {
			return fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file: it is cut short inside entry 1 (the input ends at byte offset %d), and no entry could be read\n", len(har))
		}},
		{"later entry, in its request", head + answered + "," + upTo(second, `"postData"`), func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", len(har))
		}},
		{"later entry, in its response", head + answered + "," + upTo(second, `}},"time"`), func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", len(har))
		}},
		{"later entry, a request waiting for its answer", head + accepted + "," + upTo(second, `"response"`), func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %[1]d)\n"+
				"<stdin>:entry 1: error: request 1 (tools/call) has no response in the capture: the HAR file, which may hold it after entry 1, is not valid from there on (it is cut short inside entry 2: the input ends at byte offset %[1]d); its HTTP response was 202 Accepted\n", len(har))
		}},
		{"first entry, not JSON in its request", head + withX(answered, `"request":`) + "]}}", func(har string) string {
			return fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file inside entry 1: invalid character 'x' looking for beginning of value at byte offset %d, and no entry could be read\n", xAt(har))
		}},
		{"later entry, not JSON in its response", head + answered + "," + withX(second, `"response":`) + "]}}", func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file inside entry 2: invalid character 'x' looking for beginning of value at byte offset %d\n", xAt(har))
		}},
		{"no comma between entries", head + answered + " " + second + "]}}", func(har string) string {
			return fmt.Sprintf("<stdin>: error: not a valid HAR file after entry 1: expected comma after array element at byte offset %d\n", len(head+answered+" "))
		}},
		{"after an entry and its comma", head + answered + ",", func(har string) string {
			return fmt.Sprintf("<stdin>: error: not a valid HAR file: it is cut short after entry 1 (the input ends at byte offset %d)\n", len(har))
		}},
		{"after the entries", head + answered + "]", func(har string) string {
			return fmt.Sprintf("<stdin>: error: not a valid HAR file: it is cut short after entry 1 (the input ends at byte offset %d)\n", len(har))
		}},
		{"an entry that is not a HAR entry, then one cut short", head + notHAR + "," + upTo(second, `"response"`), func(har string) string {
			return "<stdin>:entry 1: error: not a HAR entry: request.postData.text is a JSON number, where HAR has a string\n" +
				fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", len(har)) +
				"<stdin>: error: nothing to check: the 1 entry read before the file stops being valid is not a HAR entry\n"
		}},
		{"an entry without JSON-RPC, then one cut short", head + page + "," + upTo(second, `"response"`), func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", len(har)) +
				"<stdin>: error: nothing to check: the 1 entry read before the file stops being valid has no JSON-RPC 2.0 message (bodies not examined: 1 text/html)\n"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, strings.NewReader(c.har), "check", "-")
			findings, _, _ := strings.Cut(out, "checked ")
			if want := c.want(c.har); code != 1 || findings != want || errOut != "" {
				t.Errorf("check of\n%s\n= %d, stderr %q, findings:\n%s\nwant 1 and findings:\n%s", c.har, code, errOut, findings, want)
			}
		})
	}

	// Cut anywhere in its entries, a HAR file is said to be cut short
	// inside the entry the cut is in (or after the one before it), where
	// its input ends.
	full := head + answered + "," + second + "]}}"
	second0 := len(head) + len(answered) + 1
	for n := len(head) + 1; n < len(full)-2; n++ {
		har := full[:n]
		_, out, _ := runCmd(t, strings.NewReader(har), "check", "-")
		var want string
		switch {
		case n < second0-1:
			want = fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file: it is cut short inside entry 1 (the input ends at byte offset %d), and no entry could be read\n", n)
		case n <= second0:
			want = fmt.Sprintf("<stdin>: error: not a valid HAR file: it is cut short after entry 1 (the input ends at byte offset %d)\n", n)
		case n < len(full)-3:
			want = fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", n)
		default:
			want = fmt.Sprintf("<stdin>: error: not a valid HAR file: it is cut short after entry 2 (the input ends at byte offset %d)\n", n)
		}
		if findings, _, _ := strings.Cut(out, "checked "); findings != want {
			t.Errorf("check of the HAR cut after %d bytes, %q, says\n%s\nwant findings\n%s", n, har[max(0, n-20):], out, want)
		}
	}
}

// TestHARFaultOffsetsAndLostRequests checks findings about faults in a HAR:
// an error inside a literal or number where the entries array
// should be names the byte at fault (it named the literal's first byte,
// "at byte offset"); with a byte order mark, "more data follows" counts
// the mark's three bytes; and a response on a GET stream whose request may
// be in the MCP session of a HAR cut short says so, as an unanswered request
// does.
func TestHARFaultOffsetsAndLostRequests(t *testing.T) {
	for _, c := range []struct{ har, want string }{
		{`{"log":{"entries":n[{"x":1}]}}`, "invalid character '[' in literal null (expecting 'u') at byte offset 19"},
		{`{"log":{"entries":tx}}`, "invalid character 'x' in literal true (expecting 'r') at byte offset 19"},
		{`{"log":{"entries":-x}}`, "invalid character 'x' in numeric literal at byte offset 19"},
		{`{"log":{"entries":1.x}}`, "invalid character 'x' after decimal point in numeric literal at byte offset 20"},
		{`{"log":{"entries": 1.x}}`, "invalid character 'x' after decimal point in numeric literal at byte offset 21"},
		{`{"log":{"entries": "a\qb"}}`, "invalid character 'q' in string escape code at byte offset 22"},
		{"\xef\xbb\xbf" + `{"log":{"entries":[]}}x`, "more data follows the HAR object (near byte 25)"},
		{`{"log":{"entries":[]}}x`, "more data follows the HAR object (near byte 22)"},
	} {
		_, out, _ := runCmd(t, strings.NewReader(c.har), "check", "-")
		if !strings.Contains(out, c.want) {
			t.Errorf("check of %q says\n%s\nwant it to say %q", c.har, out, c.want)
		}
	}

	get := harEntryJSON(t, "GET", "", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	post := harEntryJSON(t, "POST", `{"jsonrpc":"2.0","id":1,"method":"a"}`, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	full := `{"log":{"version":"1.2","entries":[` + get + `,` + post + `]}}`
	cut := full[:strings.Index(full, `"POST"`)]
	_, out, _ := runCmd(t, strings.NewReader(cut), "check", "-")
	want := fmt.Sprintf("<stdin>:entry 1: error: response id 1 matches no pending request in the capture: the HAR file, which may hold it after entry 1, is not valid from there on (it is cut short inside entry 2: the input ends at byte offset %d)\n", len(cut))
	if !strings.Contains(out, want) {
		t.Errorf("check of a HAR cut inside the POST whose request a GET stream answers says\n%s\nwant\n%s", out, want)
	}
}

// harEntryJSON returns a HAR entry, as JSON, of an exchange with url
// http://127.0.0.1/mcp, the request body reqBody (none if empty) and a 200
// response of type ctype with body resp.
func harEntryJSON(t *testing.T, method, reqBody, ctype, resp string) string {
	t.Helper()
	e := map[string]any{
		"request":  map[string]any{"method": method, "url": "http://127.0.0.1/mcp", "headers": []any{}},
		"response": map[string]any{"status": 200, "headers": []any{}, "content": map[string]any{"mimeType": ctype, "text": resp}},
	}
	if reqBody != "" {
		e["request"].(map[string]any)["postData"] = map[string]any{"mimeType": "application/json", "text": reqBody}
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
