package rpcid_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rpcid/rpcid"
)

// ID and Key must stay comparable: this fails to compile otherwise.
var (
	_ = map[rpcid.ID]bool{}
	_ = map[rpcid.Key]bool{}
)

// equateIDs makes go-cmp decide IDs and Keys with ==, the contract of the
// type, instead of looking at unexported fields.
var equateIDs = cmpopts.EquateComparable(rpcid.ID{}, rpcid.Key{})

// parsed is what a test expects of Parse for one input.
type parsed struct {
	Kind rpcid.Kind
	JSON string // AppendJSON output
	Key  string // Key().String()
}

func parseResult(id rpcid.ID) parsed {
	return parsed{id.Kind(), string(id.AppendJSON(nil)), id.Key().String()}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want parsed
	}{
		// Rule 1: null.
		{`null`, parsed{rpcid.KindNull, `null`, `null`}},
		{" \t\r\nnull\n", parsed{rpcid.KindNull, `null`, `null`}},
		// Rule 2: integers within int64, whatever the spelling.
		{`0`, parsed{rpcid.KindInt, `0`, `0`}},
		{`-0`, parsed{rpcid.KindInt, `0`, `0`}},
		{`-0.0e-5`, parsed{rpcid.KindInt, `0`, `0`}},
		{`0e99999999999999999999999999`, parsed{rpcid.KindInt, `0`, `0`}},
		{`1`, parsed{rpcid.KindInt, `1`, `1`}},
		{`1.0`, parsed{rpcid.KindInt, `1`, `1`}},
		{`1e0`, parsed{rpcid.KindInt, `1`, `1`}},
		{`1E+0`, parsed{rpcid.KindInt, `1`, `1`}},
		{`1e3`, parsed{rpcid.KindInt, `1000`, `1000`}},
		{`100e-2`, parsed{rpcid.KindInt, `1`, `1`}},
		{`0.1e1`, parsed{rpcid.KindInt, `1`, `1`}},
		{`0.00012e4`, parsed{rpcid.KindNumber, `0.00012e4`, `12e-1`}},
		{`0.0001e4`, parsed{rpcid.KindInt, `1`, `1`}},
		{`1500.0e-2`, parsed{rpcid.KindInt, `15`, `15`}},
		{`-12`, parsed{rpcid.KindInt, `-12`, `-12`}},
		{`1234567`, parsed{rpcid.KindInt, `1234567`, `1234567`}},
		{`9007199254740993`, parsed{rpcid.KindInt, `9007199254740993`, `9007199254740993`}},
		{`9223372036854775807`, parsed{rpcid.KindInt, `9223372036854775807`, `9223372036854775807`}},
		{`922337203685477580.7e1`, parsed{rpcid.KindInt, `9223372036854775807`, `9223372036854775807`}},
		{`-9223372036854775808`, parsed{rpcid.KindInt, `-9223372036854775808`, `-9223372036854775808`}},
		{`-9.223372036854775808e18`, parsed{rpcid.KindInt, `-9223372036854775808`, `-9223372036854775808`}},
		{`1000000000000000000`, parsed{rpcid.KindInt, `1000000000000000000`, `1000000000000000000`}},
		{`1e18`, parsed{rpcid.KindInt, `1000000000000000000`, `1000000000000000000`}},
		{`0000`[3:], parsed{rpcid.KindInt, `0`, `0`}},
		// Rule 3: other numbers keep their text and have a canonical key.
		{`9223372036854775808`, parsed{rpcid.KindNumber, `9223372036854775808`, `9223372036854775808`}},
		{`-9223372036854775809`, parsed{rpcid.KindNumber, `-9223372036854775809`, `-9223372036854775809`}},
		{`18446744073709551615`, parsed{rpcid.KindNumber, `18446744073709551615`, `18446744073709551615`}},
		{`1e19`, parsed{rpcid.KindNumber, `1e19`, `1e19`}},
		{`10e18`, parsed{rpcid.KindNumber, `10e18`, `1e19`}},
		{`99999999999999999999`, parsed{rpcid.KindNumber, `99999999999999999999`, `99999999999999999999`}},
		{`1.5`, parsed{rpcid.KindNumber, `1.5`, `15e-1`}},
		{`15e-1`, parsed{rpcid.KindNumber, `15e-1`, `15e-1`}},
		{`1.50`, parsed{rpcid.KindNumber, `1.50`, `15e-1`}},
		{`0.15E+1`, parsed{rpcid.KindNumber, `0.15E+1`, `15e-1`}},
		{`-0.0015`, parsed{rpcid.KindNumber, `-0.0015`, `-15e-4`}},
		{`1e400`, parsed{rpcid.KindNumber, `1e400`, `1e400`}},
		{`10e399`, parsed{rpcid.KindNumber, `10e399`, `1e400`}},
		{`1e-400`, parsed{rpcid.KindNumber, `1e-400`, `1e-400`}},
		{`1e999999999999999999`, parsed{rpcid.KindNumber, `1e999999999999999999`, `1e999999999999999999`}},
		{`1e-000000000000000000000000001`, parsed{rpcid.KindNumber, `1e-000000000000000000000000001`, `1e-1`}},
		{`0.1e1000000000000000000`, parsed{rpcid.KindNumber, `0.1e1000000000000000000`, `1e999999999999999999`}},
		{`-1e-999999999999999999`, parsed{rpcid.KindNumber, `-1e-999999999999999999`, `-1e-999999999999999999`}},
		{`100e999999999999999997`, parsed{rpcid.KindNumber, `100e999999999999999997`, `1e999999999999999999`}},
		{` 2.5 `, parsed{rpcid.KindNumber, `2.5`, `25e-1`}},
		// Rule 4: strings, escapes resolved.
		{`""`, parsed{rpcid.KindString, `""`, `""`}},
		{`"abc"`, parsed{rpcid.KindString, `"abc"`, `"abc"`}},
		{`"\u0041\/\b\f\n\r\t\"\\"`, parsed{rpcid.KindString, `"A/\b\f\n\r\t\"\\"`, `"A/\b\f\n\r\t\"\\"`}},
		{`"\u00e9"`, parsed{rpcid.KindString, `"é"`, `"é"`}},
		{`"\uD83D\uDE00"`, parsed{rpcid.KindString, `"😀"`, `"😀"`}},
		{`"\u001f\u007f"`, parsed{rpcid.KindString, "\"\\u001f\x7f\"", "\"\\u001f\x7f\""}},
		{`"日本"`, parsed{rpcid.KindString, `"日本"`, `"日本"`}},
		// Rule 5: canonical integer strings have the integer's key.
		{`"0"`, parsed{rpcid.KindString, `"0"`, `0`}},
		{`"-12"`, parsed{rpcid.KindString, `"-12"`, `-12`}},
		{`"\u0031"`, parsed{rpcid.KindString, `"1"`, `1`}},
		{`"9223372036854775807"`, parsed{rpcid.KindString, `"9223372036854775807"`, `9223372036854775807`}},
		{`"-9223372036854775808"`, parsed{rpcid.KindString, `"-9223372036854775808"`, `-9223372036854775808`}},
		{`"9223372036854775808"`, parsed{rpcid.KindString, `"9223372036854775808"`, `"9223372036854775808"`}},
		{`"01"`, parsed{rpcid.KindString, `"01"`, `"01"`}},
		{`"-0"`, parsed{rpcid.KindString, `"-0"`, `"-0"`}},
		{`"+1"`, parsed{rpcid.KindString, `"+1"`, `"+1"`}},
		{`" 1"`, parsed{rpcid.KindString, `" 1"`, `" 1"`}},
		{`"1.0"`, parsed{rpcid.KindString, `"1.0"`, `"1.0"`}},
		{`"１"`, parsed{rpcid.KindString, `"１"`, `"１"`}},
	}
	for _, tt := range tests {
		id, err := rpcid.Parse([]byte(tt.in))
		if err != nil {
			t.Errorf("Parse(%q) error: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, parseResult(id)); diff != "" {
			t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		// Lossless round trip: the JSON written reads back as the same ID.
		again, err := rpcid.Parse(id.AppendJSON(nil))
		if err != nil || again != id {
			t.Errorf("Parse(AppendJSON(Parse(%q))) = %v, %v; want %v", tt.in, again, err, id)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		err    error
		offset int
	}{
		{``, rpcid.ErrSyntax, 0},
		{" \t", rpcid.ErrSyntax, 2},
		{"\ufeff1", rpcid.ErrSyntax, 0},  // BOM is not JSON whitespace
		{"\u00a01", rpcid.ErrSyntax, 0},  // nor is NBSP
		{"1\v", rpcid.ErrSyntax, 1},      // nor vertical tab
		{"\f1", rpcid.ErrSyntax, 0},      // nor form feed
		{`1 2`, rpcid.ErrSyntax, 2},      // a second value
		{`"a""b"`, rpcid.ErrSyntax, 3},   // a second value
		{`01`, rpcid.ErrSyntax, 1},       // leading zero
		{`+1`, rpcid.ErrSyntax, 0},       // plus sign
		{`-`, rpcid.ErrSyntax, 1},        // sign alone
		{`-a`, rpcid.ErrSyntax, 1},       // sign without digit
		{`.5`, rpcid.ErrSyntax, 0},       // no integer part
		{`1.`, rpcid.ErrSyntax, 2},       // no fraction digits
		{`1.e3`, rpcid.ErrSyntax, 2},     // no fraction digits
		{`1e`, rpcid.ErrSyntax, 2},       // no exponent digits
		{`1e+`, rpcid.ErrSyntax, 3},      // no exponent digits
		{`0x1`, rpcid.ErrSyntax, 1},      // hexadecimal
		{`1_0`, rpcid.ErrSyntax, 1},      // digit separator
		{`NaN`, rpcid.ErrSyntax, 0},      // not JSON
		{`Infinity`, rpcid.ErrSyntax, 0}, // not JSON
		{`nul`, rpcid.ErrSyntax, 3},      // truncated literal
		{`nulL`, rpcid.ErrSyntax, 3},     // wrong literal
		{`None`, rpcid.ErrSyntax, 0},     // Python
		{`"abc`, rpcid.ErrSyntax, 4},     // unterminated string
		{`"a\`, rpcid.ErrSyntax, 3},      // unterminated escape
		{`"\x41"`, rpcid.ErrSyntax, 2},   // not a JSON escape
		{`"\u12"`, rpcid.ErrSyntax, 5},   // short \u escape
		{`"\u12G4"`, rpcid.ErrSyntax, 5}, // bad hex digit
		{"\"a\tb\"", rpcid.ErrSyntax, 2}, // raw control character
		{"\"a\x00b\"", rpcid.ErrSyntax, 2},
		{`'1'`, rpcid.ErrSyntax, 0},                           // single quotes
		{`[1,2`, rpcid.ErrSyntax, 4},                          // unterminated array
		{`[1,]`, rpcid.ErrSyntax, 3},                          // trailing comma
		{`{"a" 1}`, rpcid.ErrSyntax, 5},                       // missing colon
		{`{"a":1,}`, rpcid.ErrSyntax, 7},                      // trailing comma
		{`{1:2}`, rpcid.ErrSyntax, 1},                         // member name not a string
		{`[}`, rpcid.ErrSyntax, 1},                            // mismatched bracket
		{`[1] 2`, rpcid.ErrSyntax, 4},                         // syntax beats type
		{`true false`, rpcid.ErrSyntax, 5},                    // syntax beats type
		{`1e9999999999999999999 x`, rpcid.ErrSyntax, 22},      // syntax beats range
		{"\"\xff\"", rpcid.ErrInvalidUTF8, 1},                 // invalid byte
		{"\"a\xc3\"", rpcid.ErrInvalidUTF8, 2},                // truncated sequence
		{"\"\xed\xa0\x80\"", rpcid.ErrInvalidUTF8, 1},         // surrogate encoded in UTF-8
		{"\"\xc0\xaf\"", rpcid.ErrInvalidUTF8, 1},             // overlong encoding
		{`"\ud800"`, rpcid.ErrInvalidUTF8, 1},                 // lone high surrogate
		{`"x\udc00"`, rpcid.ErrInvalidUTF8, 2},                // lone low surrogate
		{`"\ud800\u0041"`, rpcid.ErrInvalidUTF8, 1},           // high surrogate, then not low
		{`"\ud800\ud800"`, rpcid.ErrInvalidUTF8, 1},           // two high surrogates
		{"[\"\xff\"]", rpcid.ErrInvalidUTF8, 2},               // inside an array too
		{`true`, rpcid.ErrType, 0},                            // JSON-RPC 2.0 section 4
		{` false `, rpcid.ErrType, 1},                         //
		{`{}`, rpcid.ErrType, 0},                              //
		{`{"id":1}`, rpcid.ErrType, 0},                        //
		{` [1, "a", {"b": [null, true]}] `, rpcid.ErrType, 1}, //
		{`[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]`, rpcid.ErrType, 0},
		{`1e9999999999999999999`, rpcid.ErrRange, 1},     // 19-digit exponent
		{`-2.5E-1234567890123456789`, rpcid.ErrRange, 4}, //
		{`10e999999999999999999`, rpcid.ErrRange, 2},     // value exponent 10^18
		{`0.001e-999999999999999998`, rpcid.ErrRange, 5}, // value exponent -(10^18+1)
		{`1e1000000000000000000`, rpcid.ErrRange, 1},     //
	}
	for _, tt := range tests {
		id, err := rpcid.Parse([]byte(tt.in))
		if err == nil {
			t.Errorf("Parse(%q) = %v, want error %v", tt.in, id, tt.err)
			continue
		}
		if !errors.Is(err, tt.err) {
			t.Errorf("Parse(%q) error = %v, want %v", tt.in, err, tt.err)
		}
		var e *rpcid.Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) error %T is not *rpcid.Error", tt.in, err)
			continue
		}
		if e.Offset != tt.offset {
			t.Errorf("Parse(%q) error offset = %d, want %d (%v)", tt.in, e.Offset, tt.offset, err)
		}
		if e.Func != "Parse" || !strings.HasPrefix(err.Error(), "rpcid: Parse ") {
			t.Errorf("Parse(%q) error = %q (Func %q), want prefix %q", tt.in, err, e.Func, "rpcid: Parse ")
		}
		if id != (rpcid.ID{}) {
			t.Errorf("Parse(%q) returned %v with its error, want the zero ID", tt.in, id)
		}
	}
}

func TestErrorDoesNotRetainInput(t *testing.T) {
	in := []byte(`"` + strings.Repeat("x", 100) + "\xff\"")
	_, err := rpcid.Parse(in)
	var e *rpcid.Error
	if !errors.As(err, &e) {
		t.Fatalf("Parse: got %v, want *rpcid.Error", err)
	}
	if len(e.Input) != 64 {
		t.Errorf("len(Error.Input) = %d, want 64", len(e.Input))
	}
	for i := range in {
		in[i] = 'z'
	}
	if want := `"` + strings.Repeat("x", 63); e.Input != want {
		t.Errorf("Error.Input changed with the caller's buffer: %q", e.Input)
	}
	if want := `rpcid: Parse "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...: invalid UTF-8 byte 0xff in string at byte offset 101: invalid UTF-8 in string`; err.Error() != want {
		t.Errorf("Error() =\n%s\nwant\n%s", err, want)
	}

	// An input of exactly 64 bytes is quoted whole, without "...".
	exact := `"` + strings.Repeat("y", 61) + "\xff\""
	_, err = rpcid.Parse([]byte(exact))
	if want := `rpcid: Parse "\"` + strings.Repeat("y", 61) + `\xff\"": invalid UTF-8 byte 0xff in string at byte offset 62: invalid UTF-8 in string`; err == nil || err.Error() != want {
		t.Errorf("Error() =\n%v\nwant\n%s", err, want)
	}
}

func TestMustParse(t *testing.T) {
	if got := rpcid.MustParse(`7`); got != rpcid.Int(7) {
		t.Errorf("MustParse(7) = %v", got)
	}
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, rpcid.ErrSyntax) {
			t.Errorf("MustParse(`{`) panicked with %v, want an ErrSyntax error", r)
		}
	}()
	rpcid.MustParse(`{`)
	t.Error("MustParse(`{`) did not panic")
}

func TestConstructors(t *testing.T) {
	tests := []struct {
		name string
		id   rpcid.ID
		want parsed
	}{
		{"Int(0)", rpcid.Int(0), parsed{rpcid.KindInt, `0`, `0`}},
		{"Int(min)", rpcid.Int(math.MinInt64), parsed{rpcid.KindInt, `-9223372036854775808`, `-9223372036854775808`}},
		{"Null", rpcid.Null(), parsed{rpcid.KindNull, `null`, `null`}},
		{"String(5)", rpcid.String("5"), parsed{rpcid.KindString, `"5"`, `5`}},
		{"String(05)", rpcid.String("05"), parsed{rpcid.KindString, `"05"`, `"05"`}},
		{"String(ctl)", rpcid.String("a\x00\x1f\"\\<>&\u2028"), parsed{rpcid.KindString, "\"a\\u0000\\u001f\\\"\\\\<>&\u2028\"", "\"a\\u0000\\u001f\\\"\\\\<>&\u2028\""}},
		{"String(invalid)", rpcid.String("a\xff\xfeb\xc3"), parsed{rpcid.KindString, "\"a\uFFFD\uFFFDb\uFFFD\"", "\"a\uFFFD\uFFFDb\uFFFD\""}},
		{"zero", rpcid.ID{}, parsed{rpcid.KindAbsent, ``, `absent`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parseResult(tt.id)); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", tt.name, diff)
		}
		if tt.id.IsZero() {
			continue
		}
		again, err := rpcid.Parse(tt.id.AppendJSON(nil))
		if err != nil || again != tt.id {
			t.Errorf("%s: Parse(AppendJSON) = %v, %v; want %v", tt.name, again, err, tt.id)
		}
	}
	// The stored form does not depend on how an ID was made.
	if rpcid.String("5") != rpcid.MustParse(`"5"`) || rpcid.String("5") != rpcid.MustParse(`"\u0035"`) {
		t.Error(`String("5") differs from Parse("\"5\"")`)
	}
	if rpcid.Int(5) == rpcid.String("5") {
		t.Error(`Int(5) == String("5"): the form received must be kept`)
	}
	if rpcid.Int(1) != rpcid.MustParse(`1.0`) {
		t.Error("Int(1) != Parse(1.0)")
	}
	if rpcid.MustParse(`1.5`) == rpcid.MustParse(`15e-1`) {
		t.Error("Parse(1.5) == Parse(15e-1): KindNumber must keep its text")
	}
}

func TestAccessors(t *testing.T) {
	type result struct {
		Kind    string
		IsZero  bool
		Int     int64
		IntOK   bool
		Str     string
		StrOK   bool
		Num     json.Number
		NumOK   bool
		Printed string
	}
	get := func(id rpcid.ID) result {
		r := result{Kind: id.Kind().String(), IsZero: id.IsZero(), Printed: id.String()}
		r.Int, r.IntOK = id.Int64()
		r.Str, r.StrOK = id.StringValue()
		r.Num, r.NumOK = id.Number()
		return r
	}
	tests := []struct {
		id   rpcid.ID
		want result
	}{
		{rpcid.ID{}, result{Kind: "absent", IsZero: true, Printed: "absent"}},
		{rpcid.Null(), result{Kind: "null", Printed: "null"}},
		{rpcid.Int(-3), result{Kind: "int", Int: -3, IntOK: true, Num: "-3", NumOK: true, Printed: "-3"}},
		{rpcid.MustParse(`3.0`), result{Kind: "int", Int: 3, IntOK: true, Num: "3", NumOK: true, Printed: "3"}},
		{rpcid.MustParse(`3.50`), result{Kind: "number", Num: "3.50", NumOK: true, Printed: "3.50"}},
		{rpcid.String("42"), result{Kind: "string", Str: "42", StrOK: true, Printed: `"42"`}},
		{rpcid.String("absent"), result{Kind: "string", Str: "absent", StrOK: true, Printed: `"absent"`}},
		{rpcid.MustParse(`"a\nb"`), result{Kind: "string", Str: "a\nb", StrOK: true, Printed: `"a\nb"`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, get(tt.id)); diff != "" {
			t.Errorf("accessors of %v mismatch (-want +got):\n%s", tt.id, diff)
		}
	}
	if got := rpcid.Kind(9).String(); got != "Kind(9)" {
		t.Errorf("Kind(9).String() = %q", got)
	}
}

func TestAppendJSONAppends(t *testing.T) {
	b := []byte("x:")
	b = rpcid.String("a").AppendJSON(b)
	b = rpcid.ID{}.AppendJSON(b)
	b = rpcid.Int(2).AppendJSON(b)
	if got, want := string(b), `x:"a"2`; got != want {
		t.Errorf("AppendJSON chain = %q, want %q", got, want)
	}
}

// TestAppendJSONValid checks that every string id is written as valid JSON
// that encoding/json reads back to the same contents, byte by byte, for all
// single bytes and a selection of runes.
func TestAppendJSONValid(t *testing.T) {
	var inputs []string
	for c := 0; c < 256; c++ {
		inputs = append(inputs, string([]byte{byte(c)}), "a"+string(rune(c))+"b")
	}
	inputs = append(inputs, "\u2028\u2029", "\U0010FFFF", "\uFFFD", strings.Repeat(`\"`, 40))
	for _, s := range inputs {
		id := rpcid.String(s)
		out := id.AppendJSON(nil)
		if !json.Valid(out) {
			t.Errorf("String(%q).AppendJSON = %q, not valid JSON", s, out)
			continue
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Errorf("json.Unmarshal(%q): %v", out, err)
		}
		if want, _ := id.StringValue(); back != want {
			t.Errorf("json.Unmarshal(String(%q).AppendJSON) = %q, want %q", s, back, want)
		}
	}
}

func TestJSONMethods(t *testing.T) {
	type message struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      rpcid.ID `json:"id"`
	}
	tests := []struct {
		in   string
		want rpcid.ID
	}{
		{`{"jsonrpc":"2.0"}`, rpcid.ID{}},
		{`{"jsonrpc":"2.0","id":null}`, rpcid.Null()},
		{`{"jsonrpc":"2.0","id":7}`, rpcid.Int(7)},
		{`{"jsonrpc":"2.0","id":"7"}`, rpcid.String("7")},
		{`{"jsonrpc":"2.0","id":9007199254740993}`, rpcid.Int(9007199254740993)},
		{`{"jsonrpc":"2.0","id":1.50}`, rpcid.MustParse(`1.50`)},
		{`{"jsonrpc":"2.0","id":"aé\n"}`, rpcid.String("aé\n")},
	}
	for _, tt := range tests {
		var m message
		if err := json.Unmarshal([]byte(tt.in), &m); err != nil {
			t.Errorf("json.Unmarshal(%s): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, m.ID, equateIDs); diff != "" {
			t.Errorf("json.Unmarshal(%s) id mismatch (-want +got):\n%s", tt.in, diff)
		}
		if m.ID.IsZero() {
			continue
		}
		out, err := json.Marshal(m)
		if err != nil || string(out) != tt.in {
			t.Errorf("json.Marshal(Unmarshal(%s)) = %s, %v", tt.in, out, err)
		}
	}

	var m message
	err := json.Unmarshal([]byte(`{"id":true}`), &m)
	if !errors.Is(err, rpcid.ErrType) {
		t.Errorf("json.Unmarshal of id true: err = %v, want ErrType", err)
	}
	if _, err := json.Marshal(message{}); !errors.Is(err, rpcid.ErrType) {
		t.Errorf("json.Marshal of absent id: err = %v, want ErrType", err)
	}
	id := rpcid.Int(3)
	if err := id.UnmarshalJSON([]byte(`[`)); !errors.Is(err, rpcid.ErrSyntax) || id != rpcid.Int(3) {
		t.Errorf("UnmarshalJSON([) = %v, id %v; want ErrSyntax and the id unchanged", err, id)
	}
}

// TestMarshalAbsentField holds what the README says about an ID field: an
// absent id cannot be marshalled, and a struct leaves it out with omitzero
// (Go 1.24 or later) or a pointer with omitempty.
func TestMarshalAbsentField(t *testing.T) {
	type plain struct {
		ID rpcid.ID `json:"id"`
	}
	type pointer struct {
		ID *rpcid.ID `json:"id,omitempty"`
	}
	type omitzero struct {
		ID rpcid.ID `json:"id,omitzero"`
	}
	_, err := json.Marshal(plain{})
	if want := `json: error calling MarshalJSON for type rpcid.ID: rpcid: MarshalJSON absent id: no JSON value (leave the member out with omitzero): value cannot be an id`; !errors.Is(err, rpcid.ErrType) || err.Error() != want {
		t.Errorf("json.Marshal of an absent id = %v\nwant %s", err, want)
	}
	seven := rpcid.Int(7)
	for _, tt := range []struct {
		v    any
		want string
	}{
		{pointer{}, `{}`},
		{pointer{&seven}, `{"id":7}`},
		{omitzero{rpcid.Null()}, `{"id":null}`},
		{omitzero{seven}, `{"id":7}`},
	} {
		if out, err := json.Marshal(tt.v); err != nil || string(out) != tt.want {
			t.Errorf("json.Marshal(%#v) = %s, %v; want %s", tt.v, out, err, tt.want)
		}
	}
	out, err := json.Marshal(omitzero{})
	var minor int
	if _, scanErr := fmt.Sscanf(runtime.Version(), "go1.%d", &minor); scanErr != nil || minor >= 24 {
		if err != nil || string(out) != `{}` {
			t.Errorf("json.Marshal of an absent id with omitzero on %s = %s, %v; want {}", runtime.Version(), out, err)
		}
	} else if !errors.Is(err, rpcid.ErrType) {
		t.Errorf("json.Marshal of an absent id with omitzero on %s, which ignores the option = %s, %v; want ErrType", runtime.Version(), out, err)
	}
}

func TestFromAny(t *testing.T) {
	tests := []struct {
		in   any
		want string // AppendJSON of the result
		kind rpcid.Kind
	}{
		{nil, `null`, rpcid.KindNull},
		{"x", `"x"`, rpcid.KindString},
		{"12", `"12"`, rpcid.KindString},
		{json.Number("12"), `12`, rpcid.KindInt},
		{json.Number("1.50"), `1.50`, rpcid.KindNumber},
		{json.Number("-0"), `0`, rpcid.KindInt},
		{json.RawMessage(` "r" `), `"r"`, rpcid.KindString},
		{int(-1), `-1`, rpcid.KindInt},
		{int8(-8), `-8`, rpcid.KindInt},
		{int16(-16), `-16`, rpcid.KindInt},
		{int32(-32), `-32`, rpcid.KindInt},
		{int64(math.MinInt64), `-9223372036854775808`, rpcid.KindInt},
		{uint(1), `1`, rpcid.KindInt},
		{uint8(8), `8`, rpcid.KindInt},
		{uint16(16), `16`, rpcid.KindInt},
		{uint32(32), `32`, rpcid.KindInt},
		{uint64(math.MaxInt64), `9223372036854775807`, rpcid.KindInt},
		{uint64(math.MaxUint64), `18446744073709551615`, rpcid.KindNumber},
		{uintptr(7), `7`, rpcid.KindInt},
		{float64(0), `0`, rpcid.KindInt},
		{math.Copysign(0, -1), `0`, rpcid.KindInt},
		{float64(42), `42`, rpcid.KindInt},
		{float64(-1 << 63), `-9223372036854775808`, rpcid.KindInt},
		{float64(1 << 63), `9.223372036854776e+18`, rpcid.KindNumber},
		{float64(1e21), `1e+21`, rpcid.KindNumber},
		{float64(1.5), `1.5`, rpcid.KindNumber},
		{float64(0.1), `0.1`, rpcid.KindNumber},
		{float32(0.1), `0.1`, rpcid.KindNumber},
		{float32(16777216), `16777216`, rpcid.KindInt},
		{rpcid.String("s"), `"s"`, rpcid.KindString},
	}
	for _, tt := range tests {
		id, err := rpcid.FromAny(tt.in)
		if err != nil {
			t.Errorf("FromAny(%T %v) error: %v", tt.in, tt.in, err)
			continue
		}
		if got := string(id.AppendJSON(nil)); got != tt.want || id.Kind() != tt.kind {
			t.Errorf("FromAny(%T %v) = %s (%v), want %s (%v)", tt.in, tt.in, got, id.Kind(), tt.want, tt.kind)
		}
	}
	// FromAny agrees with Parse on the same JSON, so == holds across paths.
	if a, _ := rpcid.FromAny(float64(1.5)); a != rpcid.MustParse(`1.5`) {
		t.Errorf("FromAny(1.5) = %#v, want Parse(1.5)", a)
	}
	if a, _ := rpcid.FromAny(uint64(math.MaxUint64)); a != rpcid.MustParse(`18446744073709551615`) {
		t.Errorf("FromAny(MaxUint64) differs from Parse")
	}
	// A float that is no integer within int64 is spelled as strconv 'g' -1
	// spells it, and is Equal to (not spelled as) what encoding/json writes.
	for _, tt := range []struct {
		in         any
		want, json string
	}{
		{1e-7, `1e-07`, `1e-7`},
		{float64(1 << 63), `9.223372036854776e+18`, `9223372036854776000`},
		{1e20, `1e+20`, `100000000000000000000`},
		{123456789.125, `1.23456789125e+08`, `123456789.125`},
		{float32(1e-7), `1e-07`, `1e-7`},
		{1.5, `1.5`, `1.5`},
	} {
		id, err := rpcid.FromAny(tt.in)
		if err != nil {
			t.Fatalf("FromAny(%T %v): %v", tt.in, tt.in, err)
		}
		if got := string(id.AppendJSON(nil)); got != tt.want {
			t.Errorf("FromAny(%T %v) = %s, want %s", tt.in, tt.in, got, tt.want)
		}
		b, err := json.Marshal(tt.in)
		if err != nil || string(b) != tt.json {
			t.Fatalf("json.Marshal(%T %v) = %s, %v; want %s", tt.in, tt.in, b, err, tt.json)
		}
		if !rpcid.Equal(id, rpcid.MustParse(string(b))) {
			t.Errorf("FromAny(%T %v) = %s, not Equal to encoding/json's %s", tt.in, tt.in, id.AppendJSON(nil), b)
		}
	}

	bad := []struct {
		in  any
		err error
	}{
		{true, rpcid.ErrType},
		{map[string]any{}, rpcid.ErrType},
		{[]any{1}, rpcid.ErrType},
		{[]byte("1"), rpcid.ErrType},
		{new(int), rpcid.ErrType},
		{math.NaN(), rpcid.ErrRange},
		{math.Inf(1), rpcid.ErrRange},
		{float32(math.Inf(-1)), rpcid.ErrRange},
		{json.Number(""), rpcid.ErrSyntax},
		{json.Number("0x10"), rpcid.ErrSyntax},
		{json.Number(`"1"`), rpcid.ErrSyntax},
		{json.Number("null"), rpcid.ErrSyntax},
		{json.Number(" 1"), rpcid.ErrSyntax},
		{json.Number("1\n"), rpcid.ErrSyntax},
		{json.RawMessage(`{}`), rpcid.ErrType},
		// String would make these U+FFFD, Equal to each other.
		{"\xff", rpcid.ErrInvalidUTF8},
		{"a\xfe", rpcid.ErrInvalidUTF8},
		{"\xed\xa0\x80", rpcid.ErrInvalidUTF8}, // a surrogate's encoding
	}
	for _, tt := range bad {
		id, err := rpcid.FromAny(tt.in)
		if !errors.Is(err, tt.err) {
			t.Errorf("FromAny(%T %v) = %v, %v; want error %v", tt.in, tt.in, id, err, tt.err)
		}
		var e *rpcid.Error
		if errors.As(err, &e) && e.Func != "FromAny" {
			t.Errorf("FromAny(%T %v) error Func = %q", tt.in, tt.in, e.Func)
		}
	}
}

// TestErrorCopiesStringInput checks that errors made from string inputs copy
// their prefix instead of pointing into the caller's (possibly huge) string.
func TestErrorCopiesStringInput(t *testing.T) {
	big := `"` + strings.Repeat("a", 1<<16) + `"`
	_, err := rpcid.FromAny(json.Number(big))
	var e *rpcid.Error
	if !errors.As(err, &e) || !errors.Is(err, rpcid.ErrSyntax) {
		t.Fatalf("FromAny(json.Number(long string)) = %v, want ErrSyntax", err)
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(big)))
	if p := uintptr(unsafe.Pointer(unsafe.StringData(e.Input))); p >= start && p < start+uintptr(len(big)) {
		t.Error("Error.Input points into the caller's string")
	}
	if e.Err == nil || (&rpcid.Error{}).Error() == "" {
		t.Error("a zero Error must still print")
	}
}
