package check

import (
	"strings"
	"testing"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/internal/scan"
)

// A request whose answer may be in a line, body, event or frame that could
// not be read (cut short, not JSON, too long to examine) has no response in
// the capture, naming that text; it is never said to be unanswered. Only
// the requests that text may answer are named: those pending when it came,
// of the side it answers, with an id its readable start shows, if any; in
// a HAR, the requests of its own POST, or for a GET stream those whose
// answer was due on a stream.
func TestCheckUnreadableMayAnswer(t *testing.T) {
	const (
		req1  = `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`
		req2  = `{"jsonrpc":"2.0","id":2,"method":"tools/call"}`
		cut1  = `{"jsonrpc":"2.0","id":1,"res`
		never = " was never answered"
	)
	lost := func(n int, why string) string {
		return "request " + string(rune('0'+n)) + " (tools/call) has no response in the capture: " + why
	}
	for _, c := range []struct {
		name, capture string
		want          []string // lines of check's output, each a substring
		not           []string
	}{
		{"cut at the end of the input", "> " + req1 + "\n< " + cut1,
			[]string{"<stdin>:2: error: not JSON at column 31: unexpected end of input", "<stdin>:1: error: " + lost(1, "line 2, which may hold it, is cut short at the end of the input")}, nil},
		{"cut with a LF", "> " + req1 + "\n< " + cut1 + "\n",
			[]string{lost(1, "line 2, which may hold it, is cut short")}, []string{"end of the input"}},
		{"cut, its id another", "> " + req1 + "\n> " + req2 + "\n< " + cut1,
			[]string{lost(1, "line 3, which may hold it"), "request 2 (tools/call)" + never}, nil},
		{"id cut inside its number", "> " + req1 + "\n< " + `{"jsonrpc":"2.0","id":1`,
			[]string{lost(1, "line 2, which may hold it")}, nil},
		{"cut before its id", "> " + req1 + "\n> " + req2 + "\n< " + `{"jsonrpc":"2.0","result":{"content":[`,
			[]string{lost(1, "line 3, which may hold it"), lost(2, "line 3, which may hold it")}, nil},
		{"a case variant of id", "> " + req1 + "\n> " + req2 + "\n< " + `{"jsonrpc":"2.0","ID":2,"res`,
			[]string{"request 1 (tools/call)" + never, lost(2, "line 3")}, nil},
		{"the client's line", "> " + req1 + "\n> " + cut1,
			[]string{"request 1 (tools/call)" + never}, nil},
		{"unmarked", req1 + "\n" + cut1,
			[]string{lost(1, "line 2, which may hold it, is cut short")}, nil},
		{"a request, cut", "> " + req1 + "\n< " + `{"jsonrpc":"2.0","id":1,"method":"roots/list","par`,
			[]string{"request 1 (tools/call)" + never}, nil},
		{"sent after the cut line", "< " + `{"jsonrpc":"2.0","result":{` + "\n> " + req1,
			[]string{"request 1 (tools/call)" + never}, nil},
		{"not JSON", "> " + req1 + "\n< " + `{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n",
			[]string{lost(1, "line 2, which may hold it, is not JSON")}, nil},
		{"not JSON, its id another", "> " + req1 + "\n< " + `{"jsonrpc":"2.0","id":2,"result":{}}}` + "\n",
			[]string{"request 1 (tools/call)" + never}, nil},
		{"no message at all", "> " + req1 + "\n< Traceback (most recent call last):\n",
			[]string{"request 1 (tools/call)" + never}, nil},
		{"a byte order mark", "> " + req1 + "\n< \xEF\xBB\xBF" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
			[]string{lost(1, "line 2, which may hold it, is not JSON (a byte order mark starts it)")}, nil},
		{"answered later", "> " + req1 + "\n< " + cut1 + "\n< " + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
			nil, []string{"request 1"}},
		{"a host log", "2025-10-03T07:51:43.656Z [fs] [info] Message from client: " + req1 + "\n" +
			"2025-10-03T07:51:43.700Z [fs] [info] Message from server: " + cut1 + "\n",
			[]string{lost(1, "line 2, which may hold it, is cut short")}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, out, _ := runCmd(t, strings.NewReader(c.capture), "check", "-")
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("check says\n%s\nwant a line with %q", out, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("check says\n%s\nwant none with %q", out, w)
				}
			}
		})
	}
}

// A line too long to examine may hold answers too, as its start shows.
func TestCheckTooLongMayAnswer(t *testing.T) {
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 1 << 20
	big := strings.Repeat("x", 2<<20)
	for _, c := range []struct{ name, line, want string }{
		{"its id first", `< {"jsonrpc":"2.0","id":1,"result":{"text":"` + big + `"}}`,
			"request 1 (a) has no response in the capture: line 2, which may hold it, is longer than 1 MiB and was not examined"},
		{"its id last", `< {"jsonrpc":"2.0","result":{"text":"` + big + `"},"id":1}`,
			"request 1 (a) has no response in the capture: line 2, which may hold it, is longer than 1 MiB and was not examined"},
		{"another id", `< {"jsonrpc":"2.0","id":7,"result":{"text":"` + big + `"}}`,
			"request 1 (a) was never answered"},
		{"the client's", `> {"jsonrpc":"2.0","id":1,"result":{"text":"` + big + `"}}`,
			"request 1 (a) was never answered"},
	} {
		capture := `> {"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + c.line + "\n"
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		if !strings.Contains(out, "<stdin>:1: error: "+c.want+"\n") {
			t.Errorf("%s: check says\n%s\nwant %q", c.name, out, c.want)
		}
	}
}

// In a HAR, a response body cut short or not JSON may answer the requests
// of its own POST (those its readable start allows), and an event stream
// of a GET the requests whose answer was due on a stream.
func TestHARUnreadableMayAnswer(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`
	batch := `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`
	for _, c := range []struct {
		name string
		e    [][6]any
		want []string
	}{
		{"application/json cut", [][6]any{{"POST", "", req, 200, "application/json", `{"jsonrpc":"2.0","id":1,"res`}},
			[]string{"request 1 (tools/call) has no response in the capture: the body of its HTTP response (status 200, application/json), which may hold it, is cut short"}},
		{"event cut", [][6]any{{"POST", "", req, 200, "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"res"}},
			[]string{"request 1 (tools/call) has no response in the capture: event 1 of the body of its HTTP response (status 200, text/event-stream), which may hold it, is cut short"}},
		{"event of another id cut", [][6]any{{"POST", "", batch, 200, "text/event-stream",
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"res"}},
			[]string{"request 2 (b) was never answered (its HTTP response (status 200, text/event-stream) held no response with its id)"}},
		{"event of one of two cut", [][6]any{{"POST", "", batch, 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"res"}},
			[]string{"request 1 (a) was never answered", "request 2 (b) has no response in the capture: event 1 of the body"}},
		{"a GET stream's event broken", [][6]any{{"POST", "s", req, 202, "", ""}, {"GET", "s", "", 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}}\n\n"}},
			[]string{"request 1 (tools/call) has no response in the capture: event 1 of the response body at entry 2, which may hold it, is not JSON; its HTTP response was 202 Accepted"}},
		{"a GET stream's event of another id", [][6]any{{"POST", "s", req, 202, "", ""}, {"GET", "s", "", 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}}\n\n"}},
			[]string{"request 1 (tools/call) was never answered (its HTTP response was 202 Accepted, with no answer in its body, and no event stream in the capture carries its answer)\n"}},
		{"answered in its own body", [][6]any{{"POST", "s", req, 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`},
			{"GET", "s", "", 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"res\n\n"}}, nil},
		{"a server request, its answer's body left out", [][6]any{{"GET", "s", "", 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"roots/list\"}\n\n"},
			{"POST", "s", "", 202, "", ""}},
			[]string{"server request 5 (roots/list) has no response in the capture: the request body at entry 2, which may hold it, is empty or was left out of the capture"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, out, _ := runCmd(t, strings.NewReader(harOf(t, c.e...)), "check", "-")
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("check says\n%s\nwant a line with %q", out, w)
				}
			}
			if c.want == nil && strings.Contains(out, "request 1") {
				t.Errorf("check says\n%s\nwant nothing of request 1", out)
			}
		})
	}
}

// A HAR file cut short may hold, in the entries it lacks, the answers to
// requests answered 202 Accepted.
func TestHARCutShortMayAnswer(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`
	har := harOf(t, [6]any{"POST", "s", req, 202, "", ""}, [6]any{"GET", "s", "", 200, "text/event-stream", "data: {}\n\n"})
	har = har[:strings.LastIndex(har, `{"request"`)+20]
	_, out, _ := runCmd(t, strings.NewReader(har), "check", "-")
	want := "request 1 (tools/call) has no response in the capture: the HAR file, which may hold it after entry 1, is not valid from there on"
	if !strings.Contains(out, want) {
		t.Errorf("check says\n%s\nwant a line with %q", out, want)
	}
}

// A response that matches no request may answer one in a text that could
// not be read: it matches none "in the capture", naming that text, when
// the text may hold a request of the side the response answers, with the
// response's id if its readable start shows one.
func TestCheckUnreadableMayHoldRequest(t *testing.T) {
	const cutReq = `{"jsonrpc":"2.0","id":3,"method":"tools/call","par`
	inCapture := "response id 3 matches no pending request in the capture: line 1, which may hold the request it answers, is cut short"
	for _, c := range []struct{ name, capture, want string }{
		{"its request cut", "> " + cutReq + "\n< " + `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n", inCapture},
		{"another id", "> " + cutReq + "\n< " + `{"jsonrpc":"2.0","id":4,"result":{}}` + "\n", "response id 4 matches no pending request\n"},
		{"cut before its id", "> " + `{"jsonrpc":"2.0","method":"tools/call","par` + "\n< " + `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n", inCapture},
		{"the server's text", "< " + cutReq + "\n< " + `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n", "response id 3 matches no pending request\n"},
		{"a response cut", "> " + `{"jsonrpc":"2.0","id":3,"result":{"x":` + "\n< " + `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n", "response id 3 matches no pending request\n"},
		{"a notification, read whole", "> " + `{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n< " + `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n", "response id 3 matches no pending request\n"},
	} {
		_, out, _ := runCmd(t, strings.NewReader(c.capture), "check", "-")
		if !strings.Contains(out, c.want) {
			t.Errorf("%s: check says\n%s\nwant %q", c.name, out, c.want)
		}
	}
	har := harOf(t, [6]any{"POST", "", `{"jsonrpc":"2.0","id":3,"method":"tools/call","par`, 200, "application/json", `{"jsonrpc":"2.0","id":3,"result":{}}`})
	_, out, _ := runCmd(t, strings.NewReader(har), "check", "-")
	if want := "response id 3 matches no pending request in the capture: the request body at entry 1, which may hold the request it answers, is cut short"; !strings.Contains(out, want) {
		t.Errorf("HAR: check says\n%s\nwant %q", out, want)
	}
}

// visibleIDs reads top-level members only, each value only when it ends
// before the cut.
func TestVisibleIDs(t *testing.T) {
	for _, c := range []struct {
		in                string
		answers, requests string // "none", "any" or the ids shown
	}{
		{`{"jsonrpc":"2.0","id":1,"res`, "[1]", "[1]"},
		{`{"jsonrpc":"2.0","id":1`, "any", "any"},
		{`{"jsonrpc":"2.0","id":1 `, "[1]", "[1]"},
		{`{"id":"a\"b","result":`, `["a\"b"]`, "none"},
		{`{"id":"a\"`, "any", "any"},
		{`{"params":{"id":2},"id":1,"method":"x"`, "none", "[1]"},
		{`{"params":{"id":2},"par`, "any", "any"},
		{`{"ID":1,"res`, "[1]", "[1]"},
		{`{"id":01,"res`, "any", "any"}, // valid only to the 0: the id may go on
		{`{"jsonrpc":"2.0","method":"a"}`, "none", "none"},
		{`{"jsonrpc":"2.0","id":5,"method":"a"}`, "none", "[5]"},
		{`{"jsonrpc":"2.0"}`, "none", "none"},
		{`[{"jsonrpc":"2.0","id":1`, "any", "any"},
		{`2025-10-03T07:51:43Z [fs]`, "none", "none"},
		{`   `, "none", "none"},
	} {
		sh := visibleIDs([]byte(c.in), validPrefix([]byte(c.in)))
		say := func(v visible) string {
			switch {
			case v.none:
				return "none"
			case v.ids == nil:
				return "any"
			}
			var b []byte
			b = append(b, '[')
			for i, id := range v.ids {
				if i > 0 {
					b = append(b, ',')
				}
				b = id.AppendJSON(b)
			}
			return string(append(b, ']'))
		}
		if got := say(sh.answers()); got != c.answers {
			t.Errorf("%s: answers %s, want %s", c.in, got, c.answers)
		}
		if got := say(sh.requests()); got != c.requests {
			t.Errorf("%s: requests %s, want %s", c.in, got, c.requests)
		}
	}
}

// FuzzVisibleIDs checks visibleIDs against the scanner: on a whole message
// object the scanner reads (no member named twice or by a case variant), it
// sees the object whole, the same "method", "result" and "error" members,
// and the id the scanner finds; on any prefix of it, it never panics and
// sees no id the whole message lacks.
func FuzzVisibleIDs(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"x","params":{"id":2}}`,
		`{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":null}`,
		`{"jsonrpc":"2.0","method":"n"}`,
		` { "id" : 1.5e3 , "result" : [ "]" ] } `,
	} {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		var sc []scan.Message
		msgs, batch, err := scanText(nil, &sc, data)
		n := int(cut) % (len(data) + 1)
		mcpSession := visibleIDs(data[:n], validPrefix(data[:n])) // no panic
		if err != nil || batch || len(msgs) != 1 || !msgs[0].object || msgs[0].dup != 0 || msgs[0].fold != 0 {
			return
		}
		m := &msgs[0]
		sh := visibleIDs(data, len(data))
		if !sh.complete || sh.sawMethod != (m.method != nil) || sh.sawAnswer != (m.result != nil || m.errv != nil) || sh.sawID != (m.id != nil) {
			t.Fatalf("visibleIDs(%q) = %+v; scan: method %q result %q error %q id %q", data, sh, m.method, m.result, m.errv, m.id)
		}
		want, perr := rpcid.Parse(m.id)
		if m.id != nil && perr == nil && (len(sh.ids) != 1 || sh.ids[0] != want) {
			t.Fatalf("visibleIDs(%q) ids %v, want %v", data, sh.ids, want)
		}
		for _, id := range mcpSession.ids {
			if m.id == nil || perr != nil || !rpcid.Equal(id, want) {
				t.Fatalf("visibleIDs(%q) of %d bytes sees id %v; the whole message has %q", data, n, id, m.id)
			}
		}
	})
}
