package idcmd

import (
	"strings"
	"testing"
)

func TestEq(t *testing.T) {
	tests := []struct {
		a, b string
		code int
		want string // the whole output line
	}{
		{`"01"`, `1`, 1, `not equal: "01" vs 1: clause 5: a string equals an integer only when it is the integer's canonical decimal spelling, and "01" has a leading zero`},
		{`1`, `"01"`, 1, `not equal: 1 vs "01": clause 5: a string equals an integer only when it is the integer's canonical decimal spelling, and "01" has a leading zero`},
		{`"1"`, `1`, 0, `equal: "1" vs 1: clause 5: "1" is the canonical decimal spelling of the integer 1`},
		{`-12`, `"-12"`, 0, `equal: -12 vs "-12": clause 5: "-12" is the canonical decimal spelling of the integer -12`},
		{`"9223372036854775807"`, `9223372036854775807`, 0, `equal: "9223372036854775807" vs 9223372036854775807: clause 5: "9223372036854775807" is the canonical decimal spelling of the integer 9223372036854775807`},
		{`1.0`, `1`, 0, `equal: 1.0 vs 1: clause 2: both are the integer 1 (a number with an exact integer value within int64 is that integer, however it is spelled)`},
		{`100e-2`, `1`, 0, `equal: 100e-2 vs 1: clause 2: both are the integer 1 (a number with an exact integer value within int64 is that integer, however it is spelled)`},
		{`-0`, `0`, 0, `equal: -0 vs 0: clause 2: both are the integer 0 (a number with an exact integer value within int64 is that integer, however it is spelled)`},
		{`9007199254740993`, `9007199254740992`, 1, `not equal: 9007199254740993 vs 9007199254740992: clause 2: they are the different integers 9007199254740993 and 9007199254740992`},
		{`1.5`, `15e-1`, 0, `equal: 1.5 vs 15e-1: clause 3: the two numbers have the same exact value`},
		{`1.5`, `1.25`, 1, `not equal: 1.5 vs 1.25: clause 3: the two numbers have different exact values`},
		{`1.5`, `1`, 1, `not equal: 1.5 vs 1: clause 3: 1.5 is not an integer within int64, so it equals only numbers of the same exact value, never an integer id`},
		{`"1.5"`, `1.5`, 1, `not equal: "1.5" vs 1.5: clause 5: a string never equals a number that is not an integer within int64, such as 1.5`},
		{`null`, `null`, 0, `equal: null vs null: clause 1: null equals only null`},
		{`null`, `0`, 1, `not equal: null vs 0: clause 1: null equals only null`},
		{`""`, `null`, 1, `not equal: "" vs null: clause 1: null equals only null`},
		{`"a"`, `"\u0061"`, 0, `equal: "a" vs "\u0061": clause 6: the strings' decoded contents are identical bytes`},
		{`"1"`, `"01"`, 1, `not equal: "1" vs "01": clause 6: the strings' decoded contents differ (strings are compared byte for byte after escapes are resolved, with no normalization or case folding)`},
		{` 7 `, `"7"`, 0, `equal: 7 vs "7": clause 5: "7" is the canonical decimal spelling of the integer 7`},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, nil, "eq", tt.a, tt.b)
		if code != tt.code || out != tt.want+"\n" || errOut != "" {
			t.Errorf("eq %s %s = %d, %q, stderr %q\nwant %d, %q", tt.a, tt.b, code, out, errOut, tt.code, tt.want)
		}
	}
}

// Each way a string can miss the canonical spelling of an integer is named.
func TestEqNearMisses(t *testing.T) {
	tests := []struct {
		s, n, why string
	}{
		{`"01"`, `1`, "has a leading zero"},
		{`"-01"`, `-1`, "has a leading zero"},
		{`"00"`, `0`, "has a leading zero"},
		{`"-0"`, `0`, "is minus zero (zero is spelled 0)"},
		{`"+1"`, `1`, "has a plus sign"},
		{`" 1"`, `1`, "has white space around it"},
		{`"1 "`, `1`, "has white space around it"},
		{`"1.0"`, `1`, "has a fraction or an exponent"},
		{`"1e0"`, `1`, "has a fraction or an exponent"},
		{`"0x1"`, `1`, "is written in another base"},
		{`"１"`, `1`, "uses digits other than ASCII 0-9"},
		{`"١"`, `1`, "uses digits other than ASCII 0-9"},
		{`"1_0"`, `10`, "has an underscore"},
		{`""`, `0`, "is empty"},
		{`"9223372036854775808"`, `-9223372036854775808`, "is beyond the int64 range"},
		{`"2"`, `1`, "is the canonical spelling of the integer 2, not 1"},
		{`"abc"`, `1`, "is not a decimal integer"},
	}
	for _, tt := range tests {
		code, out, _ := runCmd(t, nil, "eq", tt.s, tt.n)
		want := "not equal: " + tt.s + " vs " + tt.n + ": clause 5: a string equals an integer only when it is the integer's canonical decimal spelling, and "
		if code != 1 || !strings.HasPrefix(out, want) || !strings.HasSuffix(out, " "+tt.why+"\n") {
			t.Errorf("eq %s %s = %d, %q; want ... %q", tt.s, tt.n, code, out, tt.why)
		}
	}
}

func TestEqInvalid(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"01", "1"}, "rpcid eq: 01 is not a JSON id: invalid character '1' after value at byte offset 1: invalid JSON\n"},
		{[]string{"abc", "1"}, `in a shell write '"abc"'`},
		{[]string{"1", "true"}, "rpcid eq: true is not a JSON id: "},
		{[]string{"1", "[1]"}, "rpcid eq: [1] is an array; a JSON-RPC id is a string, a number or null\n"},
		{[]string{"1", "\u202e1"}, "rpcid eq: \\u202e1 is not a JSON id"},
		{[]string{"1", `{"a":1}`}, `is not a JSON id`},
		{[]string{"1"}, "usage: rpcid eq"},
		{[]string{"1", "2", "3"}, "usage: rpcid eq"},
		{[]string{`"\ud800"`, "1"}, "is not a JSON id"},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, nil, append([]string{"eq"}, tt.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.stderr) || strings.Contains(errOut, "shell write '\"[") {
			t.Errorf("eq %q = %d, %q, stderr %q; want 2 and stderr containing %q", tt.args, code, out, errOut, tt.stderr)
		}
	}
}

// An argument is quoted back as typed (an invalid byte as \xHH, not
// U+FFFD; a space that looks like U+0020 escaped), and an invisible
// character is named rather than taken for a bare string.
func TestEqInvalidShown(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"1", "\"\xff\""}, "rpcid eq: \"\\xff\" is not a JSON id: invalid UTF-8 byte 0xff in string at byte offset 1: invalid UTF-8 in string\n"},
		{[]string{"1\u00a0", "1"}, "rpcid eq: 1\\u00a0 is not a JSON id: invalid character byte 0xc2 after value at byte offset 1: invalid JSON\n" +
			"rpcid eq: the argument holds U+00A0 (an invisible character or a space other than U+0020), which JSON does not allow outside a string\n"},
		{[]string{"\ufeff1", "1"}, "rpcid eq: \\ufeff1 is not a JSON id: invalid character byte 0xef at start of value at byte offset 0: invalid JSON\n" +
			"rpcid eq: the argument holds U+FEFF (an invisible character or a space other than U+0020), which JSON does not allow outside a string\n"},
		{[]string{"\xff1", "1"}, "rpcid eq: \\xff1 is not a JSON id: invalid character byte 0xff at start of value at byte offset 0: invalid JSON\n" +
			"rpcid eq: the argument holds the byte 0xff (not UTF-8), which JSON does not allow outside a string\n"},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, nil, append([]string{"eq"}, tt.args...)...)
		if code != 2 || out != "" || errOut != tt.stderr {
			t.Errorf("eq %q = %d, %q, stderr %q; want 2 and stderr %q", tt.args, code, out, errOut, tt.stderr)
		}
	}
}

// The key hint never suggests quoting JSON that is not an id.
func TestKeyInvalid(t *testing.T) {
	for arg, want := range map[string]string{
		"[1]":  "rpcid key: [1] is not a JSON id: array cannot be an id at byte offset 0: value cannot be an id\nrpcid key: [1] is an array; a JSON-RPC id is a string, a number or null\n",
		"true": "rpcid key: true is not a JSON id: true cannot be an id at byte offset 0: value cannot be an id\nrpcid key: true is a boolean; a JSON-RPC id is a string, a number or null\n",
		"abc":  "rpcid key: abc is not a JSON id: invalid character 'a' at start of value at byte offset 0: invalid JSON\nrpcid key: a string id is JSON text in quotes; in a shell write '\"abc\"'\n",
	} {
		code, out, errOut := runCmd(t, nil, "key", arg)
		if code != 2 || out != "" || errOut != want {
			t.Errorf("key %s = %d, %q, stderr %q; want 2 and %q", arg, code, out, errOut, want)
		}
	}
}

func TestKey(t *testing.T) {
	tests := []struct {
		id   string
		want string
	}{
		{`1`, "kind: int\nkey:  1\njson: 1\n"},
		{`"1"`, "kind: string\nkey:  1\njson: \"1\"\n"},
		{`1.0`, "kind: int\nkey:  1\njson: 1\n"},
		{`"01"`, "kind: string\nkey:  \"01\"\njson: \"01\"\n"},
		{`1.50`, "kind: number\nkey:  15e-1\njson: 1.50\n"},
		{`null`, "kind: null\nkey:  null\njson: null\n"},
		{`"\u0061b"`, "kind: string\nkey:  \"ab\"\njson: \"ab\"\n"},
		{`18446744073709551615`, "kind: number\nkey:  18446744073709551615\njson: 18446744073709551615\n"},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, nil, "key", tt.id)
		if code != 0 || out != tt.want || errOut != "" {
			t.Errorf("key %s = %d, %q, stderr %q; want 0, %q", tt.id, code, out, errOut, tt.want)
		}
	}
	for _, args := range [][]string{{"01"}, {"[1]"}, {}, {"1", "2"}} {
		if code, _, _ := runCmd(t, nil, append([]string{"key"}, args...)...); code != 2 {
			t.Errorf("key %q = %d, want 2", args, code)
		}
	}
}
