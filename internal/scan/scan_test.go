package scan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rpcid/rpcid/internal/scan"
)

// text is a Message with its spans replaced by the text they cover ("" for
// an absent member: no JSON value is empty).
type text struct {
	Value                                      string
	Object                                     bool
	ID, Method, Result, Error, JSONRPC, Params string
	Dup, Fold                                  scan.Member
}

func texts(data string, msgs []scan.Message) []text {
	var out []text
	for _, m := range msgs {
		b := []byte(data)
		out = append(out, text{
			Value: string(m.Value.Bytes(b)), Object: m.Object,
			ID: string(m.ID.Bytes(b)), Method: string(m.Method.Bytes(b)), Result: string(m.Result.Bytes(b)),
			Error: string(m.Error.Bytes(b)), JSONRPC: string(m.JSONRPC.Bytes(b)), Params: string(m.Params.Bytes(b)),
			Dup: m.Dup, Fold: m.Fold,
		})
	}
	return out
}

func TestScanMembers(t *testing.T) {
	deep := strings.Repeat("[", 9998) + strings.Repeat("]", 9998) // with the message and batch: 10000
	tests := []struct {
		name  string
		in    string
		batch bool
		want  []text
	}{
		{"response", `{"jsonrpc":"2.0","id":"1","result":{}}`, false, []text{{
			Value: `{"jsonrpc":"2.0","id":"1","result":{}}`, Object: true, JSONRPC: `"2.0"`, ID: `"1"`, Result: `{}`}}},
		{"request", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"id":5,"method":"x"}}`, false, []text{{
			Value: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"id":5,"method":"x"}}`, Object: true,
			JSONRPC: `"2.0"`, ID: `1`, Method: `"initialize"`, Params: `{"id":5,"method":"x"}`}}},
		{"error response", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, false, []text{{
			Value: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, Object: true,
			JSONRPC: `"2.0"`, ID: `null`, Error: `{"code":-32700,"message":"Parse error"}`}}},
		{"whitespace is outside the spans", " \t{ \"id\" :\r\n 7 ,\"result\":[ 1 , 2 ] }\n", false, []text{{
			Value: "{ \"id\" :\r\n 7 ,\"result\":[ 1 , 2 ] }", Object: true, ID: `7`, Result: `[ 1 , 2 ]`}}},
		{"nested members are not reported", `{"result":{"id":1,"jsonrpc":"1.0","method":"m"}}`, false, []text{{
			Value: `{"result":{"id":1,"jsonrpc":"1.0","method":"m"}}`, Object: true, Result: `{"id":1,"jsonrpc":"1.0","method":"m"}`}}},
		{"escaped name is the name", `{"\u0069d":2,"m\u0065thod":"x"}`, false, []text{{
			Value: `{"\u0069d":2,"m\u0065thod":"x"}`, Object: true, ID: `2`, Method: `"x"`}}},
		{"two ids: the last is reported", `{"id":1,"result":0,"id":2}`, false, []text{{
			Value: `{"id":1,"result":0,"id":2}`, Object: true, ID: `2`, Result: `0`, Dup: scan.ID}}},
		{"case variant alone", `{"ID":"1","result":0}`, false, []text{{
			Value: `{"ID":"1","result":0}`, Object: true, ID: `"1"`, Result: `0`, Fold: scan.ID}}},
		{"case variant after the name", `{"id":1,"Id":"1","result":0}`, false, []text{{
			Value: `{"id":1,"Id":"1","result":0}`, Object: true, ID: `"1"`, Result: `0`, Dup: scan.ID, Fold: scan.ID}}},
		{"every member by a variant", `{"ID":1,"METHOD":2,"Result":3,"eRRoR":4,"JsonRpc":5,"PARAMS":6}`, false, []text{{
			Value: `{"ID":1,"METHOD":2,"Result":3,"eRRoR":4,"JsonRpc":5,"PARAMS":6}`, Object: true,
			ID: `1`, Method: `2`, Result: `3`, Error: `4`, JSONRPC: `5`, Params: `6`,
			Fold: scan.ID | scan.Method | scan.Result | scan.Error | scan.JSONRPC | scan.Params}}},
		{"long s folds with s", "{\"j\u017fonrpc\":\"2.0\",\"re\u017fult\":1,\"param\u017f\":2}", false, []text{{
			Value: "{\"j\u017fonrpc\":\"2.0\",\"re\u017fult\":1,\"param\u017f\":2}", Object: true,
			JSONRPC: `"2.0"`, Result: `1`, Params: `2`, Fold: scan.JSONRPC | scan.Result | scan.Params}}},
		{"escaped long s folds too", `{"re\u017Fult":1}`, false, []text{{
			Value: `{"re\u017Fult":1}`, Object: true, Result: `1`, Fold: scan.Result}}},
		{"Kelvin sign is not k, and no name has k", "{\"\u212Aid\":1}", false, []text{{
			Value: "{\"\u212Aid\":1}", Object: true}}},
		{"dotless i does not fold with i", "{\"\u0131d\":1,\"\u0130d\":2}", false, []text{{
			Value: "{\"\u0131d\":1,\"\u0130d\":2}", Object: true}}},
		{"near names", `{"ids":1,"i":2,"id ":3," id":4,"methods":5,"jsonrpc2":6,"":7}`, false, []text{{
			Value: `{"ids":1,"i":2,"id ":3," id":4,"methods":5,"jsonrpc2":6,"":7}`, Object: true}}},
		{"nested names in every spacing", "{\"result\":{\"a\" : 1,\"b\":2,\"a longer name\":3,\"c\":\n4, \"d\"\t:{\"e\":[]}}}", false, []text{{
			Value:  "{\"result\":{\"a\" : 1,\"b\":2,\"a longer name\":3,\"c\":\n4, \"d\"\t:{\"e\":[]}}}",
			Object: true, Result: "{\"a\" : 1,\"b\":2,\"a longer name\":3,\"c\":\n4, \"d\"\t:{\"e\":[]}}"}}},
		{"empty object", `{}`, false, []text{{Value: `{}`, Object: true}}},
		{"scalar text", ` "id" `, false, []text{{Value: `"id"`}}},
		{"number text", `-0.5e+3`, false, []text{{Value: `-0.5e+3`}}},
		{"empty batch", `[ ]`, true, nil},
		{"batch", `[{"id":1,"result":1}, {"id":"2","error":{}} ,{"method":"n"}]`, true, []text{
			{Value: `{"id":1,"result":1}`, Object: true, ID: `1`, Result: `1`},
			{Value: `{"id":"2","error":{}}`, Object: true, ID: `"2"`, Error: `{}`},
			{Value: `{"method":"n"}`, Object: true, Method: `"n"`},
		}},
		{"batch of non-objects", `[1,"a",null,[{"id":1}],true]`, true, []text{
			{Value: `1`}, {Value: `"a"`}, {Value: `null`}, {Value: `[{"id":1}]`}, {Value: `true`},
		}},
		{"deepest nesting encoding/json accepts", `[{"params":` + deep + `}]`, true, []text{{
			Value: `{"params":` + deep + `}`, Object: true, Params: deep}}},
		{"strings of every kind", `{"id":"a\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00é😀","result":"` + strings.Repeat("x", 100) + `"}`, false, []text{{
			Value:  `{"id":"a\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00é😀","result":"` + strings.Repeat("x", 100) + `"}`,
			Object: true, ID: `"a\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00é😀"`, Result: `"` + strings.Repeat("x", 100) + `"`}}},
		{"numbers", `{"id":[0,-0,1.5,-1e10,1E+2,2e-3,123456789012345678901234567890]}`, false, []text{{
			Value: `{"id":[0,-0,1.5,-1e10,1E+2,2e-3,123456789012345678901234567890]}`, Object: true,
			ID: `[0,-0,1.5,-1e10,1E+2,2e-3,123456789012345678901234567890]`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, batch, err := scan.Scan(nil, []byte(tt.in))
			if err != nil {
				t.Fatalf("Scan(%.60q): %v", tt.in, err)
			}
			if batch != tt.batch {
				t.Errorf("Scan(%.60q) batch = %v, want %v", tt.in, batch, tt.batch)
			}
			if diff := cmp.Diff(tt.want, texts(tt.in, msgs)); diff != "" {
				t.Errorf("Scan(%.60q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestScanSpans checks spans as offsets where the text alone would not say
// which of two equal values is meant.
func TestScanSpans(t *testing.T) {
	in := ` [ {"id":1,"result":1,"ID":1} , {"id" : 1 , "method":"1"} ] `
	// offsets: '{' 3, first "ID"'s value 27, '}' 28; '{' 32, id 40, "1" 53-55, '}' 56
	want := []scan.Message{
		{Value: scan.Span{3, 29}, Object: true, ID: scan.Span{27, 28}, Result: scan.Span{20, 21}, Dup: scan.ID, Fold: scan.ID},
		{Value: scan.Span{32, 57}, Object: true, ID: scan.Span{40, 41}, Method: scan.Span{53, 56}},
	}
	dst := make([]scan.Message, 1, 4)
	dst[0].Value = scan.Span{100, 200}
	got, batch, err := scan.Scan(dst, []byte(in))
	if err != nil || !batch {
		t.Fatalf("Scan = _, %v, %v; want a batch", batch, err)
	}
	if diff := cmp.Diff(append([]scan.Message{{Value: scan.Span{100, 200}}}, want...), got); diff != "" {
		t.Errorf("Scan appended (-want +got):\n%s", diff)
	}
}

func TestScanErrors(t *testing.T) {
	tooDeep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	tests := []struct {
		name string
		in   string
		err  error
		off  int
	}{
		{"empty", ``, scan.ErrSyntax, 0},
		{"whitespace only", " \r\n\t", scan.ErrSyntax, 4},
		{"BOM", "\ufeff{}", scan.ErrSyntax, 0},
		{"other space", "\u00a0{}", scan.ErrSyntax, 0},
		{"vertical tab", "\v{}", scan.ErrSyntax, 0},
		{"two texts", `{"id":1}{"id":2}`, scan.ErrSyntax, 8},
		{"trailing garbage", `{} x`, scan.ErrSyntax, 3},
		{"truncated object", `{"id":1,"result":`, scan.ErrSyntax, 17},
		{"truncated after name", `{"id"`, scan.ErrSyntax, 5},
		{"truncated batch", `[{"id":1}`, scan.ErrSyntax, 9},
		{"truncated batch after comma", `[{"id":1},`, scan.ErrSyntax, 10},
		{"trailing comma in batch", `[{},]`, scan.ErrSyntax, 4},
		{"trailing comma in object", `{"id":1,}`, scan.ErrSyntax, 8},
		{"trailing comma nested", `{"result":[1,]}`, scan.ErrSyntax, 13},
		{"missing comma", `{"id":1 "result":2}`, scan.ErrSyntax, 8},
		{"missing colon", `{"id" 1}`, scan.ErrSyntax, 6},
		{"name not a string", `{id:1}`, scan.ErrSyntax, 1},
		{"nested name not a string", `{"result":{1:2}}`, scan.ErrSyntax, 11},
		{"nested name without its opening quote", `{"":{0":[{}]}}`, scan.ErrSyntax, 5},
		{"name after a comma without its opening quote", `{"result":{"a":1,b":2}}`, scan.ErrSyntax, 17},
		{"truncated after a nested colon", `{"result":{"a":`, scan.ErrSyntax, 15},
		{"truncated after a nested colon and space", `{"result":{"a":1,"b": `, scan.ErrSyntax, 22},
		{"nested name without colon", `{"result":{"a" 1}}`, scan.ErrSyntax, 15},
		{"mismatched close", `{"result":[1}}`, scan.ErrSyntax, 12},
		{"mismatched close object", `{"result":{"a":1]}`, scan.ErrSyntax, 16},
		{"single quotes", `{'id':1}`, scan.ErrSyntax, 1},
		{"leading zero", `{"id":01}`, scan.ErrSyntax, 7},
		{"plus sign", `{"id":+1}`, scan.ErrSyntax, 6},
		{"bare minus", `{"id":-}`, scan.ErrSyntax, 7},
		{"no fraction digit", `{"id":1.}`, scan.ErrSyntax, 8},
		{"no exponent digit", `{"id":1e+}`, scan.ErrSyntax, 9},
		{"hex number", `{"id":0x1}`, scan.ErrSyntax, 7},
		{"NaN", `{"id":NaN}`, scan.ErrSyntax, 6},
		{"bad literal", `{"id":nul}`, scan.ErrSyntax, 9},
		{"truncated literal", `{"id":tru`, scan.ErrSyntax, 9},
		{"capital literal", `{"id":True}`, scan.ErrSyntax, 6},
		{"control character", "{\"id\":\"a\nb\"}", scan.ErrSyntax, 8},
		{"control character in name", "{\"i\td\":1}", scan.ErrSyntax, 3},
		{"DEL is allowed but not this escape", `{"id":"\a"}`, scan.ErrSyntax, 8},
		{"short \\u escape", `{"id":"\u12"}`, scan.ErrSyntax, 11},
		{"unterminated string", `{"id":"abc`, scan.ErrSyntax, 10},
		{"unterminated escape", `{"id":"\`, scan.ErrSyntax, 8},
		{"too deep", `{"params":` + tooDeep + `}`, scan.ErrSyntax, 10009},
		{"invalid UTF-8", "{\"id\":\"\xff\"}", scan.ErrInvalidUTF8, 7},
		{"invalid UTF-8 in name", "{\"\xc3\":1}", scan.ErrInvalidUTF8, 2},
		{"invalid UTF-8 nested", "{\"result\":{\"a\":[\"ok\",\"\xe2\x82\"]}}", scan.ErrInvalidUTF8, 22},
		{"overlong UTF-8", "{\"id\":\"\xc0\xaf\"}", scan.ErrInvalidUTF8, 7},
		{"UTF-8 surrogate half", "{\"id\":\"\xed\xa0\x80\"}", scan.ErrInvalidUTF8, 7},
		{"lone high surrogate", `{"id":"\ud800"}`, scan.ErrInvalidUTF8, 7},
		{"lone low surrogate", `{"id":"\udc00"}`, scan.ErrInvalidUTF8, 7},
		{"reversed pair", `{"id":"\udc00\ud800"}`, scan.ErrInvalidUTF8, 7},
		{"high then non-surrogate", `{"id":"\ud800\u0041"}`, scan.ErrInvalidUTF8, 7},
		{"high surrogate, then the end", `{"id":"\ud800`, scan.ErrSyntax, 13},
		{"high surrogate, a reverse solidus, then the end", `{"id":"\ud800\`, scan.ErrSyntax, 14},
		{"high surrogate, \\u, then the end", `{"id":"\ud800\u`, scan.ErrSyntax, 15},
		{"high surrogate, half a pair, then the end", `{"id":"\ud800\udc`, scan.ErrSyntax, 17},
		{"low surrogate, then the end", `{"id":"\udc00`, scan.ErrInvalidUTF8, 7},
		{"high surrogate, then another character, then the end", `{"id":"\ud800x`, scan.ErrInvalidUTF8, 7},
		{"lone surrogate in params", `{"params":{"\ud83d":1}}`, scan.ErrInvalidUTF8, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]scan.Message, 1, 4)
			msgs, batch, err := scan.Scan(dst, []byte(tt.in))
			var se *scan.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Scan(%.60q) error = %v, want a *SyntaxError", tt.in, err)
			}
			if !errors.Is(err, tt.err) || se.Offset != tt.off {
				t.Errorf("Scan(%.60q) error = %v (offset %d), want %v at offset %d", tt.in, err, se.Offset, tt.err, tt.off)
			}
			if len(msgs) != 1 || &msgs[0] != &dst[0] || batch {
				t.Errorf("Scan(%.60q) = %d messages, batch %v; want dst as it was, false", tt.in, len(msgs), batch)
			}
		})
	}
}

func TestIsJSONRPC20(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":0}`, true},
		{`{"jsonrpc" : "2.0"}`, true},
		{`{"jsonrpc":"2\u002e0"}`, true},
		{`{"j\u0073onrpc":"\u0032.0"}`, true},
		{`{"id":"5","result":{}}`, false},
		{`{"jsonrpc":"1.0"}`, false},
		{`{"jsonrpc":2.0}`, false},
		{`{"jsonrpc":"2.0 "}`, false},
		{`{"jsonrpc":"2.00"}`, false},
		{`{"jsonrpc":"2.0","jsonrpc":"2.0"}`, false},
		{`{"JSONRPC":"2.0"}`, false},
		{`{"jsonrpc":"2.0","Jsonrpc":"2.0"}`, false},
		{`{"params":{"jsonrpc":"2.0"}}`, false},
		{`"jsonrpc"`, false},
		{`{"jsonrpc":"\u00322.0"}`, false},
		{`{"jsonrpc":"2.0\u0000"}`, false},
	}
	for _, tt := range tests {
		msgs, _, err := scan.Scan(nil, []byte(tt.in))
		if err != nil || len(msgs) != 1 {
			t.Fatalf("Scan(%q) = %d messages, %v", tt.in, len(msgs), err)
		}
		if got := msgs[0].IsJSONRPC20([]byte(tt.in)); got != tt.want {
			t.Errorf("IsJSONRPC20 of %s = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestUnambiguous(t *testing.T) {
	msgs, _, err := scan.Scan(nil, []byte(`{"jsonrpc":"2.0","id":1,"Result":2,"error":3,"error":4}`))
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[0]
	for _, tt := range []struct {
		set  scan.Member
		want bool
	}{
		{scan.ID, true}, {scan.ID | scan.JSONRPC | scan.Method | scan.Params, true},
		{scan.Result, false}, {scan.Error, false}, {scan.ID | scan.Error, false}, {0, true},
	} {
		if got := m.Unambiguous(tt.set); got != tt.want {
			t.Errorf("Unambiguous(%06b) = %v, want %v", tt.set, got, tt.want)
		}
	}
}

// Scan takes texts nested more deeply than its first try has room for (it
// scans them again with room for 10000) as it takes shallow ones: at every
// depth around the boundaries of the first try's stack, in arrays, objects
// and a mix, alone and in a batch, valid and with a fault before, within
// and after the deep part, each at its offset, and nesting deeper than
// 10000 at the container that goes too deep.
func TestScanDepths(t *testing.T) {
	for _, n := range []int{62, 63, 64, 65, 127, 128, 191, 192, 253, 254, 255, 256, 257, 258, 511, 512, 9998, 9999} {
		for _, shape := range []string{"array", "object", "mixed"} {
			isArray := func(j int) bool { return shape == "array" || shape == "mixed" && j%3 == 1 }
			open := func(k int) string { // k containers, the innermost needing a value
				var b strings.Builder
				for j := 0; j < k; j++ {
					if isArray(j) {
						b.WriteString("[")
					} else {
						b.WriteString(`{"a":`)
					}
				}
				return b.String()
			}
			closing := func(k int) string {
				var b strings.Builder
				for j := k - 1; j >= 0; j-- {
					if isArray(j) {
						b.WriteString("]")
					} else {
						b.WriteString("}")
					}
				}
				return b.String()
			}
			nested := open(n) + "1" + closing(n)
			for _, batch := range []bool{false, true} {
				msg := `{"params":` + nested + `,"id":1}`
				in, outer, want := msg, 1, 1 // outer: the containers around nested
				if batch {
					in, outer, want = "["+msg+`,{"id":2}]`, 2, 2
				}
				name := func(what string) string {
					return fmt.Sprintf("%s, %d nested in %s", what, n, map[bool]string{false: shape, true: shape + " in a batch"}[batch])
				}
				msgs, _, err := scan.Scan(nil, []byte(in))
				if outer+n > 10000 {
					// The container that goes too deep is the (10001-outer)th.
					off := strings.Index(in, nested) + len(open(10000-outer))
					var se *scan.SyntaxError
					if !errors.As(err, &se) || !errors.Is(err, scan.ErrSyntax) || se.Offset != off {
						t.Errorf("%s: %v, want ErrSyntax at offset %d", name("too deep"), err, off)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", name("valid"), err)
					continue
				}
				if len(msgs) != want || string(msgs[0].Params.Bytes([]byte(in))) != nested || string(msgs[0].ID.Bytes([]byte(in))) != "1" {
					t.Errorf("%s: %d messages, params %.40q, id %q", name("valid"), len(msgs), msgs[0].Params.Bytes([]byte(in)), msgs[0].ID.Bytes([]byte(in)))
				}
				for _, f := range []struct{ what, in string }{
					{"fault before", strings.Replace(in, `{"params":`, `{"id":x,"params":`, 1)},
					{"fault within", strings.Replace(in, nested, open(n)+"x"+closing(n), 1)},
					{"fault after", strings.Replace(in, `,"id":1}`, `,"id":x}`, 1)},
				} {
					_, _, err := scan.Scan(nil, []byte(f.in))
					var se *scan.SyntaxError
					if off := strings.Index(f.in, "x"); !errors.As(err, &se) || !errors.Is(err, scan.ErrSyntax) || se.Offset != off {
						t.Errorf("%s: %v, want ErrSyntax at offset %d", name(f.what), err, off)
					}
				}
			}
		}
	}
}
