package scan_test

import (
	"strings"
	"testing"

	"github.com/rpcid/rpcid/internal/scan"
)

// TestNoAllocs checks Scan's promise: no allocation when dst has room, for
// every shape of input. Scan must not let data escape: the short inputs are
// converted from a non-constant string at the call, which the compiler does
// on the stack only when the slice does not escape (32 bytes at most); the
// longer ones are converted once, outside the measured function.
func TestNoAllocs(t *testing.T) {
	inputs := []string{
		`{"id":1,"result":0}`,
		`[{"ID":"\u0031","error":{}}]`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"x","arguments":{"a":[1,2.5e3,true,false,null]}}}`,
		`[{"id":1,"result":1},{"ID":2,"Result":"\u00e9\ud83d\ude00 é"},3,[[]]]`,
		"{\"j\u017fonrpc\":\"2\\u002e0\",\"\\u0069d\":7}",
		`{"params":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`,
		string(toolsCallResponse(1024)),
		string(toolsListResponse(4096)),
		`{"id":"\ud800"}`, // an error: allocates the *SyntaxError only
	}
	for _, in := range inputs {
		s := strings.Clone(in)
		dst := make([]scan.Message, 0, 8)
		want := 0.0
		if _, _, err := scan.Scan(dst, []byte(s)); err != nil {
			want = 1
		}
		var allocs float64
		if len(s) <= 32 {
			allocs = testing.AllocsPerRun(100, func() {
				if msgs, _, _ := scan.Scan(dst, []byte(s)); len(msgs) > 0 && msgs[0].IsJSONRPC20([]byte(s)) {
					sink++
				}
			})
		} else {
			data := []byte(s)
			allocs = testing.AllocsPerRun(100, func() {
				if msgs, _, _ := scan.Scan(dst, data); len(msgs) > 0 && msgs[0].IsJSONRPC20(data) {
					sink++
				}
			})
		}
		if allocs != want {
			t.Errorf("Scan(%.40q) allocates %v times, want %v", in, allocs, want)
		}
	}
}

var sink int
