// Package jsonwire holds the lexical rules of JSON that rpcid's readers
// share: whitespace, literals, numbers and strings, as RFC 8259 defines
// them, with two departures that make the grammar strict where encoding/json
// is lenient: a string's invalid UTF-8 (section 8.1) and a \u escape of a
// lone UTF-16 surrogate (section 8.2) are faults, not U+FFFD.
//
// Each Consume function checks one token that starts at data[i] and returns
// the offset just after it, or the offset of the first byte that cannot be
// accepted and the Fault found there (at len(data) when the text ends too
// soon). Callers turn a Fault into their own error, with their own words;
// the offsets are the same for every caller. The functions neither keep nor
// modify data, and call no assembly, so that a caller's []byte(s)
// conversion can stay on the stack.
package jsonwire

// A Fault says why a token was refused.
type Fault uint8

const (
	OK        Fault = iota // no fault
	EOF                    // the text ends inside the token
	Literal                // a byte departs from true, false or null
	Digit                  // a number needs a digit (after '-', or first)
	FracDigit              // a number needs a digit after the decimal point
	ExpDigit               // a number needs a digit in the exponent
	Control                // an unescaped control character (below U+0020) in a string
	Escape                 // a reverse solidus followed by no escape's letter
	Hex                    // a \u escape without four hexadecimal digits
	UTF8                   // invalid UTF-8 in a string
	Surrogate              // a \u escape of a lone UTF-16 surrogate
)

// IsSpace reports whether c is JSON whitespace (RFC 8259 section 2): space,
// horizontal tab, line feed or carriage return.
func IsSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// SkipSpace returns the offset of the first byte at or after data[i] that is
// not whitespace, or len(data).
func SkipSpace(data []byte, i int) int {
	for i < len(data) && data[i] <= ' ' && IsSpace(data[i]) {
		i++
	}
	return i
}

// ConsumeLiteral checks that lit ("true", "false" or "null") starts at
// data[i]. The fault is at the first byte that departs from it: EOF if the
// text ends first, else Literal.
func ConsumeLiteral(data []byte, i int, lit string) (int, Fault) {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), OK
	}
	j := 0
	for j < len(lit) && i+j < len(data) && data[i+j] == lit[j] {
		j++
	}
	if i+j == len(data) {
		return i + j, EOF
	}
	return i + j, Literal
}

// ConsumeNumber checks the number that starts at data[i] (RFC 8259 section
// 6). Whatever follows it is the caller's to check.
//
//	number = [ minus ] int [ frac ] [ exp ]
//	int    = zero / ( digit1-9 *DIGIT )
//	frac   = decimal-point 1*DIGIT
//	exp    = e [ minus / plus ] 1*DIGIT
func ConsumeNumber(data []byte, i int) (int, Fault) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return i, EOF
	case data[i] == '0':
		i++
	case data[i]-'1' <= 8:
		i++
		for i < len(data) && data[i]-'0' <= 9 {
			i++
		}
	default:
		return i, Digit
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || data[i]-'0' > 9 {
			return i, FracDigit
		}
		for i < len(data) && data[i]-'0' <= 9 {
			i++
		}
	}
	if i < len(data) && data[i]|0x20 == 'e' {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i]-'0' > 9 {
			return i, ExpDigit
		}
		for i < len(data) && data[i]-'0' <= 9 {
			i++
		}
	}
	return i, OK
}
