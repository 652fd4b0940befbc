package scan

import (
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Strings of 64 bytes or more are checked 64 bytes a block where the
// platform classifies a block's bytes at once (classifyBlocks, in assembly on
// amd64): one bit per byte for each class below, and from those bits the
// escapes of a block are found without a branch for each, however many
// there are. See blocks.

// blockBatch is how many blocks one call of classifyBlocks takes at most.
const blockBatch = 16

// The four masks classifyBlocks writes for each 64-byte block, bit k for
// byte k.
const (
	maskQuote   = iota // '"'
	maskSolidus        // '\\'
	maskStop           // below 0x20 or above 0x7f: a control character or a byte of a multi-byte UTF-8 sequence (only below 0x20 where classifyUTF8 checks UTF-8)
	maskSimple         // if the block has a reverse solidus, a byte of / b f n r t (with " and \, those that may follow one in an escape other than \u), else none
	masks
)

// evenBits has the bits of the even bytes of a block set.
const evenBits = 0x5555555555555555

// classifyRef is what classifyBlocks computes, byte by byte: for each of the
// len(b)/64 blocks of b (len(b) a multiple of 64), its four masks in
// out[4*k:4*k+4].
func classifyRef(b []byte, out []uint64) {
	for k := 0; k+64 <= len(b); k += 64 {
		var m [masks]uint64
		for j, c := range b[k : k+64] {
			bit := uint64(1) << j
			switch {
			case c == '"':
				m[maskQuote] |= bit
			case c == '\\':
				m[maskSolidus] |= bit
			case c < 0x20 || c > 0x7f:
				m[maskStop] |= bit
			}
			if simple[c] != 0 && c != '"' && c != '\\' {
				m[maskSimple] |= bit
			}
		}
		if m[maskSolidus] == 0 {
			m[maskSimple] = 0
		}
		copy(out[k/64*masks:], m[:])
	}
}

// blocks skips the contents of a string from data[i], which is neither part
// of an escape nor within a UTF-8 sequence, 64 bytes a block, past plain bytes, escapes (but for those of
// UTF-16 surrogates) and multi-byte UTF-8 sequences, and returns the offset
// of the first byte str must look at itself: a quotation mark that ends the
// string, a reverse solidus whose escape is of a surrogate or malformed, a
// control character, a byte that starts no valid UTF-8 sequence; or, where
// fewer than 64 bytes remain, of the first of them, or of the reverse
// solidus of an escape that reaches into them, or of the end of a run of
// UTF-8 sequences that does (or, where classifyUTF8 checks UTF-8, of the
// first byte of a sequence that does). Where classifyUTF8 checks UTF-8 and
// finds an error in a block, blocks returns the offset of the block's first
// byte instead (or of the reverse solidus that escapes it, or of the first
// byte of a sequence that reaches into it), even if the error lies past the
// string's end: str finds from there what stops the string.
//
// The reverse solidi that start an escape are those that end an odd run of
// them, counting one carried from the block before; the byte after each is
// escaped. An odd run is one that starts on an odd bit and ends on an even
// one or the reverse: adding the starts of runs on odd bits to the mask of
// reverse solidi carries each such start to the bit after its run, so that
// the bits after runs are found by the parity of where they start, for all
// runs at once (the method of simdjson's string scanner: Langdale and
// Lemire, "Parsing Gigabytes of JSON per Second", 2019, section 3.1.1).
// Escapes other than \u need nothing more; \u escapes are checked one by one
// where the block's masks stop, and so is UTF-8 where classifyUTF8 does not
// check it.
func blocks(data []byte, i int) int {
	if useAVX2 {
		return blocksAVX2(data, i)
	}
	var m [blockBatch * masks]uint64
	// prev is the 16 bytes before the batch, for classifyUTF8: zeros
	// before the first, which data[i] starts, not continues.
	var prev [16]byte
	from := i
	carry := uint64(0) // 1 if the first byte of the next block is escaped
	// through is the end of the last run of multi-byte UTF-8 sequences
	// checked: the stop bits of the blocks below it are cleared.
	through := 0
	// One block first, then twice as many each call up to blockBatch: a
	// string that ends soon costs little more than its own bytes.
	for batch := 64; len(data)-i >= 64; batch = min(2*batch, blockBatch*64) {
		n := min((len(data)-i)&^63, batch)
		bad := classifyUTF8(data[i:i+n], &m, &prev)
		for k := 0; k < n/64; k++ {
			base := i + 64*k
			if bad>>k&1 != 0 {
				// Invalid UTF-8 that ends in this block, or in the string
				// after it ends: str looks from the block's first byte
				// (or the reverse solidus that escapes it, or the start of
				// a sequence that reaches into it) and finds which.
				if carry != 0 {
					return base - 1
				}
				return seqStart(data, base, from)
			}
			sol := m[k*masks+maskSolidus]
			b := sol &^ carry       // reverse solidi not escaped themselves
			follows := b<<1 | carry // bytes after one
			oddStarts := b &^ evenBits &^ follows
			ends, c := bits.Add64(oddStarts, b, 0)
			esc := (evenBits ^ ends<<1) & follows
			// The bytes that may be escaped: classifyBlocks leaves out "
			// and \, and all of them from a block without a reverse
			// solidus, where only the first byte can be escaped (by the
			// block before).
			q := m[k*masks+maskQuote]
			escapable := m[k*masks+maskSimple] | q | sol
			if sol == 0 && carry != 0 {
				escapable = uint64(simple[data[base]])
			}
			carry = c
			stop := q&^esc | m[k*masks+maskStop] | esc&^escapable
			if through > base {
				// The block starts in a run of UTF-8 checked already (all
				// of it when through-base >= 64, where 1<<64 is 0 in Go).
				stop &^= 1<<(through-base) - 1
			}
			for stop != 0 {
				j := bits.TrailingZeros64(stop)
				at := base + j
				switch c := data[at]; {
				case esc>>j&1 != 0:
					// An escape other than the simple ones: \u of a code
					// point that is no surrogate is checked here, the rest
					// by str, from its reverse solidus.
					if r := hex4(data[at+1:]); c != 'u' || r < 0 || utf16.IsSurrogate(r) {
						return at - 1
					}
					stop &= stop - 1
				case c < utf8.RuneSelf:
					return at // a quotation mark or a control character
				default:
					// A run of multi-byte UTF-8 sequences, to its end,
					// which may be blocks away.
					e := at
					for e < len(data) && data[e] >= utf8.RuneSelf {
						// Two- and three-byte sequences that are valid
						// whatever their continuation bytes (RFC 3629
						// section 4: no overlong form, no surrogate) without
						// a call: most of the text of most languages.
						if c := data[e]; c-0xc2 <= 0xdf-0xc2 && e+1 < len(data) && data[e+1]&0xc0 == 0x80 {
							e += 2
							continue
						} else if (c-0xe1 <= 0xec-0xe1 || c-0xee <= 1) && e+2 < len(data) && data[e+1]&0xc0 == 0x80 && data[e+2]&0xc0 == 0x80 {
							e += 3
							continue
						}
						r, size := utf8.DecodeRune(data[e:])
						if r == utf8.RuneError && size == 1 {
							return e
						}
						e += size
					}
					if e-base < 64 {
						stop &^= 1<<(e-base) - 1
					} else {
						stop = 0 // the rest of the block is the run's
						through = e
					}
				}
			}
		}
		i += n
	}
	if through > i {
		return through // a run of UTF-8 that reaches into the tail, checked
	}
	if carry != 0 {
		return i - 1 // a reverse solidus whose escape is in the tail
	}
	return seqStart(data, i, from) // a UTF-8 sequence that reaches into the tail
}

// blocksAVX2 is blocks where the processor has AVX2 (useAVX2), with the
// same results: its loop over blocks, in stringBlocksAVX2, checks their
// UTF-8 too and returns only at a block with a byte to look at or an error
// of UTF-8, so that a long string costs one call.
func blocksAVX2(data []byte, i int) int {
	from := i
	carry := uint64(0) // 1 if the first byte of the next block is escaped
	prev := &noBytes   // the 16 bytes before data[i]: none of a sequence
	for len(data)-i >= 64 {
		n := (len(data) - i) &^ 63
		k, stop, esc, cin, cout, bad := stringBlocksAVX2(data[i:i+n], carry, prev)
		carry = cout
		if k == n {
			i += n
			break
		}
		base := i + k
		if bad {
			// As in blocks: str finds from the block's first byte (or the
			// reverse solidus that escapes it, or the start of a sequence
			// that reaches into it) what stops the string.
			if cin != 0 {
				return base - 1
			}
			return seqStart(data, base, from)
		}
		for ; stop != 0; stop &= stop - 1 {
			j := bits.TrailingZeros64(stop)
			at := base + j
			if esc>>j&1 == 0 {
				return at // a quotation mark or a control character
			}
			// An escape other than the simple ones: \u of a code point
			// that is no surrogate is checked here, the rest by str, from
			// its reverse solidus.
			if r := hex4(data[at+1:]); data[at] != 'u' || r < 0 || utf16.IsSurrogate(r) {
				return at - 1
			}
		}
		i = base + 64
		prev = (*[16]byte)(data[i-16 : i])
	}
	if carry != 0 {
		return i - 1 // a reverse solidus whose escape is in the tail
	}
	return seqStart(data, i, from) // a UTF-8 sequence that reaches into the tail
}

// noBytes is 16 zero bytes: no UTF-8 sequence reaches past them.
var noBytes [16]byte

// stringBlocksRef is what stringBlocksAVX2 computes, in Go.
func stringBlocksRef(b []byte, carry uint64, prev *[16]byte) (k int, stop, esc, cin, cout uint64, bad bool) {
	var m [blockBatch * masks]uint64
	p := *prev
	for ; k < len(b); k += 64 {
		cin = carry
		if classifyUTF8Ref(b[k:k+64], m[:], &p) != 0 {
			return k, 0, 0, cin, 0, true
		}
		q, sol, ctl := m[maskQuote], m[maskSolidus], m[maskStop]
		esc, cout = 0, 0
		stop = q | ctl
		if sol|carry != 0 {
			bs := sol &^ carry
			follows := bs<<1 | carry
			oddStarts := bs &^ evenBits &^ follows
			ends, c := bits.Add64(oddStarts, bs, 0)
			esc, cout = (evenBits^ends<<1)&follows, c
			simple := uint64(0)
			for j, c := range b[k : k+64] {
				if c != '"' && c != '\\' && escapes[c] {
					simple |= 1 << j
				}
			}
			stop = q&^esc | ctl | esc&^(simple|q|sol)
		}
		if stop != 0 {
			return k, stop, esc, cin, cout, false
		}
		carry = cout
	}
	return len(b), 0, 0, carry, carry, false
}

// seqStart returns the offset of the first byte of the UTF-8 sequence that
// data[i] continues: i, unless one of the three bytes before it (from from
// on) is a leading byte of a sequence long enough to reach data[i].
func seqStart(data []byte, i, from int) int {
	for j := i - 1; j >= from && j >= i-3; j-- {
		switch c := data[j]; {
		case c < 0x80:
			return i
		case c >= 0xc0:
			n := 2
			if c >= 0xf0 {
				n = 4
			} else if c >= 0xe0 {
				n = 3
			}
			if j+n > i {
				return j
			}
			return i
		}
	}
	return i
}

// The classes of error of the check of UTF-8 that classifyUTF8 makes (Keiser and
// Lemire, "Validating UTF-8 in less than one instruction per byte", 2021,
// section 6): each is a bit of what a byte and the one before it can be
// wrong in, given by the two nibbles of the byte before and the high nibble
// of the byte (RFC 3629 section 4).
const (
	tooShort     = 1 << 0 // a leading byte, then one that is no continuation byte
	tooLong      = 1 << 1 // an ASCII byte, then a continuation byte
	overlong3    = 1 << 2 // E0, then 80-9F
	tooLarge     = 1 << 3 // F4, then 90-BF; F5-FF, then 90-BF
	surrogate    = 1 << 4 // ED, then A0-BF
	overlong2    = 1 << 5 // C0 or C1, then a continuation byte
	tooLarge1000 = 1 << 6 // F5-FF, then 80-8F
	overlong4    = 1 << 6 // F0, then 80-8F
	twoConts     = 1 << 7 // a continuation byte, then another
	carries      = tooShort | tooLong | twoConts
)

// utf8Tables are the check's three tables: by the high nibble of the byte
// before, by its low nibble, and by the high nibble of the byte. The classes
// of a pair are the AND of its three entries. classify_amd64.s has them as
// constants.
var utf8Tables = func() (t [3][16]byte) {
	for n := 0; n < 16; n++ {
		switch {
		case n < 8:
			t[0][n] = tooLong
		case n < 12:
			t[0][n] = twoConts
		case n == 12:
			t[0][n] = tooShort | overlong2
		case n == 13:
			t[0][n] = tooShort
		case n == 14:
			t[0][n] = tooShort | overlong3 | surrogate
		default:
			t[0][n] = tooShort | tooLarge | tooLarge1000 | overlong4
		}
		switch {
		case n == 0:
			t[1][n] = carries | overlong3 | overlong2 | overlong4
		case n == 1:
			t[1][n] = carries | overlong2
		case n < 4:
			t[1][n] = carries
		case n == 4:
			t[1][n] = carries | tooLarge
		case n == 13:
			t[1][n] = carries | tooLarge | tooLarge1000 | surrogate
		default:
			t[1][n] = carries | tooLarge | tooLarge1000
		}
		switch {
		case n < 8 || n >= 12:
			t[2][n] = tooShort
		case n == 8:
			t[2][n] = tooLong | overlong2 | twoConts | overlong3 | tooLarge1000 | overlong4
		case n == 9:
			t[2][n] = tooLong | overlong2 | twoConts | overlong3 | tooLarge
		default:
			t[2][n] = tooLong | overlong2 | twoConts | surrogate | tooLarge
		}
	}
	return t
}()

// utf8Error returns the check's error for byte c, after the bytes p1, p2
// and p3 (p1 just before it): the classes of the pair p1 c, with bit 7
// flipped where c must continue a sequence that starts at p2 or p3. Zero
// means no error ends at c.
func utf8Error(p3, p2, p1, c byte) byte {
	e := utf8Tables[0][p1>>4] & utf8Tables[1][p1&15] & utf8Tables[2][c>>4]
	if p2 >= 0xe0 || p3 >= 0xf0 {
		e ^= 0x80
	}
	return e
}

// classifyUTF8Ref is what classifyBlocksUTF8 computes, byte by byte: the
// masks of classifyRef but for maskStop, which has only the bytes below
// 0x20; and the set of blocks (bit k for block k) that have a byte for
// which utf8Error is not zero, the bytes before b being those in prev. It
// leaves the last 16 bytes of b in prev.
func classifyUTF8Ref(b []byte, out []uint64, prev *[16]byte) (bad uint64) {
	classifyRef(b, out)
	var buf [16 + blockBatch*64]byte
	ctx := append(append(buf[:0], prev[:]...), b...)
	for k := 0; k+64 <= len(b); k += 64 {
		out[k/64*masks+maskStop] = 0
		for j := range 64 {
			p := 16 + k + j
			if ctx[p] < 0x20 {
				out[k/64*masks+maskStop] |= 1 << j
			}
			if utf8Error(ctx[p-3], ctx[p-2], ctx[p-1], ctx[p]) != 0 {
				bad |= 1 << (k / 64)
			}
		}
	}
	copy(prev[:], ctx[len(ctx)-16:])
	return bad
}
