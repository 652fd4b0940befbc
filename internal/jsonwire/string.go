package jsonwire

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// ConsumeString checks the string whose opening quotation mark is at
// data[i] (RFC 8259 sections 7 and 8.1, and no lone surrogate escapes) and
// returns the offset after its closing quotation mark; esc reports whether
// its contents hold an escape.
//
// It skips printable ASCII eight bytes a step (see special), and checks
// each run of multi-byte UTF-8 sequences with utf8Run. Where escapes come
// close together (two within eight bytes, as in source code and JSON held
// in a string), it switches to dense, which finds the escapes of eight
// bytes at once without a branch for each.
func ConsumeString(data []byte, i int) (n int, esc bool, f Fault) {
	i++
	last := -8 // the offset of the last escape
	for {
		for ; i+8 <= len(data); i += 8 {
			if m := special(binary.LittleEndian.Uint64(data[i : i+8])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto look
			}
		}
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			return i, esc, EOF
		}
	look: // data[i] is not plain
		switch c := data[i]; {
		case c == '"':
			return i + 1, esc, OK
		case c == '\\':
			esc = true
			if i+1 < len(data) && escapes[data[i+1]] {
				// The common escapes, without a call.
				close := i-last < 8
				last = i
				if i += 2; close {
					i = dense(data, i)
				}
				continue
			}
			if i, f = escape(data, i); f != OK {
				return i, esc, f
			}
		case c < 0x20:
			return i, esc, Control
		default:
			var bad bool
			if i, bad = utf8Run(data, i); bad {
				return i, esc, UTF8
			}
		}
	}
}

// utf8Run checks the multi-byte UTF-8 sequences (RFC 3629) that start at
// data[i], up to the first ASCII byte or the end of data, and returns the
// offset after them; or the offset of the first byte that starts no valid
// sequence and bad, as utf8.DecodeRune would find it: overlong forms,
// surrogate halves, code points past U+10FFFF and sequences cut short are
// invalid.
func utf8Run(data []byte, i int) (end int, bad bool) {
	for i < len(data) {
		c := data[i]
		switch {
		case c < 0x80:
			return i, false
		case c < 0xC2: // a continuation byte, or the lead of an overlong form
			return i, true
		case c < 0xE0:
			if i+1 >= len(data) || data[i+1]^0x80 >= 0x40 {
				return i, true
			}
			i += 2
		case c < 0xF0:
			if i+2 >= len(data) {
				return i, true
			}
			lo, hi := byte(0x80), byte(0xBF)
			if c == 0xE0 {
				lo = 0xA0 // not overlong
			} else if c == 0xED {
				hi = 0x9F // not a surrogate half
			}
			if c1, c2 := data[i+1], data[i+2]; c1 < lo || c1 > hi || c2^0x80 >= 0x40 {
				return i, true
			}
			i += 3
		case c < 0xF5:
			if i+3 >= len(data) {
				return i, true
			}
			lo, hi := byte(0x80), byte(0xBF)
			if c == 0xF0 {
				lo = 0x90 // not overlong
			} else if c == 0xF4 {
				hi = 0x8F // not past U+10FFFF
			}
			if c1, c2, c3 := data[i+1], data[i+2], data[i+3]; c1 < lo || c1 > hi || c2^0x80 >= 0x40 || c3^0x80 >= 0x40 {
				return i, true
			}
			i += 4
		default:
			return i, true
		}
	}
	return i, false
}

// dense skips the contents of a string from data[i], which is not part of
// an escape, eight bytes a step, past plain bytes and the escapes of
// escapes (\" \\ \/ \b \f \n \r \t), and returns the offset of the first
// byte ConsumeString must look at itself: a quotation mark that ends the string, a
// reverse solidus whose escape is another (\u) or none, a control
// character, a byte of a multi-byte UTF-8 sequence; or of the last seven
// bytes or fewer, which ConsumeString takes byte by byte.
//
// In each eight bytes, the reverse solidi that start an escape are those
// that end an odd run of them, counting one carried from the eight bytes
// before (escaped); the bytes after them are escaped. A quotation mark is
// escaped or ends the string; each escaped byte is checked against the
// table of escapes, the first two without a branch each.
func dense(data []byte, i int) int {
	carry := uint64(0) // 1 if data[i] is escaped by the last byte before it
	for i+8 <= len(data) {
		x := binary.LittleEndian.Uint64(data[i : i+8])
		if carry == 0 && special(x) == 0 {
			i += 8
			continue
		}
		e := uint64(escaped[carry<<8|gather(equal(x, '\\'))])
		carry = e >> 8
		e &= 0xff
		esc := e
		stop := gather(equal(x, '"'))&^e | gather(controlOrHigh(x))
		if e != 0 {
			k := bits.TrailingZeros64(e)
			stop |= uint64(1^simple[byte(x>>(8*k))]) << k
			if e &= e - 1; e != 0 {
				k = bits.TrailingZeros64(e)
				stop |= uint64(1^simple[byte(x>>(8*k))]) << k
				for e &= e - 1; e != 0; e &= e - 1 {
					k = bits.TrailingZeros64(e)
					stop |= uint64(1^simple[byte(x>>(8*k))]) << k
				}
			}
		}
		if stop != 0 {
			k := bits.TrailingZeros64(stop)
			i += k
			if esc>>k&1 != 0 {
				i-- // an escaped byte: ConsumeString looks at its reverse solidus
			}
			return i
		}
		i += 8
	}
	return i - int(carry) // a reverse solidus whose escape is in the tail
}

// equal returns the high bit of each byte of x that is c, and no other bit.
func equal(x uint64, c byte) uint64 {
	y := x ^ (uint64(c) * ones)
	return ^(((y &^ highs) + lows) | y) & highs
}

// controlOrHigh returns the high bit of each byte of x below 0x20 or with
// its high bit set, and no other bit.
func controlOrHigh(x uint64) uint64 {
	return (^((x &^ highs) + 0x6060606060606060) | x) & highs
}

// gather returns the high bits of the eight bytes of m, which has no other
// bits set, as the low eight bits: byte k's at bit k.
func gather(m uint64) uint64 { return m >> 7 * 0x0102040810204080 >> 56 }

// escaped holds, for each set b of the reverse solidi among eight bytes
// (bit k for byte k) and whether the first byte is escaped by the byte
// before (index carry<<8 | b), the set of the eight bytes that are escaped
// (the byte after a reverse solidus that ends an odd run of them), with bit
// 8 set if the byte after the eight is.
var escaped = func() (t [512]uint16) {
	for carry := 0; carry < 2; carry++ {
		for b := 0; b < 256; b++ {
			esc := carry == 1
			var e uint16
			for k := 0; k < 8; k++ {
				switch {
				case esc:
					e |= 1 << k
					esc = false
				case b>>k&1 != 0:
					esc = true
				}
			}
			if esc {
				e |= 1 << 8
			}
			t[carry<<8|b] = e
		}
	}
	return t
}()

// simple is 1 for the bytes that may follow a reverse solidus in an escape
// of RFC 8259 section 7 other than \u, and 0 for all others.
var simple = func() (t [256]uint8) {
	for c, ok := range escapes {
		if ok {
			t[c] = 1
		}
	}
	return t
}()

// plain reports the bytes that may stand for themselves in a string and
// need no further look: printable ASCII other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escapes maps the byte after a reverse solidus to true for the escapes of
// RFC 8259 section 7 other than \u, which escape checks.
var escapes = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escape checks the escape at data[i], a reverse solidus, and returns the
// offset after it. A \u escape of a high surrogate must be followed by one of
// a low surrogate; a low surrogate alone is refused.
func escape(data []byte, i int) (int, Fault) {
	if i+1 >= len(data) {
		return len(data), EOF
	}
	if c := data[i+1]; c != 'u' {
		if !escapes[c] {
			return i + 1, Escape
		}
		return i + 2, OK
	}
	r := hex4(data[i+2:])
	if r < 0 {
		return hexFault(data, i+2)
	}
	if !utf16.IsSurrogate(r) {
		return i + 6, OK
	}
	if r < 0xDC00 && (i+6 == len(data) || i+7 == len(data) && data[i+6] == '\\') {
		// A high surrogate at the end of the text, or with only the
		// reverse solidus of its pair: cut short, not lone.
		return len(data), EOF
	}
	if r < 0xDC00 && i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
		r2 := hex4(data[i+8:])
		if r2 < 0 {
			return hexFault(data, i+8)
		}
		if r2 >= 0xDC00 && r2 <= 0xDFFF {
			return i + 12, OK
		}
	}
	return i, Surrogate
}

// hexFault returns the offset of the first byte of a malformed \u escape's
// four digits, which start at data[i], that is not a hexadecimal digit, and
// the fault there.
func hexFault(data []byte, i int) (int, Fault) {
	for j := i; j < i+4; j++ {
		if j >= len(data) {
			return j, EOF
		}
		if c := data[j]; c-'0' > 9 && c|0x20-'a' > 5 {
			return j, Hex
		}
	}
	return i, Hex
}

// DecodeEscape returns the rune that the escape at raw[i] stands for, and
// the escape's length in bytes; raw holds a string's contents that
// ConsumeString has accepted, and raw[i] is a reverse solidus that starts
// an escape. A surrogate pair (two \u escapes) is one rune, 12 bytes long.
func DecodeEscape(raw []byte, i int) (r rune, size int) {
	switch c := raw[i+1]; c {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r = hex4(raw[i+2:])
		if utf16.IsSurrogate(r) { // accepted: a pair
			return utf16.DecodeRune(r, hex4(raw[i+8:])), 12
		}
		return r, 6
	default: // '"', '\\', '/'
		return rune(c), 2
	}
}

// UnquotedLen returns the length in bytes of the decoded contents of raw, a
// string's contents that ConsumeString has accepted.
func UnquotedLen(raw []byte) int {
	n := len(raw)
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' {
			r, size := DecodeEscape(raw, i)
			n += utf8.RuneLen(r) - size
			i += size - 1
		}
	}
	return n
}

// Constants for looking at eight bytes at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7f7f7f7f7f7f7f7f
)

// special returns, for x, eight bytes of a string's contents, a word
// whose lowest set bit is the high bit of the first byte that is not
// plain: a quotation mark, a reverse solidus, a control character below
// U+0020 or a byte with its high bit set (of a multi-byte UTF-8 sequence);
// or 0 if all eight are plain.
//
// (y - ones) &^ y & highs has the high bit of the lowest zero byte of y set
// (and maybe bits above it, from the borrow): y is x with '"' or '\\' made
// zero. Likewise x - 0x20*ones for the lowest byte below 0x20 (a byte with
// the high bit set may set it too, as x does), and x for bytes with the
// high bit set. So the lowest set bit of the union marks exactly the first
// byte that is not plain.
func special(x uint64) uint64 {
	q, b := x^('"'*ones), x^('\\'*ones)
	return ((q-ones)&^q | (b-ones)&^b | (x - 0x20*ones) | x) & highs
}

// hex4 returns the value of the four hexadecimal digits at the start of b,
// or -1 if they are not four hexadecimal digits.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c-'0' <= 9:
			r = r<<4 | rune(c-'0')
		case c|0x20-'a' <= 5:
			r = r<<4 | rune(c|0x20-'a'+10)
		default:
			return -1
		}
	}
	return r
}
