package check

// Emulations of the loose number parsers that SDKs use to normalize response
// ids before looking up the pending request. Each one follows its language's
// documented behaviour on a string (see the SDK survey in the project's shared
// research notes): the TypeScript SDK applies JavaScript Number() to the
// response id, the Python SDK (v1.24 and later) applies int() to string ids,
// and rmcp (Rust) falls back to i64::from_str on string ids when the pending
// id is a number. They are used only to explain what such an SDK would have
// done with a response that matches no request under the rule.

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// jsNumber emulates JavaScript's Number(s) on a string (ECMA-262,
// StringToNumber): JavaScript white space and line terminators are trimmed
// from both ends; an empty result is +0; otherwise the rest must be a
// StrDecimalLiteral (optional sign, ASCII digits with an optional fraction
// and exponent, or "Infinity") or an unsigned 0x, 0o or 0b literal, and the
// value is rounded to the nearest double. Anything else is NaN. Underscore
// separators and non-ASCII digits are not accepted.
func jsNumber(s string) float64 {
	s = strings.TrimFunc(s, isJSSpace)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			return jsRadix(s[2:], base)
		}
	}
	body, neg := s, false
	switch body[0] {
	case '+':
		body = body[1:]
	case '-':
		body, neg = body[1:], true
	}
	if body == "Infinity" {
		if neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	if !base.IsJSDecimal(body) {
		return math.NaN()
	}
	// body is now ASCII digits with an optional '.' and exponent, which
	// strconv.ParseFloat rounds correctly (to nearest, ties to even) like
	// JavaScript does. Out of range it returns ±Inf or ±0, as JavaScript does.
	f, err := strconv.ParseFloat(body, 64)
	if err != nil && !isRangeErr(err) {
		return math.NaN()
	}
	if neg {
		f = -f
	}
	return f
}

// jsRadix converts the digits of a 0x, 0o or 0b literal to the nearest double.
func jsRadix(digits string, base int) float64 {
	for i := 0; i < len(digits); i++ {
		if digitValue(digits[i]) >= base {
			return math.NaN()
		}
	}
	// Past 2^1024 the result is +Infinity, which needs no big.Int: and
	// math/big converts long octal and decimal strings in quadratic time.
	sig := strings.TrimLeft(digits, "0")
	if len(sig) > 1 && (len(sig)-1)*(bits.Len(uint(base))-1) > 1100 {
		return math.Inf(1)
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return math.NaN()
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

// digitValue returns the value of an ASCII hexadecimal digit, or 99.
func digitValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// isJSSpace reports whether r is JavaScript WhiteSpace or LineTerminator:
// TAB, VT, FF, ZWNBSP (U+FEFF), any Unicode "Zs" space, LF, CR, U+2028 and
// U+2029.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', '\uFEFF', '\n', '\r', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// maxPyIntDigits is CPython's default int_max_str_digits (3.11 and later):
// int() raises ValueError for a decimal string with more digits than this.
const maxPyIntDigits = 4300

// pyInt emulates Python 3's int(s) on a str (base 10) and returns the result
// as a canonical decimal ("0", "-12"); ok is false where Python raises
// ValueError. CPython first maps every non-ASCII character: Unicode white
// space becomes a space, a decimal digit (category Nd, any script) becomes
// its ASCII digit, anything else fails. On the ASCII result it skips leading
// and trailing " \t\n\v\f\r", accepts one '+' or '-', then digits with single
// underscores between them; leading zeros are allowed. More than 4300 digits
// fail (the default int_max_str_digits). Digit tables come from Go's unicode
// package, whose Unicode version may differ slightly from the Python build.
func pyInt(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < 127:
			b = append(b, byte(r))
		case isPySpace(r):
			b = append(b, ' ')
		default:
			d, ok := decimalDigit(r)
			if !ok {
				return "", false
			}
			b = append(b, '0'+byte(d))
		}
	}
	i := 0
	for i < len(b) && isPyASCIISpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i < len(b) && b[i] == '_' {
		return "", false
	}
	digits := make([]byte, 0, len(b)-i)
	prev := byte(0)
	for ; i < len(b) && (isDigit(b[i]) || b[i] == '_'); i++ {
		if b[i] == '_' {
			if prev == '_' {
				return "", false
			}
		} else {
			digits = append(digits, b[i])
		}
		prev = b[i]
	}
	if prev == '_' || len(digits) == 0 || len(digits) > maxPyIntDigits {
		return "", false
	}
	for i < len(b) && isPyASCIISpace(b[i]) {
		i++
	}
	if i != len(b) {
		return "", false
	}
	for len(digits) > 1 && digits[0] == '0' {
		digits = digits[1:]
	}
	if neg && string(digits) != "0" {
		return "-" + string(digits), true
	}
	return string(digits), true
}

// isPyASCIISpace is CPython's Py_ISSPACE: space, \t, \n, \v, \f, \r.
func isPyASCIISpace(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }

// isPySpace is CPython's Py_UNICODE_ISSPACE for characters from U+007F up:
// those of bidirectional type WS, B or S, or category Zs.
func isPySpace(r rune) bool {
	switch r {
	case 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// decimalDigit returns the value of a Unicode decimal digit (category Nd).
// Unicode encodes every decimal digit set as ten consecutive code points
// from zero to nine, and Go's unicode.Nd table keeps whole sets in each
// range, so the value is the distance from the range start modulo 10.
func decimalDigit(r rune) (int, bool) {
	for _, rg := range unicode.Nd.R16 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	return 0, false
}

// rustI64 emulates Rust's <i64 as FromStr>::from_str (from_str_radix with
// radix 10): an optional single '+' or '-', then one or more ASCII digits and
// nothing else (no white space, no underscores); leading zeros and "-0" are
// accepted; a value outside i64 is an error.
func rustI64(s string) (int64, bool) {
	body, neg := s, false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body, neg = body[1:], body[0] == '-'
	}
	if body == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !isDigit(c) {
			return 0, false
		}
		d := int64(c - '0')
		if neg {
			if n < (math.MinInt64+d)/10 {
				return 0, false
			}
			n = n*10 - d
		} else {
			if n > (math.MaxInt64-d)/10 {
				return 0, false
			}
			n = n*10 + d
		}
	}
	return n, true
}

// lenientNumber reads s as a person would read a number spelled loosely:
// white space around it, a '+' sign, leading zeros, non-ASCII decimal digits,
// a bare '.' before or after the digits, and 0x, 0o or 0b integers. It
// returns the number as an rpcid.ID of exactly that value, or false when s
// spells no number that way (empty, underscores, words). It decides whether a
// lax normalizer accepted a malformed spelling of the same id or took the
// response for a different id.
// maxLenientDigits caps the significant digits of a 0x, 0o or 0b spelling
// that lenientNumber converts: longer ones are treated as no number.
const maxLenientDigits = 4096

func lenientNumber(s string) (rpcid.ID, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return isJSSpace(r) || isPySpace(r) })
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s, neg = s[1:], s[0] == '-'
	}
	var text string
	if len(s) > 2 && s[0] == '0' && strings.ContainsRune("xXoObB", rune(s[1])) {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[1]]
		for i := 2; i < len(s); i++ {
			if digitValue(s[i]) >= base {
				return rpcid.ID{}, false
			}
		}
		if len(strings.TrimLeft(s[2:], "0")) > maxLenientDigits {
			return rpcid.ID{}, false // math/big's decimal conversion is quadratic
		}
		n, ok := new(big.Int).SetString(s[2:], base)
		if !ok {
			return rpcid.ID{}, false
		}
		text = n.String()
	} else {
		var b strings.Builder
		for _, r := range s {
			if r >= utf8.RuneSelf {
				d, ok := decimalDigit(r)
				if !ok {
					return rpcid.ID{}, false
				}
				r = '0' + rune(d)
			}
			b.WriteRune(r)
		}
		ascii := b.String()
		if !base.IsJSDecimal(ascii) {
			return rpcid.ID{}, false
		}
		text = jsonNumberText(ascii)
	}
	if neg {
		text = "-" + text
	}
	id, err := rpcid.Parse([]byte(text))
	if err != nil {
		return rpcid.ID{}, false
	}
	return id, true
}

// jsonNumberText rewrites an unsigned decimal literal accepted by IsJSDecimal
// ("007", "1.", ".5", "1.e3") as a JSON number of the same value.
func jsonNumberText(s string) string {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	if frac != "" {
		frac = "." + frac
	}
	return intPart + frac + exp
}

// jsValue is the double a JavaScript peer holds for a JSON number text
// (JSON.parse rounds to nearest, as Number() does).
func jsValue(raw []byte) float64 {
	f, _ := strconv.ParseFloat(string(raw), 64)
	return f
}

// jsString formats a double as JavaScript's String() does for the values
// that occur here.
func jsString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	// JavaScript writes no leading zeros in the exponent: 1e-7, not 1e-07.
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}
