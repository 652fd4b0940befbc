package check

import (
	"fmt"
	"strings"
	"testing"
)

// The summary names the clients a capture breaks, with the figures of
// conformance/RESULTS.md (through measured), and the fix.
func TestVerdict(t *testing.T) {
	goSDK := measured[0]
	if goSDK.Name != "go-sdk" {
		t.Fatalf("measured[0] is %s, want go-sdk", goSDK)
	}
	tests := []struct {
		capture string
		want    []string
		not     []string
	}{
		// A go-sdk client behind a gateway that turns ids into strings:
		// its initialize is dropped.
		{"> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n< {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\n",
			[]string{"; 0 errors, 1 warning. Breaks: 1 response whose id changed type is dropped (or refused) by go-sdk " + goSDK.Version + ", ",
				fmt.Sprintf("clause 5: %d, ", goSDK.Canonical.Missed+goSDK.Canonical.Refused),
				"Fix: rpcid proxy between the client and the hop that changes the ids restores"},
			[]string{"-remap"}},
		// An id the server dropped: -remap.
		{"> {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\"}\n< {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32602,\"message\":\"bad id\"}}\n",
			[]string{"Breaks: 1 response lost the id of a request the peer read", "Fix: rpcid proxy -remap "},
			[]string{"plain rpcid proxy"}},
		// A parse error excuses a null id: nothing is broken by ids.
		{"< {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n", nil, []string{"Breaks"}},
		// An id reused in flight, and one rounded by a gateway.
		{"> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"a\"}\n> {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"b\"}\n> {\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"c\"}\n< {\"jsonrpc\":\"2.0\",\"id\":9007199254740992,\"result\":{}}\n",
			[]string{"1 request reused an id in flight", "1 response that the TypeScript SDK", "2 ids beyond 2^53-1 or fractional, which go-sdk " + goSDK.Version, "Fix: rpcid proxy -remap "},
			nil},
	}
	for _, tt := range tests {
		_, out, _ := runCmd(t, strings.NewReader(tt.capture), "check", "-")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		summary := lines[len(lines)-1]
		for _, w := range tt.want {
			if !strings.Contains(summary, w) {
				t.Errorf("%q: summary %q lacks %q", tt.capture, summary, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(summary, n) {
				t.Errorf("%q: summary %q has %q", tt.capture, summary, n)
			}
		}
	}
}
