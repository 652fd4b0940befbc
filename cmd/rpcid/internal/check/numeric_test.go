package check

import (
	"fmt"
	"strings"
	"testing"
)

// TestFractionalIDSDKClaims checks that the fractional-id warning names an
// SDK as rejecting an id only when it does for that id: the TypeScript SDK
// reads an id that JSON.parse rounds to a safe integer (1e-400 to 0), as
// conformance/RESULTS.md measured (sent 0, received 1e-400: wrong match),
// and go-sdk truncates an id only when the result is its integer part. The
// unsafe-integer warning says the Python SDK rejects an id beyond int64 not
// spelled as an integer (its ids are strict integers).
func TestFractionalIDSDKClaims(t *testing.T) {
	const intro = "request id %s is not an integer: JSON-RPC 2.0 says ids SHOULD NOT have fractional parts and MCP allows only strings and integers; "
	const others = ", the Python, Rust (rmcp) and C# SDKs reject it, and sourcegraph/jsonrpc2 closes the connection"
	const all = ", the TypeScript, Python, Rust (rmcp) and C# SDKs reject it, and sourcegraph/jsonrpc2 closes the connection"
	for _, c := range []struct{ id, want string }{
		{"1e-400", "go-sdk and the TypeScript SDK read it as 0 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"-1e-400", "go-sdk and the TypeScript SDK read it as 0 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"2.0000000000000001", "go-sdk and the TypeScript SDK read it as 2 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"0.99999999999999999", "go-sdk and the TypeScript SDK read it as 1 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"-0.99999999999999999", "go-sdk and the TypeScript SDK read it as -1 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"9007199254740991.4", "go-sdk and the TypeScript SDK read it as 9007199254740991 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		// Beyond 2^53-1 the TypeScript SDK's schema refuses the double.
		{"9007199254740992.5", "go-sdk truncates it to 9007199254740992, which can match a request with that id" + all},
		{"9007199254740993.5", "go-sdk reads it as 9007199254740994 (float64 rounds it to that integer), which can match a request with that id" + all},
		{"1.5", "go-sdk truncates it to 1, which can match a request with that id" + all},
		{"-2.75", "go-sdk truncates it to -2, which can match a request with that id" + all},
		{"1.0000000000000002", "go-sdk truncates it to 1, which can match a request with that id" + all},
		{"12345678901234567890.5", "go-sdk's conversion to int64 overflows" + all},
	} {
		capture := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call"}`+"\n", c.id)
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		want := "<stdin>:1: warning: " + fmt.Sprintf(intro, c.id) + c.want + "\n"
		if first, _, _ := strings.Cut(out, "\n"); first+"\n" != want {
			t.Errorf("check of id %s says\n%s\nwant first\n%s", c.id, out, want)
		}
	}

	// The warning agrees with the unmatched-response finding about what
	// JSON.parse does with the id (the two faulty outputs: 1e-400 against
	// request 0, 2.0000000000000001 against request 2).
	for _, c := range []struct{ sent, got string }{{"0", "1e-400"}, {"2", "2.0000000000000001"}} {
		capture := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"a"}`+"\n"+`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", c.sent, c.got)
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		unmatched := fmt.Sprintf("<stdin>:2: error: response id %s matches no pending request; JavaScript JSON.parse reads it as %s and would deliver it to request %s (line 1, a), whose id is different\n", c.got, c.sent, c.sent)
		warning := fmt.Sprintf("<stdin>:2: warning: response id %s is not an integer: JSON-RPC 2.0 says ids SHOULD NOT have fractional parts and MCP allows only strings and integers; "+
			"go-sdk and the TypeScript SDK read it as %s (float64, through which both read it, rounds it to that integer), which can match a request with that id"+others+"\n", c.got, c.sent)
		if !strings.Contains(out, unmatched) || !strings.Contains(out, warning) || strings.Contains(out, "the TypeScript, Python") {
			t.Errorf("check of response %s to request %s says\n%s\nwant\n%s%s", c.got, c.sent, out, unmatched, warning)
		}
	}

	// Beyond int64: the Python SDK keeps an integer spelling exactly and
	// rejects any other (a float to its JSON parser).
	for _, c := range []struct{ id, want string }{
		{"1e20", "request id 1e20 is beyond int64 (above 2^63-1): go-sdk's conversion to int64 overflows, and rmcp, the C# SDK and the Python SDK reject it (Python reads this spelling as a float); float64 holds it exactly; the TypeScript SDK rejects ids beyond 2^53-1 (its schema accepts only safe integers)"},
		{"100000000000000000000", "request id 100000000000000000000 is beyond int64 (above 2^63-1): go-sdk's conversion to int64 overflows, rmcp and the C# SDK reject it, and the Python SDK keeps it exactly; float64 holds it exactly; the TypeScript SDK rejects ids beyond 2^53-1 (its schema accepts only safe integers)"},
	} {
		capture := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call"}`+"\n", c.id)
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		if want := "<stdin>:1: warning: " + c.want + "\n"; !strings.HasPrefix(out, want) {
			t.Errorf("check of id %s says\n%s\nwant first\n%s", c.id, out, want)
		}
	}
}

// TestIDBeyondFloat64 checks that the warnings about a numeric id beyond
// float64's range (1e400) say go-sdk refuses the message, as
// jsonrpc.DecodeMessage does (encoding/json will not read such a number
// into its float64 id), rather than that its conversion to int64
// overflows, which stays true of ids beyond int64 that float64 holds.
func TestIDBeyondFloat64(t *testing.T) {
	long := "1" + strings.Repeat("0", 310) + ".5"
	for _, c := range []struct {
		id     string
		refuse bool
	}{
		{"1e400", true}, {"-1e400", true}, {"1.8e308", true}, {long, true},
		{"1e308", false}, {"1e19", false}, {"12345678901234567890.5", false},
	} {
		capture := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"a"}`+"\n", c.id)
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		refuses := strings.Contains(out, "go-sdk refuses the message (it reads ids as float64, which cannot hold this one), which ends its connection's read loop")
		overflows := strings.Contains(out, "go-sdk's conversion to int64 overflows")
		if refuses != c.refuse || overflows == c.refuse {
			t.Errorf("check of id %.40s says\n%.600s\nwant go-sdk refusing it %v, overflowing %v", c.id, out, c.refuse, !c.refuse)
		}
	}
}
