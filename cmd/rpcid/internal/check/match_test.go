package check

import (
	"strings"
	"testing"
)

// A spelling-changed finding says which side had the odd spelling and who
// fails on it: a request sent as -0 and answered 0 is no response spelled
// oddly (C# and the Python SDK match -0 as 0; rmcp and sourcegraph/jsonrpc2
// refuse the request), and SDKs that compare type and value match 1.0 to 1
// (go-sdk, mcp-go), so the finding never says they drop it.
func TestSpellingChangedSays(t *testing.T) {
	for _, c := range []struct{ sent, got, want string }{
		{"1", "1.0", "SDKs that compare spellings byte for byte (creachadair/jrpc2) miss it; rmcp, C# and the Python SDK refuse an id spelled 1.0 (they take only integer spellings), and sourcegraph/jsonrpc2 fails on it and closes the connection"},
		{"0", "-0", "SDKs that compare spellings byte for byte (creachadair/jrpc2) miss it; rmcp refuses an id spelled -0 (serde_json reads it as a float), and sourcegraph/jsonrpc2 fails on it and closes the connection"},
		{"-0", "0", "the request spelled the id -0 and the response as the plain integer 0: SDKs that compare spellings byte for byte (creachadair/jrpc2) miss it; rmcp refuses an id spelled -0 (serde_json reads it as a float), and sourcegraph/jsonrpc2 fails on it and closes the connection, so a peer built on them refuses the request"},
		{"1e0", "1", "the request spelled the id 1e0 and the response as the plain integer 1: "},
		{"1e0", "1.0", "neither 1e0 nor 1.0 is the plain integer 1: SDKs that compare spellings byte for byte (creachadair/jrpc2) miss it; rmcp, C# and the Python SDK refuse an id spelled 1e0 or 1.0"},
		{"1.5", "15e-1", "but its spelling changed in transit; SDKs that compare spellings byte for byte (creachadair/jrpc2) miss it\n"},
	} {
		capture := `> {"jsonrpc":"2.0","id":` + c.sent + `,"method":"a"}` + "\n" + `< {"jsonrpc":"2.0","id":` + c.got + `,"result":{}}` + "\n"
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		if !strings.Contains(out, c.want) {
			t.Errorf("sent %s, received %s: check says\n%s\nwant %q", c.sent, c.got, out, c.want)
		}
		for _, wrong := range []string{"compare type and value", "go-sdk, mcp-go"} {
			if strings.Contains(out, "spelling changed") && strings.Contains(out, wrong) {
				t.Errorf("sent %s, received %s: check says %q:\n%s", c.sent, c.got, wrong, out)
			}
		}
	}
}

// TestCancelledIDReused checks that a request sent with the id of a request
// its sender cancelled is reported as reusing it (MCP forbids it), not as
// sent while that one is pending, and that a response with the id answers
// the new request, as a client that has given up on the cancelled one
// delivers it; a second request with the id while the new one is pending is
// a duplicate as ever; and one response more than the requests take is the
// late answer to the cancelled one (MCP lets it cross the cancellation), no
// second answer.
func TestCancelledIDReused(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"y"}}
{"jsonrpc":"2.0","id":7,"method":"ping"}
{"jsonrpc":"2.0","id":7,"result":{}}
{"jsonrpc":"2.0","id":7,"result":{}}
{"jsonrpc":"2.0","id":7,"result":{}}
`
	_, out, _ := runCmd(t, strings.NewReader(in), "check", "-")
	want := `<stdin>:3: error: request id 7 (tools/call) reuses the id of request 7 (line 1, tools/call), which its sender cancelled: MCP forbids reusing a request id within a session, and a late answer to the cancelled request would be taken for this one's
<stdin>:4: error: request id 7 (ping) sent while request 7 (line 3, tools/call) is still pending: their responses cannot be told apart
checked 1 file: 7 messages (3 requests, 3 responses, 1 notification); 2 errors, 0 warnings. Breaks: 2 requests reused an id in flight, whose answers no client can tell apart. Fix: rpcid proxy -remap between the client and the hops that lose or change the ids gives each request a small integer id of its own and the answer the client's id.
`
	if out != want {
		t.Errorf("check says\n%s\nwant\n%s", out, want)
	}
}
