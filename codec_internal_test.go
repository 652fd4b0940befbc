package rpcid

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// TestSkipPlain checks the eight-bytes-a-step scan against the obvious byte
// loop for every byte value at every position of a buffer, from every start.
func TestSkipPlain(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' }
	buf := make([]byte, 20)
	for c := 0; c < 256; c++ {
		for pos := 0; pos < len(buf); pos++ {
			for i := range buf {
				buf[i] = 'a'
			}
			buf[pos] = byte(c)
			for start := 0; start <= len(buf); start++ {
				want := start
				for want < len(buf) && plain(buf[want]) {
					want++
				}
				if got := skipPlain(buf, start); got != want {
					t.Fatalf("skipPlain(%q, %d) = %d, want %d", buf, start, got, want)
				}
			}
		}
	}
}

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
