package scan

import (
	"bytes"
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
func TestBlocks(t *testing.T) { blocksBoth(t, testBlocks) }

func testBlocks(t *testing.T) {
	pieces := []string{`\\`, `\"`, `\n`, `\/`, `\\\\`, `\\\"`, "é", "😀", `\u00e9`, "€", // what blocks skips
		`\ud83d\ude00`, `\ud83d`, `\u12`, `\q`, `\`, `"`, "\x01", "\x1f", "\xff", "\xe2\x82", "\xed\xa0\x80", "\x7f", " ", "0123456789abcdef"}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < iterations(300000); n++ {
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
		if !blocksAgree(b, i, got, want) {
			t.Fatalf("blocks(%q, %d) = %d, want %d (tail %d, useUTF8 %v)", b, i, got, want, tail, useUTF8)
		}
	}
}

// blocksAgree reports whether got, what blocks(b, i) returned, is right
// where a byte-at-a-time walk stops at want: got is want if that is before
// the tail; otherwise it is an offset at most three bytes before the tail
// from which the walk stops at want. Where blocks check UTF-8 (useUTF8) and
// b has invalid UTF-8 after i, got may also be any offset from which the
// walk stops at want: blocks leaves a block with invalid UTF-8 in it (in
// the string or after it) to str.
func blocksAgree(b []byte, i, got, want int) bool {
	tail := i + (len(b)-i)/64*64
	walk := got >= i && got <= want && refLook(b, got) == want
	return want < tail && got == want ||
		want >= tail && walk && got >= tail-3 ||
		useUTF8 && walk && !utf8.Valid(b[i:])
}

// blockPaths are the ways classifyUTF8 can take: without checking UTF-8,
// and checking it with SSSE3 (or in Go, where there is no assembly) and
// with AVX2.
var blockPaths = []struct {
	name       string
	utf8, avx2 bool
}{{"sse2", false, false}, {"ssse3", true, false}, {"avx2", true, true}}

// blocksBoth runs f with classifyUTF8 taking each of blockPaths that this
// processor and build have.
func blocksBoth(t *testing.T, f func(t *testing.T)) {
	savedUTF8, savedAVX2 := useUTF8, useAVX2
	defer func() { useUTF8, useAVX2 = savedUTF8, savedAVX2 }()
	for _, p := range blockPaths {
		// Without the assembly (purego, other platforms), classifyUTF8
		// checks UTF-8 in Go, with classifyUTF8Ref.
		if p.avx2 && !canAVX2 || p.name == "ssse3" && !canUTF8 && haveBlocks {
			continue
		}
		useUTF8, useAVX2 = p.utf8, p.avx2
		t.Run(p.name, f)
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
		// Every path gives str the same end, or the same fault at the same
		// offset, as the pure Go one.
		res := map[string][3]int{}
		for _, path := range BlockPaths() {
			restore := UseBlockPath(path)
			s := scanner{data: b}
			res[path] = [3]int{s.str(0), int(s.flt), s.off}
			restore()
		}
		for path, got := range res {
			if got != res["go"] {
				t.Fatalf("str(%q) with %s: end, fault, offset %v; pure Go %v", b, path, got, res["go"])
			}
		}
	}
}

// blocks takes every pair of a byte 80-FF and any byte, alone and followed
// by 80, BF 80 and 7F, as utf8.DecodeRune does, at one offset of a string
// long enough for a block.
func TestBlocksUTF8(t *testing.T) { blocksBoth(t, testBlocksUTF8) }

func testBlocksUTF8(t *testing.T) {
	pad := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	seq := func(b ...byte) {
		data := append(append(append([]byte{}, pad[:30]...), b...), pad...)
		want := refLook(data, 0)
		if got := blocks(data, 0); !blocksAgree(data, 0, got, want) {
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

// classifyBlocksUTF8 agrees with classifyUTF8Ref, and stringBlocksAVX2
// with stringBlocksRef (which checks UTF-8 with classifyUTF8Ref): every
// pair of a byte 80-FF and any byte, alone and followed by 80, BF 80 and 80
// 41, at 14 offsets around the boundaries of 16-byte lanes, 32-byte halves
// and blocks, and cut between prev and the block; and random batches of
// every length with random bytes before them.
func TestClassifyBlocksUTF8(t *testing.T) {
	if !canUTF8 && !canAVX2 {
		t.Skip("classifyBlocksUTF8 and stringBlocksAVX2 need SSSE3 or AVX2 on amd64 (and GODEBUG not turning them off), and are not built with purego")
	}
	if !canUTF8 {
		t.Log("ssse3 not here (or turned off by GODEBUG): classifyBlocksUTF8 not tried")
	}
	if !canAVX2 {
		t.Log("avx2 not here (or turned off by GODEBUG): stringBlocksAVX2 not tried")
	}
	saved := useUTF8
	useUTF8 = true
	defer func() { useUTF8 = saved }()
	var got [blockBatch * masks]uint64
	want := make([]uint64, blockBatch*masks)
	check := func(b []byte, prev [16]byte) {
		t.Helper()
		if canAVX2 {
			for carry := uint64(0); carry < 2; carry++ {
				p := prev
				k, stop, esc, cin, cout, bad := stringBlocksAVX2(b, carry, &p)
				wk, wstop, wesc, wcin, wcout, wbad := stringBlocksRef(b, carry, &p)
				if k != wk || bad != wbad || !bad && (stop != wstop || esc != wesc || cout != wcout) || cin != wcin {
					t.Fatalf("stringBlocksAVX2(%q, %d, %q) = %d %#x %#x %d %d %v, want %d %#x %#x %d %d %v",
						b, carry, prev, k, stop, esc, cin, cout, bad, wk, wstop, wesc, wcin, wcout, wbad)
				}
			}
		}
		if !canUTF8 {
			return
		}
		p2 := prev
		wantBad := classifyUTF8Ref(b, want, &p2)
		got = [blockBatch * masks]uint64{}
		p1 := prev
		gotBad := classifyUTF8(b, &got, &p1) // classifyBlocksUTF8, useUTF8 being set

		if gotBad != wantBad || p1 != p2 {
			t.Fatalf("%q after %q: bad %b, want %b; prev %q, want %q", b, prev, gotBad, wantBad, p1, p2)
		}
		for j := 0; j < len(b)/64*masks; j++ {
			if got[j] != want[j] {
				t.Fatalf("block %d mask %d of %q: %#x, want %#x", j/masks, j%masks, b[j/masks*64:j/masks*64+64], got[j], want[j])
			}
		}
	}
	b := make([]byte, 128)
	var prev [16]byte
	at := []int{0, 1, 13, 14, 15, 16, 31, 47, 61, 62, 63, 64, 126, 127}
	// Under the race detector, which slows the reference down 20 times
	// and has no goroutines to watch here, every third second byte.
	step := 1
	if raceEnabled {
		step = 3
	}
	for c0 := 0x80; c0 < 0x100; c0++ {
		for c1 := 0; c1 < 0x100; c1 += step {
			for _, seq := range [][]byte{{byte(c0), byte(c1)}, {byte(c0), byte(c1), 0x80}, {byte(c0), byte(c1), 0xbf, 0x80}, {byte(c0), byte(c1), 0x80, 0x41}} {
				for _, j := range at {
					for k := range b {
						b[k] = 'a'
					}
					copy(b[j:], seq)
					check(b, prev)
				}
				// The sequence cut at the start of b, its first bytes in prev.
				for n := 1; n < len(seq); n++ {
					for k := range b {
						b[k] = 'a'
					}
					copy(prev[16-n:], seq[:n])
					copy(b, seq[n:])
					check(b, prev)
					prev = [16]byte{}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(11, 12))
	utf := []string{"a", "é", "€", "😀", "東", "\x80", "\xff", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe0\x80", "\xc1\xbf", "\x01", `"`, `\n`}
	for n := 0; n < 20000; n++ {
		b := make([]byte, 64*(1+r.IntN(blockBatch)))
		for j := 0; j < len(b); {
			if r.IntN(4) == 0 {
				b[j] = byte(r.Uint32())
				j++
				continue
			}
			j += copy(b[j:], utf[r.IntN(len(utf))])
		}
		for j := range prev {
			prev[j] = byte(r.Uint32())
		}
		check(b, prev)
	}
}

// The check of UTF-8 in classifyUTF8Ref finds no error in a text that is
// valid UTF-8 but for a sequence cut short at its end, and an error in
// every other: every text of up to three bytes from a set of bytes that
// covers each class of error, and random longer texts.
func TestUTF8Check(t *testing.T) {
	found := func(b []byte) bool {
		ctx := append(make([]byte, 3), b...)
		for p := 3; p < len(ctx); p++ {
			if utf8Error(ctx[p-3], ctx[p-2], ctx[p-1], ctx[p]) != 0 {
				return true
			}
		}
		return false
	}
	// valid reports whether b is valid UTF-8 but for a sequence cut short
	// at its end: a leading byte (C0-FF), fewer continuation bytes than it
	// calls for (one for C0-DF, two for E0-EF, three for F0-FF) and, if it
	// has one, a second byte that some sequence has after that leading
	// byte. A leading byte alone at the end is never an error here, even
	// one that starts no sequence (C0, C1, F5-FF): the check finds that
	// error in the byte after it, which blocks leaves to str.
	valid := func(b []byte) bool {
		if utf8.Valid(b) {
			return true
		}
		for k := 1; k <= 3 && k <= len(b); k++ {
			head, tail := b[:len(b)-k], b[len(b)-k:]
			n := 2
			if tail[0] >= 0xf0 {
				n = 4
			} else if tail[0] >= 0xe0 {
				n = 3
			}
			if tail[0] < 0xc0 || k >= n || !utf8.Valid(head) {
				continue
			}
			if k == 1 || utf8.Valid(append(append([]byte{}, tail...), bytes.Repeat([]byte{0x80}, n-k)...)) {
				return true
			}
		}
		return false
	}
	alphabet := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf7, 0xf8, 0xfe, 0xff}
	var b []byte
	var walk func(n int)
	walk = func(n int) {
		if got, want := found(b), !valid(b); got != want {
			t.Fatalf("% x: error found %v, want %v", b, got, want)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			b = append(b, c)
			walk(n - 1)
			b = b[:len(b)-1]
		}
	}
	walk(4)
	r := rand.New(rand.NewPCG(13, 14))
	for n := 0; n < 200000; n++ {
		b = b[:0]
		for len(b) < 1+r.IntN(12) {
			if r.IntN(3) == 0 {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			} else {
				b = utf8.AppendRune(b, rune(r.IntN(0x110000)))
			}
		}
		if got, want := found(b), !valid(b); got != want {
			t.Fatalf("% x: error found %v, want %v", b, got, want)
		}
	}
}

// iterations returns n, or a fifth of it under the race detector, which
// slows the single-goroutine tests of blocks down 10 to 20 times and has
// nothing to find in them.
func iterations(n int) int {
	if raceEnabled {
		return n / 5
	}
	return n
}

// stringBlocksAVX2 agrees with stringBlocksRef on every result: random
// batches of blocks made of escapes (runs of reverse solidi across block
// boundaries, \u, invalid ones), quotation marks, control characters and
// UTF-8 (valid, invalid, cut between prev and the batch), with each carry.
func TestStringBlocksAVX2(t *testing.T) {
	if !canAVX2 {
		t.Skip("stringBlocksAVX2 needs AVX2 on amd64 (and GODEBUG not turning it off), and is not built with purego")
	}
	pieces := []string{"a", "0123456789abcdef", `\\`, `\"`, `\n`, `\/`, `\b`, `\f`, `\r`, `\t`, `\u00e9`, `\ud83d`, `\q`, `\`, `"`,
		"\x01", "\x1f", " ", "é", "€", "😀", "東", "\x80", "\xff", "\xed\xa0\x80", "\xe0\x80", "\xe2\x82", "\x7f"}
	r := rand.New(rand.NewPCG(13, 14))
	for n := 0; n < iterations(200000); n++ {
		b := make([]byte, 64*(1+r.IntN(6)))
		for j := 0; j < len(b); {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(3) > 0 { // mostly bytes that do not stop a block
				p = pieces[r.IntN(12)]
			}
			j += copy(b[j:], p)
		}
		var prev [16]byte
		switch r.IntN(4) {
		case 0:
			for j := range prev {
				prev[j] = byte(r.Uint32())
			}
		case 1:
			copy(prev[13:], pieces[16+r.IntN(len(pieces)-16)])
		}
		carry := uint64(r.IntN(2))
		k, stop, esc, cin, cout, bad := stringBlocksAVX2(b, carry, &prev)
		wk, wstop, wesc, wcin, wcout, wbad := stringBlocksRef(b, carry, &prev)
		if k != wk || bad != wbad || !bad && (stop != wstop || esc != wesc || cout != wcout) || cin != wcin {
			t.Fatalf("stringBlocksAVX2(%q, %d, %q) = %d %#x %#x %d %d %v, want %d %#x %#x %d %d %v",
				b, carry, prev, k, stop, esc, cin, cout, bad, wk, wstop, wesc, wcin, wcout, wbad)
		}
	}
}
