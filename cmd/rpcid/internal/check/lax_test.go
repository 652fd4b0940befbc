package check

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rpcid/rpcid"
)

// JavaScript Number() on strings, as ECMA-262 StringToNumber defines it.
// Expected values were written from the specification; the survey's matrix
// rows (Number("") === 0, " 1", "+1", "01", "1.0", "1e0", "0x1" all 1,
// "1_0" and non-ASCII digits NaN) are among them.
func TestJSNumber(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		in   string
		want float64
	}{
		{"0", 0},
		{"1", 1},
		{"-12", -12},
		{"", 0},
		{"   ", 0},
		{"\t\n\v\f\r \u00a0\u2028\u2029\ufeff\u3000", 0},
		{" 1", 1},
		{"1 ", 1},
		{"\u00a01\u2003", 1},
		{"+1", 1},
		{"01", 1},
		{"007", 7},
		{"1.0", 1},
		{"1.", 1},
		{".5", 0.5},
		{"+.5", 0.5},
		{"1e0", 1},
		{"1E+2", 100},
		{"100e-2", 1},
		{"0x1", 1},
		{"0X1f", 31},
		{"0o17", 15},
		{"0b101", 5},
		{"0xFFFFFFFFFFFFFFFF", 18446744073709551616},
		{"9007199254740993", 9007199254740992},
		{"9223372036854775807", 9223372036854775808},
		{"1e400", math.Inf(1)},
		{"-1e400", math.Inf(-1)},
		{"1e-400", 0},
		{"Infinity", math.Inf(1)},
		{"-Infinity", math.Inf(-1)},
		{"+Infinity", math.Inf(1)},
		{"1.0000000000000001", 1},
		{"-0", math.Copysign(0, -1)},
		// NaN:
		{"1_0", nan},
		{"１", nan},    // fullwidth digit one
		{"١", nan},    // Arabic-Indic digit one
		{"-0x1", nan}, // no sign before a radix prefix
		{"0x", nan},
		{"0xg", nan},
		{"0b2", nan},
		{"0o8", nan},
		{".", nan},
		{"+", nan},
		{"-", nan},
		{"e5", nan},
		{"1e", nan},
		{"1e+", nan},
		{"1 2", nan},
		{"infinity", nan},
		{"Inf", nan},
		{"NaN", nan},
		{"abc", nan},
		{"1n", nan},
		{"\u180e1", nan}, // not white space since Unicode 6.3
		{"\u200b1", nan}, // zero width space is not white space
	}
	for _, tt := range tests {
		got := jsNumber(tt.in)
		if math.IsNaN(tt.want) {
			if !math.IsNaN(got) {
				t.Errorf("jsNumber(%q) = %v, want NaN", tt.in, got)
			}
			continue
		}
		if got != tt.want || math.Signbit(got) != math.Signbit(tt.want) {
			t.Errorf("jsNumber(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// Python 3 int(str), base 10. Expected values were written from CPython's
// PyLong_FromUnicodeObject: " 1", "+1", "01", "-0", "1_0" (10), fullwidth and
// Arabic-Indic digits are accepted, as the survey's matrix says.
func TestPyInt(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"0", "0", true},
		{"1", "1", true},
		{"-12", "-12", true},
		{" 1", "1", true},
		{"1 ", "1", true},
		{"\t\n\v\f\r1\r\n", "1", true},
		{"+1", "1", true},
		{"01", "1", true},
		{"000", "0", true},
		{"-0", "0", true},
		{"-00", "0", true},
		{"1_0", "10", true},
		{"1_000_000", "1000000", true},
		{"0_1", "1", true},
		{"１", "1", true},             // fullwidth
		{"١٢", "12", true},           // Arabic-Indic
		{"१०", "10", true},           // Devanagari
		{"𝟗", "9", true},             // mathematical bold digit nine (U+1D7D7)
		{"\u00a01\u3000", "1", true}, // NBSP and ideographic space
		{"\u20281\u2029", "1", true}, // line and paragraph separators
		{"\u00851", "1", true},       // NEL
		{"99999999999999999999", "99999999999999999999", true},
		{"-9223372036854775809", "-9223372036854775809", true},
		{strings.Repeat("9", 4300), strings.Repeat("9", 4300), true},
		// ValueError:
		{strings.Repeat("9", 4301), "", false}, // int_max_str_digits
		{"", "", false},
		{" ", "", false},
		{"+", "", false},
		{"-", "", false},
		{"+-1", "", false},
		{"- 1", "", false},
		{"_1", "", false},
		{"1_", "", false},
		{"1__0", "", false},
		{"+_1", "", false},
		{"1.0", "", false},
		{"1e0", "", false},
		{"0x1", "", false},
		{"1 2", "", false},
		{"\x1c1", "", false},   // ASCII separators are not stripped by int()
		{"\ufeff1", "", false}, // BOM is not white space in Python
		{"\u200b1", "", false},
		{"1\x00", "", false},
		{"abc", "", false},
		{"½", "", false}, // numeric but not a decimal digit
		{"²", "", false}, // superscript two: a digit, but not decimal
	}
	for _, tt := range tests {
		got, ok := pyInt(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("pyInt(%q) = %q, %v, want %q, %v", short(tt.in), short(got), ok, short(tt.want), tt.ok)
		}
	}
}

// Rust <i64 as FromStr>::from_str: optional sign, ASCII digits, no white
// space or underscores, range-checked; "+1", "01" and "-0" are accepted.
func TestRustI64(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"-12", -12, true},
		{"+1", 1, true},
		{"01", 1, true},
		{"-0", 0, true},
		{"+0", 0, true},
		{"-007", -7, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"09223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"99999999999999999999", 0, false},
		{"", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{"+-1", 0, false},
		{"--1", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1_0", 0, false},
		{"1.0", 0, false},
		{"1e0", 0, false},
		{"0x1", 0, false},
		{"１", 0, false},
		{"abc", 0, false},
	}
	for _, tt := range tests {
		got, ok := rustI64(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("rustI64(%q) = %d, %v, want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLenientNumber(t *testing.T) {
	tests := []struct {
		in   string
		want string // JSON text of the number, "" for none
	}{
		{"01", "1"},
		{" 1", "1"},
		{"+1", "1"},
		{"-0", "0"},
		{"1.0", "1"},
		{"1.", "1"},
		{".5", "0.5"},
		{"1e0", "1"},
		{"0x1f", "31"},
		{"-0x1", "-1"},
		{"１", "1"},
		{"١٢", "12"},
		{"9007199254740993", "9007199254740993"},
		{"", ""},
		{"1_0", ""},
		{"abc", ""},
		{"Infinity", ""},
		{"1 2", ""},
	}
	for _, tt := range tests {
		got, ok := lenientNumber(tt.in)
		if tt.want == "" {
			if ok {
				t.Errorf("lenientNumber(%q) = %v, want none", tt.in, got)
			}
			continue
		}
		if !ok || !rpcid.Equal(got, rpcid.MustParse(tt.want)) {
			t.Errorf("lenientNumber(%q) = %v, %v, want %s", tt.in, got, ok, tt.want)
		}
	}
}

func TestDecimalDigitTable(t *testing.T) {
	// decimalDigit relies on every unicode.Nd range holding whole sets of
	// ten digits starting at zero.
	for _, r := range unicode.Nd.R16 {
		if r.Stride != 1 || (r.Hi-r.Lo+1)%10 != 0 {
			t.Errorf("unicode.Nd range %#x-%#x stride %d is not whole digit sets", r.Lo, r.Hi, r.Stride)
		}
	}
	for _, r := range unicode.Nd.R32 {
		if r.Stride != 1 || (r.Hi-r.Lo+1)%10 != 0 {
			t.Errorf("unicode.Nd range %#x-%#x stride %d is not whole digit sets", r.Lo, r.Hi, r.Stride)
		}
	}
	for _, tt := range []struct {
		r    rune
		want int
	}{{'0', 0}, {'7', 7}, {'٣', 3}, {'９', 9}, {'𝟎', 0}, {'𝟗', 9}, {'𝟘', 0}} {
		if got, ok := decimalDigit(tt.r); !ok || got != tt.want {
			t.Errorf("decimalDigit(%q) = %d, %v, want %d", tt.r, got, ok, tt.want)
		}
	}
	if _, ok := decimalDigit('a'); ok {
		t.Errorf("decimalDigit('a') is a digit")
	}
}

func TestJSString(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-12, "-12"},
		{9007199254740992, "9007199254740992"},
		{1e20, "100000000000000000000"},
		{1e21, "1e+21"},
		{1.5, "1.5"},
		{1e-7, "1e-7"},
		{1e-6, "0.000001"},
		{1.5e-10, "1.5e-10"},
		{math.Inf(1), "Infinity"},
		{math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		if got := jsString(tt.in); got != tt.want {
			t.Errorf("jsString(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNumberIsIntegral(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"1.5", false},
		{"15e-1", false},
		{"1.50", false},
		{"0.001", false},
		{"9223372036854775808", true},
		{"18446744073709551615", true},
		{"1e400", true},
		{"1.5e400", true},
		{"-1e-400", false},
		{"10e-1", true},
		{"100e-2", true},
		{"100e-3", false},
		{"1.0e1", true},
		{"0.0", true},
		{"1e-999999999999999999", false},
	}
	for _, tt := range tests {
		if got := numberIsIntegral(tt.in); got != tt.want {
			t.Errorf("numberIsIntegral(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func short(s string) string {
	if len(s) > 20 {
		return s[:10] + "..."
	}
	return s
}

// TestLaxReference checks the three emulations against outputs recorded
// once from the real parsers (node, CPython, rustc; versions in the file)
// on a few thousand strings: every table entry above crossed with
// JavaScript, Python and ASCII white space on either side, plus random
// strings over digits, signs, '_', '.', 'e', radix letters and non-ASCII
// digits and spaces.
func TestLaxReference(t *testing.T) {
	data, err := os.ReadFile("testdata/lax-reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases [][4]*string `json:"cases"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 1000 {
		t.Fatalf("only %d reference cases", len(ref.Cases))
	}
	str := func(p *string) string {
		if p == nil {
			return "(error)"
		}
		return short(*p)
	}
	for _, c := range ref.Cases {
		s := *c[0]
		var js *string
		if f := jsNumber(s); !math.IsNaN(f) {
			v := jsString(f)
			if f == 0 && math.Signbit(f) {
				v = "-0"
			}
			js = &v
		}
		if str(js) != str(c[1]) {
			t.Errorf("jsNumber(%q) = %s, node says %s", short(s), str(js), str(c[1]))
		}
		var py *string
		if v, ok := pyInt(s); ok {
			py = &v
		}
		if str(py) != str(c[2]) {
			t.Errorf("pyInt(%q) = %s, CPython says %s", short(s), str(py), str(c[2]))
		}
		var rs *string
		if n, ok := rustI64(s); ok {
			v := strconv.FormatInt(n, 10)
			rs = &v
		}
		if str(rs) != str(c[3]) {
			t.Errorf("rustI64(%q) = %s, rustc says %s", short(s), str(rs), str(c[3]))
		}
	}
}

// Long radix spellings are not handed to math/big, whose octal and decimal
// conversions are quadratic.
func TestLaxLongRadixSpellings(t *testing.T) {
	long := strings.Repeat("7", 1<<20)
	if got := jsRadix(long, 8); !math.IsInf(got, 1) {
		t.Errorf("jsRadix(1 MiB of 7s, 8) = %v, want +Inf", got)
	}
	if got := jsRadix("0000"+strings.Repeat("7", 300), 8); math.IsInf(got, 1) || got <= 0 {
		t.Errorf("jsRadix(300 octal digits) = %v, want a finite value", got)
	}
	if _, ok := lenientNumber("0x" + strings.Repeat("f", maxLenientDigits+1)); ok {
		t.Error("lenientNumber accepted a hex spelling longer than maxLenientDigits")
	}
	if id, ok := lenientNumber("0x" + strings.Repeat("0", 5000) + "ff"); !ok || id.String() != "255" {
		t.Errorf("lenientNumber(0x000...ff) = %v, %v; want 255", id, ok)
	}
}
