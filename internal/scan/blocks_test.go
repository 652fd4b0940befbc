package scan

import (
	"math/rand/v2"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// classifyBlocks agrees with classifyRef on every byte value in every
// position of a block, and on random blocks in batches of every length.
func TestClassifyBlocks(t *testing.T) {
	var got [blockBatch * masks]uint64
	want := make([]uint64, blockBatch*masks)
	check := func(b []byte) {
		t.Helper()
		got = [blockBatch * masks]uint64{}
		classifyBlocks(b, &got)
		classifyRef(b, want)
		for k := 0; k < len(b)/64*masks; k++ {
			if got[k] != want[k] {
				t.Fatalf("block %d mask %d of %q: %#x, want %#x", k/masks, k%masks, b[k/masks*64:k/masks*64+64], got[k], want[k])
			}
		}
	}
	b := make([]byte, 64)
	for c := 0; c < 256; c++ {
		for j := range b {
			b[j] = 'a'
		}
		for j := range b {
			b[j] = byte(c)
			check(b)
			b[j] = 'a'
		}
		for j := range b {
			b[j] = byte(c)
		}
		check(b)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 20000; n++ {
		b := make([]byte, 64*(1+r.IntN(blockBatch)))
		for j := range b {
			if r.IntN(2) == 0 {
				b[j] = `"\/bfnrtu a`[r.IntN(11)]
			} else {
				b[j] = byte(r.Uint32())
			}
		}
		check(b)
	}
}

// refLook is what blocks finds, a byte at a time: the offset of the first
// byte at or after data[i] (not escaped) that is not plain and starts no
// escape (but \u of a surrogate) nor valid multi-byte UTF-8 sequence.
func refLook(data []byte, i int) int {
	for i < len(data) {
		c := data[i]
		switch {
		case plain[c]:
			i++
		case c == '\\' && i+1 < len(data) && simple[data[i+1]] != 0:
			i += 2
		case c == '\\' && i+1 < len(data) && data[i+1] == 'u':
			if r := hex4(data[i+2:]); r < 0 || utf16.IsSurrogate(r) {
				return i
			}
			i += 6
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return i
			}
			i += size
		default:
			return i
		}
	}
	return i
}

// blocks stops where a byte-at-a-time walk does, if that is before the
// tail it leaves to str; otherwise it returns an offset at most three bytes
// before the tail from which the walk stops at the same place. Strings dense
// with escapes, runs of reverse solidi across block boundaries, \u escapes,
// control characters and UTF-8, at every alignment.
func TestBlocks(t *testing.T) {
	pieces := []string{`\\`, `\"`, `\n`, `\/`, `\\\\`, `\\\"`, "é", "😀", `\u00e9`, "€", // what blocks skips
		`\ud83d\ude00`, `\ud83d`, `\u12`, `\q`, `\`, `"`, "\x01", "\x1f", "\xff", "\xe2\x82", "\xed\xa0\x80", "\x7f", " ", "0123456789abcdef"}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 300000; n++ {
		var b []byte
		for len(b) < 64+r.IntN(400) {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(4) > 0 { // mostly what blocks skips, so that it runs long
				p = pieces[r.IntN(10)]
				if r.IntN(2) == 0 {
					p = pieces[len(pieces)-1]
				}
			}
			b = append(b, p...)
		}
		i := r.IntN(8)
		tail := i + (len(b)-i)/64*64
		want := refLook(b, i)
		got := blocks(b, i)
		if want < tail && got != want || want >= tail && (got > want || got < tail-3 || refLook(b, got) != want) {
			t.Fatalf("blocks(%q, %d) = %d, want %d (tail %d)", b, i, got, want, tail)
		}
	}
}

// str agrees with refStr on long strings, which take the block path where
// there is one, over many lengths, contents and alignments.
func TestStrBlocks(t *testing.T) {
	pieces := []string{`\n`, `\t`, `\"`, `\\`, `\/`, `\b`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\q`, `\`, `"`, "a", "bc", "\x01", "é", "\xff", "\xe2\x82", `\u12`, " ", "The quick brown fox jumps over the lazy dog. ", "Prévisions : pluie légère, à 20 km/h. ", "東京の天気予報😀"}
	r := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 100000; n++ {
		b := []byte{'"'}
		for len(b) < r.IntN(600) {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(8) > 0 { // mostly valid, so that strings run long
				p = pieces[[]int{0, 1, 2, 3, 4, 6, 15, 20, 20, 20, 21, 22}[r.IntN(12)]]
			}
			b = append(b, p...)
		}
		if r.IntN(4) > 0 {
			b = append(b, '"')
		}
		checkStr(t, b)
	}
}

// blocks takes every one-, two-, three- and four-byte sequence, valid or
// not, as utf8.DecodeRune does, in a string long enough for a block.
func TestBlocksUTF8(t *testing.T) {
	pad := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	seq := func(b ...byte) {
		data := append(append(append([]byte{}, pad[:30]...), b...), pad...)
		want := refLook(data, 0)
		if got := blocks(data, 0); got != want && !(want >= 64 && got <= want && refLook(data, got) == want) {
			t.Fatalf("blocks(% x) = %d, want %d", b, got, want)
		}
	}
	for c0 := 0x80; c0 < 0x100; c0++ {
		for c1 := 0; c1 < 0x100; c1++ {
			seq(byte(c0), byte(c1))
			seq(byte(c0), byte(c1), 0x80)
			seq(byte(c0), byte(c1), 0xbf, 0x80)
			seq(byte(c0), byte(c1), 0x7f)
		}
	}
}
