package restore

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rpcid/rpcid"
)

// TestMessageKinds checks which messages count as requests (whose ids
// Record remembers) and as responses (whose ids Restore examines).
func TestMessageKinds(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	const v = `"jsonrpc":"2.0",`
	tests := []struct {
		name      string
		in        string
		requests  []string // the ids of the requests found
		responses []string // the ids of the responses found
	}{
		{"response", `{` + v + `"id":"1","result":{}}`, nil, []string{`"1"`}},
		{"error response", `{` + v + `"id":7,"error":{"code":-32600,"message":"x"}}`, nil, []string{`7`}},
		{"id after result", `{` + v + `"result":{"id":"inner"},"id":"1"}`, nil, []string{`"1"`}},
		{"jsonrpc last", `{"id":"1","result":null,"jsonrpc":"2.0"}`, nil, []string{`"1"`}},
		{"whitespace kept outside span", " {\n \"id\" :\t \"1\" , \"result\" : null, \"jsonrpc\" : \"2.0\" } \n", nil, []string{`"1"`}},
		{"escaped member names", `{"jsonrpc":"2\u002e0","\u0069d":"1","r\u0065sult":1}`, nil, []string{`"1"`}},
		{"request", `{` + v + `"id":1,"method":"initialize","params":{"id":5}}`, []string{`1`}, nil},
		{"notification", `{` + v + `"method":"notifications/initialized"}`, nil, nil},
		{"server request is not a response", `{` + v + `"id":"1","method":"ping"}`, []string{`"1"`}, nil},
		{"no result or error", `{` + v + `"id":"1"}`, nil, nil},
		{"id of any JSON type", `{` + v + `"id":{"a":[1]},"result":1}`, nil, []string{`{"a":[1]}`}},
		{"batch", `[{` + v + `"id":"1","result":1}, {` + v + `"id":2,"error":{}} ,{` + v + `"method":"m","id":"3"}]`, []string{`"3"`}, []string{`"1"`, `2`}},
		{"batch with non-objects", `[1,"a",null,[{` + v + `"id":1,"result":1}],{` + v + `"id":3,"result":1}]`, nil, []string{`3`}},
		{"empty batch", `[]`, nil, nil},

		// Not JSON-RPC 2.0: a REST API's JSON, or another version.
		{"no jsonrpc member", `{"id":"5","result":{"name":"x"}}`, nil, nil},
		{"no jsonrpc member in a request", `{"id":5,"method":"m"}`, nil, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"1","result":1}`, nil, nil},
		{"jsonrpc as a number", `{"jsonrpc":2.0,"id":"1","result":1}`, nil, nil},
		{"jsonrpc twice", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":"1","result":1}`, nil, nil},
		{"jsonrpc case variant", `{"JSONRPC":"2.0","id":"1","result":1}`, nil, nil},
		{"batch mixing versions", `[{"id":"1","result":1},{` + v + `"id":"2","result":2}]`, nil, []string{`"2"`}},

		// Names that JSON-RPC implementations read differently.
		{"two id members", `{` + v + `"id":"1","id":"2","result":1}`, nil, nil},
		{"id case variant alone", `{` + v + `"ID":"1","result":1}`, nil, nil},
		{"id and a case variant", `{` + v + `"id":"1","Id":"2","result":1}`, nil, nil},
		{"request id case variant", `{` + v + `"Id":1,"method":"m"}`, nil, nil},
		{"method case variant in a response", `{` + v + `"id":"1","result":1,"Method":"x"}`, nil, nil},
		{"result case variant", `{` + v + `"id":"1","Result":1}`, nil, nil},
		{"result with long s", "{" + v + "\"id\":\"1\",\"re\u017fult\":1}", nil, nil},
		{"error twice", `{` + v + `"id":"1","error":{},"error":{}}`, nil, nil},
		{"params twice is harmless", `{` + v + `"id":1,"method":"m","params":1,"params":2}`, []string{`1`}, nil},
		{"nested variants are harmless", `{` + v + `"id":"1","result":{"ID":2,"id":3}}`, nil, []string{`"1"`}},

		// Not one JSON text.
		{"scalar", `"id"`, nil, nil},
		{"empty", ``, nil, nil},
		{"truncated", `{` + v + `"id":"1","result":`, nil, nil},
		{"trailing value", `{` + v + `"id":"1","result":1}{` + v + `"id":"2","result":1}`, nil, nil},
		{"two lines", `{` + v + `"id":"1","result":1}` + "\n" + `{` + v + `"id":"2","result":1}`, nil, nil},
		{"malformed member", `{` + v + `"id":"1","result":01}`, nil, nil},
		{"invalid UTF-8", `{` + v + `"id":"1","result":"` + "\xff" + `"}`, nil, nil},
		{"lone surrogate", `{` + v + `"id":"1","result":"\udc00"}`, nil, nil},
		{"nesting too deep", `{` + v + `"id":1,"result":` + deep + `}`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.in)
			var reqs, resps []string
			msgs, _ := scanMessages(nil, data)
			for i := range msgs {
				m := &msgs[i]
				if isRequest(m, data) {
					reqs = append(reqs, string(m.ID.Bytes(data)))
				}
				if isResponse(m, data) {
					resps = append(resps, string(m.ID.Bytes(data)))
				}
			}
			if diff := cmp.Diff(tt.requests, reqs); diff != "" {
				t.Errorf("requests in %.60q (-want +got):\n%s", tt.in, diff)
			}
			if diff := cmp.Diff(tt.responses, resps); diff != "" {
				t.Errorf("responses in %.60q (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestNotJSONRPC20 checks the hostile cases end to end: a message that is
// not JSON-RPC 2.0, or names its id ambiguously, is neither recorded nor
// restored, and consumes no remembered id.
func TestNotJSONRPC20(t *testing.T) {
	tb := &Table{}
	for _, req := range []string{
		`{"id":5,"method":"m"}`,                 // no jsonrpc member
		`{"jsonrpc":"2.0","ID":6,"method":"m"}`, // case variant of id
		`{"jsonrpc":"2.0","id":7,"id":8,"method":"m"}`,
	} {
		if ex, err := tb.Record([]byte(req)); ex != nil || err != nil {
			t.Errorf("Record(%s) = %v, %v; want nothing recorded", req, ex, err)
		}
	}
	if _, err := tb.Record([]byte(`[{"jsonrpc":"2.0","id":5,"method":"m"},{"jsonrpc":"2.0","id":6,"method":"m"}]`)); err != nil {
		t.Fatal(err)
	}
	for _, resp := range []string{
		`{"id":"5","result":{"ok":true}}`,
		`{"jsonrpc":"2.0","ID":"5","result":1}`,
		`{"jsonrpc":"2.0","id":"5","Id":"5","result":1}`,
		`{"jsonrpc":"2.0","id":"6","result":1,"Method":"x"}`,
		`{"jsonrpc":"2.0","id":"6","Error":{}}`,
	} {
		out, changed := tb.AppendRestored(nil, []byte(resp))
		if changed || string(out) != resp {
			t.Errorf("AppendRestored(%s) = %s, %v; want it unchanged", resp, out, changed)
		}
	}
	if tb.Len() != 2 {
		t.Errorf("Len = %d, want 2: no response above answers a request", tb.Len())
	}
	if got := tb.Stats(); got.Responses != 0 || got.Requests != 2 {
		t.Errorf("Stats = %+v, want 2 requests and no responses counted", got)
	}
}

func TestRestoreInPlace(t *testing.T) {
	tests := []struct {
		name, sent, resp, want string
		inPlace                bool
	}{
		{"shrinks", `1`, `{"jsonrpc":"2.0","id":"1","result":"x"}`, `{"jsonrpc":"2.0","id":1,"result":"x"}`, true},
		{"same length", `10`, `{"jsonrpc":"2.0","id":1e1,"result":"x"}`, `{"jsonrpc":"2.0","id":10,"result":"x"}`, true},
		{"grows", `"42"`, `{"jsonrpc":"2.0","id":42,"result":"x"}`, `{"jsonrpc":"2.0","id":"42","result":"x"}`, false},
		{"unchanged", `"42"`, `{"jsonrpc":"2.0","id":"42","result":"x"}`, `{"jsonrpc":"2.0","id":"42","result":"x"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &Table{}
			if _, err := tb.Record([]byte(`{"jsonrpc":"2.0","id":` + tt.sent + `,"method":"m"}`)); err != nil {
				t.Fatal(err)
			}
			data := []byte(tt.resp)
			out, changed := tb.RestoreInPlace(data)
			if string(out) != tt.want || changed != (tt.want != tt.resp) {
				t.Errorf("RestoreInPlace = %s, %v; want %s, %v", out, changed, tt.want, tt.want != tt.resp)
			}
			if same := &out[0] == &data[0]; same != tt.inPlace {
				t.Errorf("result in data's memory: %v, want %v", same, tt.inPlace)
			}
			if !tt.inPlace && string(data) != tt.resp {
				t.Errorf("data changed to %s although the result is a new slice", data)
			}
		})
	}
	// A batch in which ids both shrink and grow.
	tb := &Table{}
	if _, err := tb.Record([]byte(`[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":"2","method":"m"}]`)); err != nil {
		t.Fatal(err)
	}
	in := `[{"jsonrpc":"2.0","id":"1","result":1},{"jsonrpc":"2.0","id":2,"result":2}]`
	out, changed := tb.RestoreInPlace([]byte(in))
	if want := `[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":"2","result":2}]`; string(out) != want || !changed {
		t.Errorf("RestoreInPlace of a batch = %s, %v; want %s, true", out, changed, want)
	}
}

// TestRecordRestoreAllocs checks the cost of one exchange of one request
// and its response, the common case: Record allocates once (the Exchange,
// which holds the record), Restore nothing.
func TestRecordRestoreAllocs(t *testing.T) {
	tb := &Table{}
	req := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"x"}}`)
	resp := []byte(`{"jsonrpc":"2.0","id":"12345","result":{"content":[]}}`)
	buf := make([]byte, len(resp))
	allocs := testing.AllocsPerRun(100, func() {
		ex, err := tb.Record(req)
		if err != nil || ex == nil {
			t.Fatal(err)
		}
		copy(buf, resp)
		if out, changed := tb.RestoreInPlace(buf); !changed || len(out) != len(resp)-2 {
			t.Fatalf("RestoreInPlace = %s, %v", out, changed)
		}
		tb.Release(ex, false)
	})
	if allocs != 1 {
		t.Errorf("Record + RestoreInPlace + Release allocate %v times, want 1", allocs)
	}
}

// FuzzRestore records the requests of one text and restores the responses
// of another. The output differs from the response text only within the
// spans of JSON-RPC 2.0 response ids, each replaced by a sent spelling
// Equal to it; a text that is not valid JSON comes back unchanged. (It
// replaces FuzzScanIDs, whose scanning is now internal/scan's FuzzScan.)
func FuzzRestore(f *testing.F) {
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":"2","method":"m"}]`),
		[]byte(`[{"jsonrpc":"2.0","id":"1","result":{}},{"jsonrpc":"2.0","id":2,"error":{}}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`), []byte(`{"id":"1","result":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a\u0062","method":"m"}`), []byte(` {"jsonrpc" : "2.0", "ID":"ab", "id" : "ab", "error":null} `))
	f.Add([]byte(`{"jsonrpc":"2.0","id":10,"method":"m"}`), []byte(`{"jsonrpc":"2.0","result":[1,{"id":"10"}],"id":1e1}`))
	f.Fuzz(func(t *testing.T, reqs, resps []byte) {
		tb := &Table{}
		if _, err := tb.Record(reqs); err != nil {
			t.Skip() // more than MaxPending ids
		}
		var edits [][3]int // start, end in resps; length of the replacement
		tb.Restore(resps, func(start, end int, sent []byte) {
			if len(edits) > 0 && start < edits[len(edits)-1][1] || start >= end || end > len(resps) {
				t.Fatalf("span [%d,%d) out of order or outside %q", start, end, resps)
			}
			a, err1 := rpcid.Parse(resps[start:end])
			b, err2 := rpcid.Parse(sent)
			if err1 != nil || err2 != nil || !rpcid.Equal(a, b) || bytes.Equal(resps[start:end], sent) {
				t.Fatalf("%s restored to %s: want a different spelling of an Equal id", resps[start:end], sent)
			}
			if !bytes.Contains(reqs, sent) {
				t.Fatalf("restored to %s, which the requests %q do not contain", sent, reqs)
			}
			edits = append(edits, [3]int{start, end, len(sent)})
		})
		if len(edits) > 0 && !json.Valid(resps) {
			t.Fatalf("ids restored in %q, which is not valid JSON", resps)
		}
		// Within the scope of the one exchange that recorded every id, and
		// of its session, matching is the same as without a scope.
		scoped := &Table{}
		ex, err := scoped.RecordSession(reqs, "s")
		if err != nil {
			t.Fatalf("RecordSession: %v, where Record succeeded", err)
		}
		var scopedEdits [][3]int
		scoped.Scope(ex, "s").Restore(resps, func(start, end int, sent []byte) {
			scopedEdits = append(scopedEdits, [3]int{start, end, len(sent)})
		})
		if !slices.Equal(edits, scopedEdits) {
			t.Fatalf("scoped edits %v, unscoped %v", scopedEdits, edits)
		}
		if scoped.Len() != tb.Len() {
			t.Fatalf("scoped Len %d, unscoped %d", scoped.Len(), tb.Len())
		}
	})
}
