package scan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rpcid/rpcid/internal/scan"
)

// envelope is what encoding/json decodes for the members Scan reports: its
// struct field matching takes names case-insensitively and keeps the last.
type envelope struct {
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	JSONRPC json.RawMessage `json:"jsonrpc"`
	Params  json.RawMessage `json:"params"`
}

var memberNames = []struct {
	m    scan.Member
	name string
}{
	{scan.ID, "id"}, {scan.Method, "method"}, {scan.Result, "result"},
	{scan.Error, "error"}, {scan.JSONRPC, "jsonrpc"}, {scan.Params, "params"},
}

// hasLoneSurrogate reports whether text, which json.Valid accepts, has a
// \u escape of a UTF-16 surrogate that is not half of a high-low pair.
func hasLoneSurrogate(text []byte) bool {
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if text[i+1] != 'u' {
				i++
				continue
			}
			r := hexValue(text[i+2 : i+6])
			i += 5
			switch {
			case r < 0xD800 || r > 0xDFFF:
			case r >= 0xDC00:
				return true
			case i+6 < len(text) && text[i+1] == '\\' && text[i+2] == 'u':
				if r2 := hexValue(text[i+3 : i+7]); r2 < 0xDC00 || r2 > 0xDFFF {
					return true
				}
				i += 6
			default:
				return true
			}
		}
	}
	return false
}

func hexValue(b []byte) int {
	v := 0
	for _, c := range b {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= int(c - '0')
		case c >= 'a' && c <= 'f':
			v |= int(c-'a') + 10
		default:
			v |= int(c-'A') + 10
		}
	}
	return v
}

// checkScan checks Scan of data against encoding/json.
func checkScan(t *testing.T, data []byte) {
	msgs, batch, err := scan.Scan(nil, data)
	valid := json.Valid(data)
	strict := valid && utf8.Valid(data) && !hasLoneSurrogate(data)
	if err != nil {
		var se *scan.SyntaxError
		if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
			t.Fatalf("Scan(%q) error %v: want a *SyntaxError with an offset within the text", data, err)
		}
		if strict {
			t.Fatalf("Scan(%q) = %v; encoding/json accepts it, and it has valid UTF-8 and no lone surrogate", data, err)
		}
		if valid && !errors.Is(err, scan.ErrInvalidUTF8) {
			t.Fatalf("Scan(%q) = %v; json.Valid accepts it, so the fault must be invalid UTF-8", data, err)
		}
		return
	}
	if !strict {
		t.Fatalf("Scan(%q) accepted it; json.Valid = %v, and UTF-8 or surrogates are invalid", data, valid)
	}

	// The messages: the text, or each element of the batch.
	var values []json.RawMessage
	if batch {
		if err := json.Unmarshal(data, &values); err != nil {
			t.Fatalf("Scan(%q) says batch; encoding/json: %v", data, err)
		}
	} else {
		values = []json.RawMessage{bytes.Trim(data, " \t\r\n")}
	}
	if len(msgs) != len(values) {
		t.Fatalf("Scan(%q) = %d messages, encoding/json has %d", data, len(msgs), len(values))
	}
	for k, m := range msgs {
		v := values[k]
		if got := m.Value.Bytes(data); !bytes.Equal(got, v) {
			t.Fatalf("Scan(%q) message %d = %q, encoding/json has %q", data, k, got, v)
		}
		if m.Object != (v[0] == '{') {
			t.Fatalf("Scan(%q) message %d: Object = %v for %q", data, k, m.Object, v)
		}
		if !m.Object {
			if m != (scan.Message{Value: m.Value}) {
				t.Fatalf("Scan(%q) message %d is not an object but has members: %+v", data, k, m)
			}
			continue
		}
		checkMembers(t, data, m, v)
	}
}

// checkMembers compares the members Scan reports for the object v with
// encoding/json's struct and map decodings and with the names its
// Decoder lists.
func checkMembers(t *testing.T, data []byte, m scan.Message, v []byte) {
	var env envelope
	var byName map[string]json.RawMessage
	if err := json.Unmarshal(v, &env); err != nil {
		t.Fatalf("decoding %q into a struct: %v", v, err)
	}
	if err := json.Unmarshal(v, &byName); err != nil {
		t.Fatalf("decoding %q into a map: %v", v, err)
	}
	byField := map[scan.Member]json.RawMessage{
		scan.ID: env.ID, scan.Method: env.Method, scan.Result: env.Result,
		scan.Error: env.Error, scan.JSONRPC: env.JSONRPC, scan.Params: env.Params,
	}
	spans := map[scan.Member]scan.Span{
		scan.ID: m.ID, scan.Method: m.Method, scan.Result: m.Result,
		scan.Error: m.Error, scan.JSONRPC: m.JSONRPC, scan.Params: m.Params,
	}

	// The names as encoding/json's Decoder reads them, duplicates included.
	var dup, fold scan.Member
	count := map[scan.Member]int{}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.Token() // '{'
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("reading the names of %q: %v", v, err)
		}
		name := tok.(string)
		for _, mn := range memberNames {
			if strings.EqualFold(name, mn.name) {
				if count[mn.m]++; count[mn.m] > 1 {
					dup |= mn.m
				}
				if name != mn.name {
					fold |= mn.m
				}
			}
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("reading the values of %q: %v", v, err)
		}
	}
	if m.Dup != dup || m.Fold != fold {
		t.Fatalf("Scan(%q): Dup %06b Fold %06b, encoding/json's names give Dup %06b Fold %06b", data, m.Dup, m.Fold, dup, fold)
	}
	for _, mn := range memberNames {
		sp := spans[mn.m]
		got := sp.Bytes(data)
		if want := byField[mn.m]; !bytes.Equal(got, want) {
			t.Fatalf("Scan(%q): %s = %q, encoding/json's struct decoding has %q", data, mn.name, got, want)
		}
		if got != nil && (sp.Start < m.Value.Start || sp.End > m.Value.End) {
			t.Fatalf("Scan(%q): %s span %v outside its message %v", data, mn.name, sp, m.Value)
		}
		if fold&mn.m == 0 {
			if want := byName[mn.name]; !bytes.Equal(got, want) {
				t.Fatalf("Scan(%q): %s = %q, encoding/json's map decoding has %q", data, mn.name, got, want)
			}
		}
	}
	var version string
	isV2 := m.Unambiguous(scan.JSONRPC) && env.JSONRPC != nil && json.Unmarshal(env.JSONRPC, &version) == nil && version == "2.0"
	if got := m.IsJSONRPC20(data); got != isV2 {
		t.Fatalf("Scan(%q): IsJSONRPC20 = %v, encoding/json decodes jsonrpc %s", data, got, env.JSONRPC)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","id":"1","result":{"content":[{"type":"text","text":"a\nb"}]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","method":"n"},3,[],{}]`,
		`{"id":1,"ID":2,"Id":3,"result":0}`,
		"{\"j\u017fonrpc\":\"2.0\",\"re\u017fult\":1,\"\\u0069d\":\"\\ud83d\\ude00\"}",
		`{"jsonrpc":"2\u002e0","METHOD":"x","Params":[1e5,-0.5,true,false,null]}`,
		` [ ] `, `"x"`, `-1.5e-7`, `{"id":"\ud800"}`, "{\"id\":\"\xff\"}", `{"id":01}`, `[{"a":[}]`,
		`{"params":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
		`{"params":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		`{"result":"` + strings.Repeat(`x\"`, 40) + `"}`,
		// Escapes close together, where str checks eight bytes at once:
		// runs of reverse solidi across eight-byte boundaries, \u, an
		// invalid escape, a control character and UTF-8 among them.
		`{"result":"\t\t\tif x {\n\t\t\treturn \"a\\\\b\"\n\t\t}\n\t\t\u00e9\t\t\"\\\"\\\\\"x"}`,
		`{"result":"\n\n\\\\\\\\\\\\\\\\"\"\"\"\\u0041\\\\\\\u0041"}`,
		"{\"result\":\"\\n\\t\\r\\b\\f\\/ \u00e9\u20ac\U0001F600\\n\\t\"}",
		`{"result":"\n\t\r\q"}`, "{\"result\":\"\\n\\t\x01\"}", "{\"result\":\"\\n\\t\xc3\"}",
		`{"result":"\n\t\ud83d\ude00\n\t\ud83dx"}`, `{"result":"\n\t\"\\"}`, `{"result":"\n\t\\"`,
		// Long strings: escapes and runs of reverse solidi across
		// eight-byte boundaries, and each kind of byte that stops str's
		// eight-byte steps.
		`{"result":"` + strings.Repeat(`abc\\\"de\n`, 30) + `"}`,
		`{"result":"` + strings.Repeat("x", 62) + `\\\"` + strings.Repeat("y", 70) + `"}`,
		`{"result":"` + strings.Repeat("x", 63) + `\"` + strings.Repeat("y", 70) + `"}`,
		`{"result":"` + strings.Repeat("x", 70) + `\u00e9` + strings.Repeat("y", 70) + `\q"}`,
		"{\"result\":\"" + strings.Repeat("x", 70) + "\u00e9\x01" + strings.Repeat("y", 70) + "\"}",
		"{\"result\":\"" + strings.Repeat("xé", 70) + "\xff\"}",
		// Runs of UTF-8 (utf8Run): sequences across eight-byte
		// boundaries, a sequence cut short where a run or the string
		// ends, invalid bytes after the string's end, after an escape.
		"{\"result\":\"" + strings.Repeat("東京", 40) + "\"}",
		"{\"result\":\"" + strings.Repeat("東京", 20) + "\xe6\x9d" + strings.Repeat("x", 70) + "\"}",
		"{\"result\":\"" + strings.Repeat("x", 61) + "\xf0\x9f\x98\x80" + strings.Repeat("é", 40) + "\xed\xa0\x80\"}",
		"{\"result\":\"" + strings.Repeat("x", 62) + "\xe2\x82\"" + strings.Repeat("y", 70) + "\"}",
		"{\"result\":\"" + strings.Repeat("x", 70) + "\",\"id\":\"\xc0\xaf" + strings.Repeat("y", 70) + "\"}",
		"{\"result\":\"" + strings.Repeat("x", 32) + `\n` + strings.Repeat("x", 61) + "\xe2\x82" + strings.Repeat("y", 70) + "\"}",
		// Many values of every kind at several depths; a u that starts a
		// literal after a string is no \u escape of it, as a value and as
		// a member name.
		`{"jsonrpc":"2.0","id":"req-7","result":{"tools":[{"name":"tool_1","description":"Reads rows 10 to 19 of a table.","inputSchema":{"type":"object","properties":{"table":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":101}},"required":["table"]},"annotations":{"readOnlyHint":true,"idempotentHint":false}}],"nextCursor":null}}`,
		`{"id":1,"params":[0,-0,1.5,-2e-3,3E+4,true,false,null,"",{},[],[[]],{"a":{}},"\u00e9\ud83d\ude00\n\"\\\/",{"\u0041b":"c"}, "x" , 12 ]}`,
		`[{"jsonrpc":"2.0","id":1,"params":{"a":[1,2,3],"b":{"c":"d"},"e":"fffffffffffffffffffffffffffffffffffffffffffffffff"}},{"jsonrpc":"2.0","id":2,"params":{"x":[{"y":"z"},{"y":"z"}]}}]`,
		`{"result":["\ud800\udC00"u00000,"\u0041"u0041,"x"u0041,{"\u0041"u0041:1},{"a"u0041:1},"\\"u0041]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkScan)
}

// Scan agrees with encoding/json on every prefix of texts whose short
// strings, names and integers (which value checks in line) end at every
// offset within and just past the 16 bytes it looks at, and on the texts
// with a byte changed at each offset.
func TestScanPrefixes(t *testing.T) {
	var texts []string
	for n := 0; n <= 18; n++ {
		w := strings.Repeat("w", n)
		texts = append(texts,
			`{"p":{"`+w+`":"`+w+`"},"id":[`+strings.Repeat("7", n+1)+`,"`+w+`"]}`,
			`[{"`+w+`":{"`+w+`":1}}, {"`+w+`" : -1.5e3}]`,
			`{"`+w+`":[`+strings.Repeat("1", n+1)+`.5,`+strings.Repeat("2", n+1)+`e1,0,`+strings.Repeat("3", n+1)+`]}`,
		)
	}
	for _, text := range texts {
		for k := 0; k <= len(text); k++ {
			checkScan(t, []byte(text[:k]))
		}
		for k := 0; k < len(text); k++ {
			for _, c := range []byte{'"', ':', ',', '}', ']', '\\', 'x', 0x01, 0xff} {
				b := []byte(text)
				b[k] = c
				checkScan(t, b)
			}
		}
	}
}

// Strings and member names of every length up to 20 with each byte that
// stops the in-line check of short plain strings in value (or a plain one,
// DEL) at each offset, followed by up to 18 bytes, as a member's value and
// as a member's name in a nested object: Scan agrees with encoding/json and
// reports the spans, whichever path takes them.
func TestShortStrings(t *testing.T) {
	stops := []string{`"`, "\x7f", `\`, `\n`, "\x01", "\x1f", "\x80", "é", "\xff"}
	for n := 0; n <= 20; n++ {
		for p := -1; p < n; p++ { // p < 0: no stop byte in the contents
			for _, stop := range stops {
				var b []byte
				for k := 0; k < n; k++ {
					if k == p {
						b = append(b, stop...)
					} else {
						b = append(b, 'a'+byte(k))
					}
				}
				str := `"` + string(b) + `"`
				for tail := 0; tail <= 18; tail++ {
					pad := strings.Repeat(" ", tail)
					for _, text := range []string{
						`{"p":[` + str + pad + `]}`,
						`{"p":{"k":` + str + pad + `}}`,
						`{"p":{` + str + pad + `:1}}`,
						`{"p":{"k":0,` + str + `:` + pad + `1}}`,
						`{"p":[` + str, // cut short after it
						`{"p":{` + str + `:`,
					} {
						checkScan(t, []byte(text))
					}
				}
			}
		}
	}
}
