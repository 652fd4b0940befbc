package restore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScanIDs(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	tests := []struct {
		name string
		in   string
		k    kind
		want []string // the id texts found
		ok   bool
	}{
		{"response", `{"jsonrpc":"2.0","id":"1","result":{}}`, responses, []string{`"1"`}, true},
		{"error response", `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"x"}}`, responses, []string{`7`}, true},
		{"id after result", `{"jsonrpc":"2.0","result":{"id":"inner"},"id":"1"}`, responses, []string{`"1"`}, true},
		{"whitespace kept outside span", " {\n \"id\" :\t \"1\" , \"result\" : null } \n", responses, []string{`"1"`}, true},
		{"escaped member name", `{"\u0069d":"1","result":1}`, responses, []string{`"1"`}, true},
		{"member names are case-sensitive", `{"ID":"1","Id":2,"result":1}`, responses, nil, true},
		{"two id members are ambiguous", `{"id":"1","id":"2","result":1}`, responses, nil, true},
		{"server request is not a response", `{"jsonrpc":"2.0","id":"1","method":"ping"}`, responses, nil, true},
		{"no result or error", `{"jsonrpc":"2.0","id":"1"}`, responses, nil, true},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, requests, nil, true},
		{"request", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"id":5}}`, requests, []string{`1`}, true},
		{"response is not a request", `{"jsonrpc":"2.0","id":1,"result":{}}`, requests, nil, true},
		{"id of any JSON type", `{"id":{"a":[1]},"result":1}`, responses, []string{`{"a":[1]}`}, true},
		{"batch", `[{"id":"1","result":1}, {"id":2,"error":{}} ,{"method":"m","id":"3"}]`, responses, []string{`"1"`, `2`}, true},
		{"batch requests", `[{"id":1,"method":"a"},{"method":"n"},{"id":"x","method":"b"}]`, requests, []string{`1`, `"x"`}, true},
		{"batch with non-objects", `[1,"a",null,[{"id":1,"result":1}],{"id":3,"result":1}]`, responses, []string{`3`}, true},
		{"empty batch", `[]`, responses, nil, true},
		{"empty object", `{}`, responses, nil, true},
		{"scalar", `"id"`, responses, nil, false},
		{"empty", ``, responses, nil, false},
		{"whitespace only", " \r\n", responses, nil, false},
		{"truncated", `{"id":"1","result":`, responses, nil, false},
		{"truncated batch", `[{"id":"1","result":1}`, responses, nil, false},
		{"trailing value", `{"id":"1","result":1}{"id":"2","result":1}`, responses, nil, false},
		{"trailing garbage", `{"id":"1","result":1} x`, responses, nil, false},
		{"malformed member", `{"id":"1","result":01}`, responses, nil, false},
		{"single quotes", `{'id':'1','result':1}`, responses, nil, false},
		{"raw control character", "{\"id\":\"a\nb\",\"result\":1}", responses, nil, false},
		{"nesting too deep", `{"id":1,"result":` + deep + `}`, responses, nil, false},
		{"bad element in batch", `[{"id":"1","result":1},{"id":}]`, responses, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, ok := scanIDs(nil, []byte(tt.in), tt.k)
			var got []string
			for _, sp := range spans {
				got = append(got, tt.in[sp.start:sp.end])
			}
			if ok != tt.ok {
				t.Errorf("scanIDs(%.60q) ok = %v, want %v", tt.in, ok, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scanIDs(%.60q) ids (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestScanIDsKeepsDst(t *testing.T) {
	dst := []span{{1, 2}}
	got, ok := scanIDs(dst, []byte(`[{"id":1,"result":1},{"id":`), responses)
	if ok || !cmp.Equal(got, []span{{1, 2}}, cmp.AllowUnexported(span{})) {
		t.Errorf("scanIDs on bad input = %v, %v; want the dst it was given, false", got, ok)
	}
}
