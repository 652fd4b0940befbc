package base

import "strings"

// IsCanonicalDigits reports whether s matches 0|-?[1-9][0-9]*: the
// canonical spelling of clause 5, but for the int64 range. "-0" is not one:
// it is minus zero, which clause 5 equates with no number.
func IsCanonicalDigits(s string) bool {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if s == "" || (s[0] == '0' && (len(s) > 1 || neg)) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// IsJSDecimal reports whether s is a StrUnsignedDecimalLiteral other than
// Infinity: digits, optionally '.', digits, with at least one digit in the
// two parts, then optionally e or E, an optional sign and at least one digit.
func IsJSDecimal(s string) bool {
	i, n := 0, 0
	for i < len(s) && isDigit(s[i]) {
		i, n = i+1, n+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, n = i+1, n+1
		}
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		m := 0
		for i < len(s) && isDigit(s[i]) {
			i, m = i+1, m+1
		}
		if m == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
