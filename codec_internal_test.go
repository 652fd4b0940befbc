package rpcid

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestIndexBackslash checks the eight-bytes-a-step search against
// bytes.IndexByte for every byte value at every position, from every start.
func TestIndexBackslash(t *testing.T) {
	buf := make([]byte, 20)
	for c := 0; c < 256; c++ {
		for pos := 0; pos < len(buf); pos++ {
			for i := range buf {
				buf[i] = 'a'
			}
			buf[pos] = byte(c)
			for start := 0; start <= len(buf); start++ {
				want := len(buf)
				if j := bytes.IndexByte(buf[start:], '\\'); j >= 0 {
					want = start + j
				}
				if got := indexBackslash(buf, start); got != want {
					t.Fatalf("indexBackslash(%q, %d) = %d, want %d", buf, start, got, want)
				}
			}
		}
	}
}

// TestFastPaths checks parse and parseFast, which read integers eight bytes
// at a time, against the general scanner alone, on integers and integer
// strings of every length from 0 to 21 digits with every byte value at every
// position, with and without sign and quotation marks.
func TestFastPaths(t *testing.T) {
	general := func(data []byte) (ID, bool) {
		var v view
		if flt := v.scan(data); flt.err != nil {
			return ID{}, false
		}
		return v.id(data), true
	}
	check := func(data []byte) {
		want, wantOK := general(data)
		got, err := parse(data, "Parse")
		if got != want || (err == nil) != wantOK {
			t.Fatalf("parse(%q) = %v, %v; the general scanner gives %v, ok %v", data, got, err, want, wantOK)
		}
		n, f := parseFast(data)
		if f != formAbsent && (!wantOK || (ID{n: n, f: f}) != want) {
			t.Fatalf("parseFast(%q) = %d, %v; the general scanner gives %v, ok %v", data, n, f, want, wantOK)
		}
		// Every canonical integer, bare or quoted, takes the fast path (but
		// -0, which is 0 spelled otherwise).
		canon := strconv.FormatInt(want.n, 10)
		if f == formAbsent && (want.f == formInt && string(data) == canon || want.f == formIntString && string(data) == `"`+canon+`"`) {
			t.Fatalf("parseFast(%q) refused a canonical integer", data)
		}
	}
	const digits = "9223372036854775807999"
	// Every byte value; in -short mode the digits, their neighbours and
	// the bytes that flip the checks' nibbles and carries.
	var bytesTried []byte
	for c := 0; c < 256; c++ {
		if !testing.Short() || c >= '-' && c <= ':' || strings.IndexByte("\x00\x06\x10\"\x30\x40\x7f\x80\xc9\xf0\xf9\xfa\xff", byte(c)) >= 0 {
			bytesTried = append(bytesTried, byte(c))
		}
	}
	for n := 0; n <= 21; n++ {
		for _, prefix := range []string{"", "-", `"`, `"-`, "0", "-0"} {
			suffix := ""
			if strings.HasPrefix(prefix, `"`) {
				suffix = `"`
			}
			for _, body := range []string{digits[:n], strings.Repeat("1", n), strings.Repeat("0", n), "9223372036854775808"[:min(n, 19)]} {
				data := []byte(prefix + body + suffix)
				check(data)
				for pos := range data {
					orig := data[pos]
					for _, c := range bytesTried {
						data[pos] = c
						check(data)
					}
					data[pos] = orig
				}
			}
		}
	}
	for _, s := range []string{"null", "nul", "nulll", `""`, `"`, `"-"`, "-", "", `"0"`, `"-0"`, "-0", `"00"`, "1e3", "1.0"} {
		check([]byte(s))
	}
}
