package jsonwire

import (
	"strings"
	"testing"
)

func TestSkipSpace(t *testing.T) {
	for _, tt := range []struct {
		in   string
		i    int
		want int
	}{
		{"", 0, 0},
		{" \t\r\n1", 0, 4},
		{"1 ", 0, 0},
		{"1 ", 1, 2},
		{"\v1", 0, 0}, // vertical tab is not JSON whitespace
		{"\u00a01", 0, 0},
	} {
		if got := SkipSpace([]byte(tt.in), tt.i); got != tt.want {
			t.Errorf("SkipSpace(%q, %d) = %d, want %d", tt.in, tt.i, got, tt.want)
		}
	}
}

func TestConsumeLiteral(t *testing.T) {
	for _, tt := range []struct {
		in, lit string
		want    int
		f       Fault
	}{
		{"true", "true", 4, OK},
		{"true,", "true", 4, OK},
		{"null", "null", 4, OK},
		{"false]", "false", 5, OK},
		{"tru", "true", 3, EOF},
		{"", "null", 0, EOF},
		{"trUe", "true", 2, Literal},
		{"nul!", "null", 3, Literal},
		{"f", "false", 1, EOF},
	} {
		if got, f := ConsumeLiteral([]byte(tt.in), 0, tt.lit); got != tt.want || f != tt.f {
			t.Errorf("ConsumeLiteral(%q, 0, %q) = %d, %d; want %d, %d", tt.in, tt.lit, got, f, tt.want, tt.f)
		}
	}
}

func TestConsumeNumber(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		f    Fault
	}{
		{"0", 1, OK},
		{"-0", 2, OK},
		{"01", 1, OK}, // the 1 is the caller's to refuse
		{"123]", 3, OK},
		{"-1.50e+07,", 9, OK},
		{"1E5", 3, OK},
		{"1e-0", 4, OK},
		{"-", 1, EOF},
		{"-a", 1, Digit},
		{"+1", 0, Digit},
		{".5", 0, Digit},
		{"1.", 2, FracDigit},
		{"1.e5", 2, FracDigit},
		{"1e", 2, ExpDigit},
		{"1e+", 3, ExpDigit},
		{"1.5e-x", 5, ExpDigit},
	} {
		if got, f := ConsumeNumber([]byte(tt.in), 0); got != tt.want || f != tt.f {
			t.Errorf("ConsumeNumber(%q, 0) = %d, %d; want %d, %d", tt.in, got, f, tt.want, tt.f)
		}
	}
}

func TestConsumeString(t *testing.T) {
	long := strings.Repeat("x", 40)
	for _, tt := range []struct {
		in   string
		want int
		esc  bool
		f    Fault
	}{
		{`""`, 2, false, OK},
		{`"abc",`, 5, false, OK},
		{`"a\nb"`, 6, true, OK},
		{`"\u00e9\ud83d\ude00"`, 20, true, OK},
		{"\"é東😀\"", 11, false, OK},
		{`"` + long + `"`, 42, false, OK},
		{`"abc`, 4, false, EOF},
		{`"\`, 2, true, EOF},
		{`"\u12`, 5, true, EOF},
		{`"\ud83d`, 7, true, EOF},
		{`"\ud83d\`, 8, true, EOF},
		{"\"a\x1fb\"", 2, false, Control},
		{`"\q"`, 2, true, Escape},
		{`"\u12g4"`, 5, true, Hex},
		{`"\ud83d\u12g4"`, 11, true, Hex},
		{`"\ude00"`, 1, true, Surrogate},
		{`"\ud83dx"`, 1, true, Surrogate},
		{`"\ud83d\u0041"`, 1, true, Surrogate},
		{"\"a\xffb\"", 2, false, UTF8},
		{"\"" + long + "\xe6\x9d\"", 41, false, UTF8},
		{"\"\xed\xa0\x80\"", 1, false, UTF8}, // a surrogate half in UTF-8
		{"\"\xc0\xaf\"", 1, false, UTF8},     // overlong
	} {
		got, esc, f := ConsumeString([]byte(tt.in), 0)
		if got != tt.want || esc != tt.esc || f != tt.f {
			t.Errorf("ConsumeString(%q, 0) = %d, %v, %d; want %d, %v, %d", tt.in, got, esc, f, tt.want, tt.esc, tt.f)
		}
	}
}

func TestDecodeEscape(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		r    rune
		size int
	}{
		{`\"`, '"', 2}, {`\\`, '\\', 2}, {`\/`, '/', 2}, {`\b`, '\b', 2},
		{`\f`, '\f', 2}, {`\n`, '\n', 2}, {`\r`, '\r', 2}, {`\t`, '\t', 2},
		{`\u0041`, 'A', 6}, {`\u00E9`, 'é', 6}, {`\ud83d\ude00`, '😀', 12},
	} {
		if r, size := DecodeEscape([]byte(tt.raw), 0); r != tt.r || size != tt.size {
			t.Errorf("DecodeEscape(%q, 0) = %q, %d; want %q, %d", tt.raw, r, size, tt.r, tt.size)
		}
	}
}

func TestUnquotedLen(t *testing.T) {
	for raw, want := range map[string]int{
		``:                   0,
		`abc`:                3,
		`a\nb`:               3,
		`\u0041\u00e9\u6771`: 1 + 2 + 3,
		`\ud83d\ude00é`:      4 + 2,
		`\\\"\/`:             3,
	} {
		if got := UnquotedLen([]byte(raw)); got != want {
			t.Errorf("UnquotedLen(%q) = %d, want %d", raw, got, want)
		}
	}
}
