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
	maskStop           // below 0x20 or above 0x7f: a control character or a byte of a multi-byte UTF-8 sequence
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

// blocks skips the contents of a string from data[i], which is not part of
// an escape, 64 bytes a block, past plain bytes, escapes (but for those of
// UTF-16 surrogates) and multi-byte UTF-8 sequences, and returns the offset
// of the first byte str must look at itself: a quotation mark that ends the
// string, a reverse solidus whose escape is of a surrogate or malformed, a
// control character, a byte that starts no valid UTF-8 sequence; or, where
// fewer than 64 bytes remain, of the first of them, or of the reverse
// solidus of an escape that reaches into them, or of the end of a run of
// UTF-8 sequences that does.
//
// The reverse solidi that start an escape are those that end an odd run of
// them, counting one carried from the block before; the byte after each is
// escaped. An odd run is one that starts on an odd bit and ends on an even
// one or the reverse: adding the starts of runs on odd bits to the mask of
// reverse solidi carries each such start to the bit after its run, so that
// the bits after runs are found by the parity of where they start, for all
// runs at once (the method of simdjson's string scanner: Langdale and
// Lemire, "Parsing Gigabytes of JSON per Second", 2019, section 3.1.1).
// Escapes other than \u need nothing more; \u escapes and UTF-8 sequences
// are checked one by one where the block's masks stop.
func blocks(data []byte, i int) int {
	var m [blockBatch * masks]uint64
	carry := uint64(0) // 1 if the first byte of the next block is escaped
	// through is the end of the last run of multi-byte UTF-8 sequences
	// checked: the stop bits of the blocks below it are cleared.
	through := 0
	// One block first, then twice as many each call up to blockBatch: a
	// string that ends soon costs little more than its own bytes.
	for batch := 64; len(data)-i >= 64; batch = min(2*batch, blockBatch*64) {
		n := min((len(data)-i)&^63, batch)
		classifyBlocks(data[i:i+n], &m)
		for k := 0; k < n/64; k++ {
			base := i + 64*k
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
	return i - int(carry) // a reverse solidus whose escape is in the tail
}
