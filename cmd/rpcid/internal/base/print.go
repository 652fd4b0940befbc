package base

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// UnsafeRune reports whether r must not reach a terminal as it is: C0 and
// C1 controls and DEL (line breaks, terminal escapes), the Unicode line and
// paragraph separators, and every format character (category Cf: the
// bidirectional controls U+061C, U+200E, U+200F, U+202A-U+202E and
// U+2066-U+2069, which can reorder what a line shows (CVE-2021-42574,
// "Trojan Source"), and zero-width characters and the soft hyphen, which hide
// what a line holds). Findings, eq, key and the proxy's log lines all use it.
func UnsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Printable returns s with each unsafe rune written as a JSON escape (\n,
// \t, \r, or \u001b and the like) and invalid UTF-8 as U+FFFD, so that text
// from a capture (an id, a method name, an error message) can neither split
// a line, drive the terminal, nor reorder what the line shows. Ids shown as
// JSON text stay valid JSON.
func Printable(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return string(AppendPrintable(nil, s))
		}
	}
	return s
}

// AppendPrintable appends Printable(s) to b.
func AppendPrintable(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\r':
			b = append(b, `\r`...)
		case UnsafeRune(r):
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = utf8.AppendRune(b, r) // U+FFFD for invalid UTF-8
		}
	}
	return b
}

// ShowMax is the length to which ids, method names and other text from a
// capture or a command line are cut.
const ShowMax = 64

// ShowString returns text from a capture (a method name, an error
// message), cut like ids.
func ShowString(s string) string {
	if len(s) > ShowMax+8 {
		s = Truncate(s, ShowMax) + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// JSONTypeName names the type of a valid JSON value, with an article.
func JSONTypeName(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
