package jsonwire

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// gather, equal and controlOrHigh are checked for every byte value in every
// position, and gather for every set of high bits.
func TestWordHelpers(t *testing.T) {
	for b := 0; b < 256; b++ {
		var m uint64
		for k := 0; k < 8; k++ {
			if b>>k&1 != 0 {
				m |= 0x80 << (8 * k)
			}
		}
		if got := gather(m); got != uint64(b) {
			t.Fatalf("gather(%#x) = %08b, want %08b", m, got, b)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for c := 0; c < 256; c++ {
		for k := 0; k < 8; k++ {
			for range 16 {
				var w [8]byte
				for j := range w {
					w[j] = byte(r.UintN(256))
				}
				w[k] = byte(c)
				x := binary.LittleEndian.Uint64(w[:])
				var wantQ, wantC uint64
				for j, v := range w {
					if v == '"' {
						wantQ |= 0x80 << (8 * j)
					}
					if v < 0x20 || v >= 0x80 {
						wantC |= 0x80 << (8 * j)
					}
				}
				if got := equal(x, '"'); got != wantQ {
					t.Fatalf("equal(%q, '\"') = %#x, want %#x", w, got, wantQ)
				}
				if got := controlOrHigh(x); got != wantC {
					t.Fatalf("controlOrHigh(%q) = %#x, want %#x", w, got, wantC)
				}
			}
		}
	}
}

// refStr is ConsumeString one byte at a time: the offset after the closing quotation
// mark of the string whose contents start at data[i], or -1 if it is not a
// valid string.
func refStr(data []byte, i int) int {
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || hex4(data[i+2:]) < 0 {
					return -1
				}
				r := hex4(data[i+2:])
				switch {
				case r >= 0xD800 && r < 0xDC00:
					if i+12 > len(data) || data[i+6] != '\\' || data[i+7] != 'u' {
						return -1
					}
					if r2 := hex4(data[i+8:]); r2 < 0xDC00 || r2 > 0xDFFF {
						return -1
					}
					i += 12
				case r >= 0xDC00 && r <= 0xDFFF:
					return -1
				default:
					i += 6
				}
			default:
				return -1
			}
		case c < 0x20:
			return -1
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return -1
			}
			i += size
		}
	}
	return -1
}

// ConsumeString agrees with refStr on strings dense with escapes, which take its
// eight-bytes-at-once path, over many lengths and alignments.
func TestStrDense(t *testing.T) {
	pieces := []string{`\n`, `\t`, `\"`, `\\`, `\/`, `\b`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\q`, `\`, `"`, "a", "bc", "\x01", "é", "\xff", "\xe2\x82", `\u12`, " "}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300000; n++ {
		b := []byte{'"'}
		for k := r.IntN(24); k > 0; k-- {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(4) > 0 { // mostly valid escapes, so that dense runs long
				p = pieces[r.IntN(6)]
			}
			b = append(b, p...)
		}
		if r.IntN(2) == 0 {
			b = append(b, '"')
		}
		checkStr(t, b)
	}
}

// checkStr checks that ConsumeString agrees with refStr on b, a string
// from its opening quotation mark.
func checkStr(t *testing.T, b []byte) {
	t.Helper()
	want := refStr(b, 1)
	got, _, f := ConsumeString(b, 0)
	if f != OK {
		got = -1
	}
	if got != want {
		t.Fatalf("ConsumeString(%q) = %d, want %d", b, got, want)
	}
}

// utf8Run agrees with utf8.DecodeRune, one sequence at a time, on every
// lead byte followed by continuation bytes at and around each bound of RFC
// 3629's table, cut short at every length.
func TestUTF8Run(t *testing.T) {
	edges := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xf4, 0xff}
	for c0 := 0x80; c0 < 0x100; c0++ {
		for _, c1 := range edges {
			for _, c2 := range edges {
				for _, c3 := range edges {
					full := []byte{byte(c0), c1, c2, c3, 0xc3, 0xa9, 'x'}
					for n := 1; n <= len(full); n++ {
						b := full[:n]
						want, wantBad := 0, false
						for want < len(b) && b[want] >= utf8.RuneSelf {
							r, size := utf8.DecodeRune(b[want:])
							if r == utf8.RuneError && size == 1 {
								wantBad = true
								break
							}
							want += size
						}
						if got, bad := utf8Run(b, 0); got != want || bad != wantBad {
							t.Fatalf("utf8Run(% x) = %d, %v; want %d, %v", b, got, bad, want, wantBad)
						}
					}
				}
			}
		}
	}
}

// ConsumeString agrees with refStr for every byte value at every position
// of a string's contents of 20 bytes, which its eight-byte steps and its
// byte-by-byte tail both look at, and reports a fault at that byte or the
// one after it (the letter of an escape).
func TestEveryByte(t *testing.T) {
	buf := make([]byte, 22)
	for c := 0; c < 256; c++ {
		for pos := 1; pos < len(buf)-1; pos++ {
			for i := range buf {
				buf[i] = 'a'
			}
			buf[0], buf[len(buf)-1] = '"', '"'
			buf[pos] = byte(c)
			want := refStr(buf, 1)
			got, esc, f := ConsumeString(buf, 0)
			if f != OK {
				cut := f == EOF && got == len(buf) // a reverse solidus escapes the last quotation mark
				if want >= 0 || !cut && (got < pos || got > pos+1) {
					t.Fatalf("ConsumeString(%q) = %d, %v, fault %d; want %d", buf, got, esc, f, want)
				}
				continue
			}
			if got != want || esc != (c == '\\') {
				t.Fatalf("ConsumeString(%q) = %d, %v; want %d, %v", buf, got, esc, want, c == '\\')
			}
		}
	}
}

// FuzzConsumeString holds ConsumeString to refStr on any string contents.
func FuzzConsumeString(f *testing.F) {
	for _, s := range []string{
		`abc"`, `a\nb\t\"\\\/"`, `\u00e9\ud83d\ude00"`, `\ud83d"`, `\ude00"`, `\u12g4"`,
		"é東😀\"", "\xed\xa0\x80\"", "\xc0\xaf\"", "a\x1f\"", `\q"`, `\`,
		`\n\n\\\\\\\\\"\"\u0041\\\u0041"`, "\\n\\t\xe2\x82\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, contents []byte) {
		checkStr(t, append([]byte{'"'}, contents...))
	})
}
