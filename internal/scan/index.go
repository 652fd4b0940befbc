package scan

import (
	"bytes"
	"math/bits"
	"unicode/utf16"
)

// The structural index: a second way of checking an array or object, for
// texts dense with small tokens (a tools/list result: names, short strings,
// numbers and nested objects), where value's byte-by-byte state machine
// spends most of its time deciding what each byte is.
//
// Stage 1 (indexBlocks, in assembly: AVX-512 where the processor has it,
// else AVX2) looks at 64 bytes a block and writes a
// mask of the block's tokens, a bit for each byte that starts one: the
// structural characters { } [ ] , : outside strings, the quotation mark
// that opens each string, the first byte of each number or literal (a
// byte outside strings that is not whitespace, not structural and not a
// quotation mark, after one that is), and the u of each \u escape. On the
// way it checks, for every byte of the block at once, what needs no
// context but the block: UTF-8 (RFC 3629), that no byte below 0x20 is
// inside a string, and that every escaped byte is one of " \ / b f n r t u.
//
// Stage 2 (container and walk) takes the tokens, lowest bit first, with the
// grammar of RFC 8259: a value, a member name and its ':', a ',' or a
// closing bracket, checking numbers, literals and \u escapes where they
// start. Every byte of the container is thereby accounted for: bytes
// outside strings that are neither whitespace nor a token are inside a
// number or literal, which must end at whitespace, a structural character
// or a quotation mark. On amd64 walk runs in assembly (walkAMD64), which
// keeps all its state in registers and the kind of container in where its
// code is: Scan of 1 MB of a tools/list result takes about two thirds of
// the time it takes with walk compiled from Go (BenchmarkMessage,
// impl=scan-gowalk), which stays as its reference.
//
// value starts every container itself and hands the rest to the index
// after indexAfter values; the first array or object member value of a
// message that is the whole text goes to the index from its first member
// or element where the text after it is long and dense (loneValue).
// container only ever vouches for containers that
// value accepts, with the same end; where it cannot (any fault, nesting
// deeper than the scanner's stack, a \u escape it refuses), it gives up
// and value checks the value from its start without it, so errors are
// found and reported exactly as before, at the cost of reading the value
// twice.

// maskCap is the number of blocks one refill reads at most.
const maskCap = 64

// indexAfter is the number of values inside the value that value checks
// (counted at every depth, closed containers included) after which it
// hands the rest of its outermost array or object to the structural
// index: fewer cost less byte by byte than starting the index (a small
// params object, an element of a batch, a result made mostly of one long
// string). Measured by changing it: with 8, a batch of requests with 12
// values in each params was 6% slower than without the index; with 16 it
// is not, and 1 KB of a tools/list result was checked 15% faster than with
// 32 (BenchmarkSmallContainers, BenchmarkMessage).
const indexAfter = 16

// A message that is the whole text (not an element of a batch) hands its
// first array or object member value (result, params) to the index from
// its first member or element (loneValue), without indexAfter values
// first, where loneBytes bytes or more follow the value's opening bracket
// and the last 128 of the first loneBytes hold loneQuotes quotation marks
// or more: a value dense with names and short strings, such as a
// tools/list result (the count takes in escaped quotation marks too, so a
// text holding JSON in a string can pass; and it measures the text after
// the bracket, not the value, which may be small).
//
//   - The first members of a result are dense whatever it holds
//     ("content":[{"type":"text","text":); the quotation marks a little
//     further on keep the index from a result that is mostly one long
//     string after them (a tools/call or resources/read text), where
//     starting it costs more than it saves.
//   - Only the first such value is looked at, so that starting the index
//     and counting the quotation marks are paid at most once a text: a
//     message of many members holding small objects, each of which went to
//     the index, was checked 8x slower (BenchmarkSmallContainers).
//   - The first refill reads up to loneGrow blocks (2 KB) rather than 1,
//     so that one call of stage 1 reads such a value of up to 2 KB: with
//     16, the 1.1 KB of BenchmarkMessage's 1 KB tools/list result took two
//     calls and about 7% longer.
//
// Measured on 1 KB messages (BenchmarkMessage, old and new test binaries
// alternated): a tools/list result is checked in about three quarters of
// the time; counting the quotation marks costs the others a few
// nanoseconds.
const (
	loneBytes  = 256
	loneQuotes = 12
	loneGrow   = 32
)

// indexState is what stage 1 carries from one 64-byte block to the next;
// indexBlocksAVX2 reads and writes it at these offsets.
type indexState struct {
	esc    uint64   // 1 if the next block's first byte is escaped
	inStr  uint64   // all ones if the next block starts inside a string, else 0
	scalar uint64   // 1 if the byte before the next block is inside a number or literal
	prev   [32]byte // the 32 bytes before the next block, for the UTF-8 check
}

// An index holds the token masks of the blocks that stage 1 read in the
// last refill (at most maskCap, from start), and what it carries to the
// next.
type index struct {
	masks [maskCap]uint64
	start int // the offset of the block of masks[0]
	pos   int // the offset of the next block stage 1 reads
	grow  int // how many blocks the next refill reads at most
	st    indexState
	bad   bool // stage 1 found a fault: no more tokens
	long  bool // stage 1 stopped before a block inside a string
	open  int  // the offset of the quotation mark that opens the string stage 1 stopped in
	j, n  int  // the block whose tokens container takes (masks[j]) and the number of masks
}

// refill reads the next blocks of s.data, from ix.pos, into ix.masks, sets
// ix.start to the offset of the first, and returns how many it read, at
// least one (a mask may have no token: a block of whitespace). Where no
// token is left (the text's end, or a fault found), it gives one block at
// len(s.data) whose first byte is a token, at which byteAt reads 0, which
// no state of walk accepts. Where stage 1 stopped before a block that is
// all inside a string, refill finishes the string with str, from its
// opening quotation mark, and goes on after it: str is faster on long
// strings, and stage 1 has nothing to find there. The last bytes of the
// text, less than a block, go to indexBlocksAVX512 as they are, in the
// call that reads the blocks before them where it can; other ways of
// stage 1 get them padded with spaces to a block, in a call of their
// own. A shorter string that
// crosses the end of the blocks read is left to stage 1, which carries
// its state to the next call: calling str for it made 1 KB of tools/list
// about 7% slower (BenchmarkMessage, measured when this changed).
func (s *scanner) refill(ix *index) int {
	data := s.data
	for !ix.bad && ix.pos < len(data) {
		if ix.long {
			e := s.str(ix.open)
			if s.flt != ok {
				s.flt = ok // value finds it again, in its place
				break
			}
			ix.pos, ix.st, ix.long = e, indexState{}, false
			continue
		}
		var b []byte
		if rest := len(data) - ix.pos; rest >= 64*ix.grow {
			b = data[ix.pos : ix.pos+ix.grow*64]
		} else if index512 && indexAVX2 {
			// The rest: indexBlocksAVX512 pads the last bytes with
			// spaces itself.
			b = data[ix.pos:]
		} else if rest >= 64 {
			b = data[ix.pos : ix.pos+rest/64*64]
		} else {
			// The last bytes, padded with spaces to a block: whitespace
			// gives no token, inside a string or out.
			tail := spaces
			copy(tail[:], data[ix.pos:])
			b = tail[:]
		}
		// A container that ends early wastes at most what was read
		// since the last refill, as much as was read before it.
		ix.grow = min(2*ix.grow, maskCap)
		start := ix.pos
		done, n, bad, long := indexBlocks(b, &ix.st, &ix.masks)
		ix.pos = min(ix.pos+done, len(data))
		ix.bad, ix.long = bad, long
		if ix.st.inStr != 0 {
			// The last quotation mark among the tokens opens the string
			// the blocks end in.
			ix.open = lastQuote(data, start, ix.masks[:n], ix.open)
		}
		if n > 0 {
			ix.start = start
			return n
		}
	}
	ix.masks[0], ix.start = 1, len(data)
	return 1
}

// loneValue checks the array or object at data[i], the value of a member of
// a message that is the whole text, nested depth deep, and returns the
// offset after it, as value does: with the structural index from its first
// member or element where it is large and dense (see loneBytes), else, or
// where the index does not vouch for it, with value.
func (s *scanner) loneValue(i, depth int) int {
	data := s.data
	if !useIndex || len(data)-i <= loneBytes || quotes128((*[128]byte)(data[i+1+loneBytes-128:])) < loneQuotes {
		return s.value(i, depth)
	}
	c, d := data[i], depth+1
	j := ws(data, i+1)
	if d > s.deepest || j >= len(data) || data[j] == c+2 {
		return s.value(i, depth)
	}
	if c == '[' {
		s.stack[d>>6] &^= 1 << (d & 63)
	} else {
		s.stack[d>>6] |= 1 << (d & 63)
	}
	if end := s.container(j, d, depth, loneGrow, atOpened); end >= 0 {
		return end
	}
	// Not again after 16 values: an invalid result went through the
	// index twice (up to 1.5x slower, found by a hostile review).
	s.noIndex = true
	end := s.value(i, depth)
	s.noIndex = false
	return end
}

// quotes128Go returns the number of quotation marks in b.
func quotes128Go(b *[128]byte) int {
	return bytes.Count(b[:], []byte{'"'})
}

// lastQuote returns the offset of the last token that is a quotation mark
// in masks, the blocks from offset start, or else open.
func lastQuote(data []byte, start int, masks []uint64, open int) int {
	for j := len(masks) - 1; j >= 0; j-- {
		for m := masks[j]; m != 0; {
			b := 63 - bits.LeadingZeros64(m)
			if p := start + 64*j + b; data[p] == '"' {
				return p
			}
			m &^= 1 << b
		}
	}
	return open
}

// next returns the first token of the blocks after the one of base (the
// offset of ix.masks[ix.j], which has no token left), the rest of that
// token's mask and its block's offset.
func (s *scanner) next(ix *index, base int) (p int, t uint64, _ int) {
	for {
		if ix.j++; ix.j < ix.n {
			base += 64
		} else {
			ix.n, ix.j = s.refill(ix), 0
			base = ix.start
		}
		if t = ix.masks[ix.j]; t != 0 {
			return base + bits.TrailingZeros64(t), t & (t - 1), base
		}
	}
}

// spaces is a block of spaces, for the last bytes of a text.
var spaces = [64]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}

// byteAt returns data[p], or 0 if p is past the end.
func byteAt(data []byte, p int) byte {
	if uint(p) < uint(len(data)) {
		return data[p]
	}
	return 0
}

// container checks the rest of the containers that value is in at data[i],
// just after a value inside them (outside any string; at is atAfter) or at
// the first byte of the first member or element of the one at depth d (at
// is atOpened), nested d deep in all and depth deep outside the value
// value checks, with the structural index, its first refill reading up to
// grow blocks; it returns the offset after the outermost of them (at depth+1),
// as value would, or -1 where it does not vouch for them, for value to
// check them itself. It sets the bits of s.stack above depth as it goes,
// as value does.
//
// A string gives one token, its opening quotation mark, then one for each
// \u escape in it (the u, after a reverse solidus): the first token after
// these that is not the u of an escape is the first after the string,
// whatever lies between (the rest of the string, its closing mark,
// whitespace), which stage 1 has checked. A u token without a reverse
// solidus before it starts a literal (as in "a"u); one with a reverse
// solidus before it outside a string comes after that solidus's token, the
// first byte of the number or literal it is in.
//
// The grammar is walk's; container does for it what needs a call (more
// tokens, \u escapes, numbers other than integers that start with 1-9,
// null), so that walk, which calls nothing, keeps its state in registers.
func (s *scanner) container(i, d, depth, grow, at int) int {
	var ix index
	ix.pos, ix.grow = i, grow
	ix.n = s.refill(&ix)
	// r.t holds the tokens of the block at r.base (ix.masks[ix.j]) not
	// taken yet.
	var r walkRegs // field by field, as in Scan
	r.at, r.t, r.base, r.d, r.obj = at, ix.masks[0], ix.start, d, s.stack[d>>6]>>(d&63)&1 != 0
	if r.t == 0 {
		r.p, r.t, r.base = s.next(&ix, r.base)
	} else {
		r.p, r.t = r.base+bits.TrailingZeros64(r.t), r.t&(r.t-1)
	}
	for {
		s.walkOn(&ix, &r, depth)
		switch {
		case r.at == walkDone:
			s.indexed++
			return r.p + 1
		case r.at == walkFail:
			s.gaveUp++
			return -1
		case r.at&checkScalar != 0:
			if scalarEnd(s.data, r.p) < 0 {
				s.gaveUp++
				return -1
			}
		case r.at&checkEscapes != 0:
			if r.p, r.t, r.base = s.escapes(&ix, r.p, r.t, r.base); r.p < 0 {
				s.gaveUp++
				return -1
			}
		}
		if r.at&needToken != 0 {
			if r.t == 0 {
				r.p, r.t, r.base = s.next(&ix, r.base)
			} else {
				r.p, r.t = r.base+bits.TrailingZeros64(r.t), r.t&(r.t-1)
			}
		}
		r.at &= resume
	}
}

// walkRegs is the state of walk, as walk's arguments and results: the
// place to go on at, the token p, the tokens t of the block at base not
// taken yet, the depth d and whether the container at d is an object.
// walkAMD64 reads and writes it at the offsets go_asm.h gives.
type walkRegs struct {
	at, p int
	t     uint64
	base  int
	d     int
	obj   bool
}

// take returns walk's next token, the rest of its block's mask and the
// block's offset, from t, the tokens of the block at base (ix.masks[ix.j])
// not taken yet, or from the next block if t is 0 and that block has a
// token and has been read; else got is false (and t 0), for container to
// take it. It is small enough to be inlined, so that walk calls nothing.
func take(ix *index, t uint64, base int) (p int, _ uint64, _ int, got bool) {
	if t == 0 {
		if ix.j+1 == ix.n || ix.masks[ix.j+1] == 0 {
			return 0, 0, base, false
		}
		ix.j++
		base += 64
		t = ix.masks[ix.j]
	}
	return base + bits.TrailingZeros64(t), t & (t - 1), base, true
}

// The places where walk goes on (the low bits of what it returns and is
// given), and what container does first.
const (
	atValue   = 1 + iota // p is a token that should start a value
	atAfter              // p is the token after a value
	atString             // p is the token after the opening mark of a string value
	atOpened             // p is the token after an opening bracket (obj tells which)
	atName               // p is a token that should open a member name
	atNamed              // p is the token after the opening mark of a member name
	atColon              // p is a token that should be a name separator
	resume    = 7        // the bits of the place
	needToken = 8        // take the next token into p
	// Before that: check the number or literal at p, or the \u escapes
	// from p (the token after them into p), or neither.
	checkScalar  = 16
	checkEscapes = 32
	walkDone     = 64 // p is the bracket that closes the container
	walkFail     = 65 // the container is not one walk vouches for
)

// walk checks the tokens of a container from p, at the place at (see
// atValue), t holding the tokens of the block at base (ix.masks[ix.j]) not
// taken yet, d the depth and obj whether the container at d is an object,
// until it needs container (needToken, checkScalar, checkEscapes), finds
// the container's end (walkDone) or a fault (walkFail). It returns where to
// go on and its state. walkAMD64 is the same in assembly; the tests hold
// the two to each other through Scan.
func (s *scanner) walk(ix *index, at, p int, t uint64, base, d int, obj bool, depth int) (int, int, uint64, int, int, bool) {
	data := s.data
	var (
		c   byte
		got bool
	)
	switch at {
	case atAfter:
		goto after
	case atString:
		goto str
	case atOpened:
		goto opened
	case atName:
		goto name
	case atNamed:
		goto named
	case atColon:
		goto colon
	}
value: // At a token that should start a value.
	c = byteAt(data, p)
	switch {
	case c == '"':
		if p, t, base, got = take(ix, t, base); !got {
			return needToken | atString, p, t, base, d, obj
		}
		goto str
	case c == '{' || c == '[':
		if d++; d > s.deepest {
			return walkFail, p, t, base, d, obj
		}
		if obj = c == '{'; obj {
			s.stack[d>>6] |= 1 << (d & 63)
		} else {
			s.stack[d>>6] &^= 1 << (d & 63)
		}
		if p, t, base, got = take(ix, t, base); !got {
			return needToken | atOpened, p, t, base, d, obj
		}
		goto opened
	case c-'1' <= 8:
		// An integer, unless a fraction or an exponent follows.
		e := p + 1
		for e < len(data) && data[e]-'0' <= 9 {
			e++
		}
		if e < len(data) && !delimits[data[e]] {
			return checkScalar | needToken | atAfter, p, t, base, d, obj
		}
	case c == 't':
		if len(data)-p < 5 || string(data[p:p+4]) != "true" || !delimits[data[p+4]] {
			return checkScalar | needToken | atAfter, p, t, base, d, obj
		}
	case c == 'f':
		if len(data)-p < 6 || string(data[p:p+5]) != "false" || !delimits[data[p+5]] {
			return checkScalar | needToken | atAfter, p, t, base, d, obj
		}
	default:
		return checkScalar | needToken | atAfter, p, t, base, d, obj
	}
	if p, t, base, got = take(ix, t, base); !got {
		return needToken | atAfter, p, t, base, d, obj
	}
after: // At the token after a value.
	c = byteAt(data, p)
afterc: // The same, c being its byte.
	if obj {
		switch c {
		case ',':
			if p, t, base, got = take(ix, t, base); !got {
				return needToken | atName, p, t, base, d, obj
			}
			goto name
		case '}':
			goto closed
		}
		return walkFail, p, t, base, d, obj
	}
	switch c {
	case ',':
		if p, t, base, got = take(ix, t, base); !got {
			return needToken | atValue, p, t, base, d, obj
		}
		goto value
	case ']':
		goto closed
	}
	return walkFail, p, t, base, d, obj
str: // At the token after the opening mark of a string value.
	if c = byteAt(data, p); c == 'u' && data[p-1] == '\\' {
		return checkEscapes | atAfter, p, t, base, d, obj
	}
	goto afterc
opened: // At the token after an opening bracket.
	if obj {
		if byteAt(data, p) == '}' {
			goto closed
		}
		goto name
	}
	if byteAt(data, p) == ']' {
		goto closed
	}
	goto value
closed: // At the bracket that closes the container at depth d.
	if d--; d == depth {
		return walkDone, p, t, base, d, obj
	}
	obj = s.stack[d>>6]>>(d&63)&1 != 0
	if p, t, base, got = take(ix, t, base); !got {
		return needToken | atAfter, p, t, base, d, obj
	}
	goto after
name: // At a token that should open a member name.
	if byteAt(data, p) != '"' {
		return walkFail, p, t, base, d, obj
	}
	if p, t, base, got = take(ix, t, base); !got {
		return needToken | atNamed, p, t, base, d, obj
	}
named: // At the token after the opening mark of a member name.
	if c = byteAt(data, p); c != ':' {
		if c == 'u' && data[p-1] == '\\' {
			return checkEscapes | atColon, p, t, base, d, obj
		}
		return walkFail, p, t, base, d, obj
	}
	if p, t, base, got = take(ix, t, base); !got {
		return needToken | atValue, p, t, base, d, obj
	}
	goto value
colon: // At a token that should be a name separator.
	if byteAt(data, p) != ':' {
		return walkFail, p, t, base, d, obj
	}
	if p, t, base, got = take(ix, t, base); !got {
		return needToken | atValue, p, t, base, d, obj
	}
	goto value
}

// escapes checks the \u escapes of a string from p, the u of one, as
// escape does, and returns the token after the last one, with the
// rest of its block's mask and the block's offset (see next); or -1 if one
// is not an escape that str accepts.
func (s *scanner) escapes(ix *index, p int, t uint64, base int) (int, uint64, int) {
	data := s.data
	// A u token is the u of an escape where a reverse solidus comes
	// before it; else it starts a literal after the string (refused by
	// the caller), never a u that follows a reverse solidus.
	for byteAt(data, p) == 'u' && data[p-1] == '\\' {
		r := hex4(data[p+1:])
		switch {
		case r < 0 || r >= 0xDC00 && r <= 0xDFFF:
			return -1, t, base
		case utf16.IsSurrogate(r):
			// A high surrogate: a low one must follow, whose u is the
			// next token.
			if p+6 >= len(data) || data[p+5] != '\\' || data[p+6] != 'u' {
				return -1, t, base
			}
			if r2 := hex4(data[p+7:]); r2 < 0xDC00 || r2 > 0xDFFF {
				return -1, t, base
			}
			q := p
			if t == 0 {
				p, t, base = s.next(ix, base)
			} else {
				p, t = base+bits.TrailingZeros64(t), t&(t-1)
			}
			if p != q+6 {
				// Stage 1 did not read the low surrogate's block:
				// refill finished the string with str, which checked
				// it, and p is the token after the string (or the
				// text's end, which the caller refuses).
				continue
			}
		}
		if t == 0 {
			p, t, base = s.next(ix, base)
		} else {
			p, t = base+bits.TrailingZeros64(t), t&(t-1)
		}
	}
	return p, t, base
}

// delimits reports the bytes that may follow a number or literal: JSON
// whitespace, the structural characters and the quotation mark (which the
// grammar refuses after it, as a token of its own).
var delimits = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '{': true, '}': true, '[': true, ']': true, ',': true, ':': true, '"': true}

// scalarEnd returns the offset after the number or literal that starts at
// data[p], if it is one (RFC 8259 sections 3 and 6) and
// what follows delimits it; else -1.
func scalarEnd(data []byte, p int) int {
	if p >= len(data) {
		return -1
	}
	var e int
	switch data[p] {
	case 't':
		if len(data)-p < 4 || string(data[p:p+4]) != "true" {
			return -1
		}
		e = p + 4
	case 'f':
		if len(data)-p < 5 || string(data[p:p+5]) != "false" {
			return -1
		}
		e = p + 5
	case 'n':
		if len(data)-p < 4 || string(data[p:p+4]) != "null" {
			return -1
		}
		e = p + 4
	default:
		if e = numberEnd(data, p); e < 0 {
			return -1
		}
	}
	if e < len(data) && !delimits[data[e]] {
		return -1
	}
	return e
}

// numberEnd returns the offset after the number at data[i] (RFC 8259
// section 6), or -1 if none starts there: scanner.number without the
// fault.
func numberEnd(data []byte, i int) int {
	var s scanner // field by field, as in Scan
	s.data = data
	if e := s.number(i); s.flt == ok {
		return e
	}
	return -1
}

// indexRef is what indexBlocksAVX2 computes, byte by byte where it can: for
// the 64-byte blocks of b (len(b) a multiple of 64, at most maskCap
// blocks), the mask of each block's tokens in out, carrying st from block
// to block. It returns the bytes of b it read, the masks it wrote, and
// whether it stopped at a block with a fault (whose mask it does not
// write, st being left as before the call): an error of UTF-8 that ends in
// the block (see utf8Error), a byte below 0x20 inside a string, or an
// escaped byte that is not one of " \ / b f n r t u; and whether it stopped before a block that starts
// inside a string and has no quotation mark that is not escaped (long), st
// being as after the blocks before it.
func indexRef(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool) {
	st0 := *st
	defer func() {
		if bad {
			*st = st0 // as before the call, as indexBlocksAVX2 leaves it
		}
	}()
	for ; done+64 <= len(b) && n < maskCap; done += 64 {
		blk := b[done : done+64]
		var quote, solidus, ctrl, escapable, u, class, structural uint64
		for j, c := range blk {
			bit := uint64(1) << j
			p3, p2, p1 := st.prev[29], st.prev[30], st.prev[31]
			if j >= 3 {
				p3 = blk[j-3]
			} else if j >= 1 {
				p3 = st.prev[29+j]
			}
			if j >= 2 {
				p2 = blk[j-2]
			} else if j == 1 {
				p2 = st.prev[31]
			}
			if j >= 1 {
				p1 = blk[j-1]
			}
			if utf8Error(p3, p2, p1, c) != 0 {
				return done, n, true, false
			}
			switch c {
			case '"':
				quote |= bit
			case '\\':
				solidus |= bit
			case 'u':
				u |= bit
			case '{', '}', '[', ']', ',', ':':
				structural |= bit
			}
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u':
				escapable |= bit
			}
			if c < 0x20 {
				ctrl |= bit
			}
			switch c {
			case '{', '}', '[', ']', ',', ':', ' ', '\t', '\n', '\r':
				class |= bit
			}
		}
		// The escaped bytes, byte by byte: the byte after a reverse
		// solidus that ends an odd run of them.
		var esc uint64
		escaped := st.esc != 0
		for j := range 64 {
			switch {
			case escaped:
				esc |= 1 << j
				escaped = false
			case solidus>>j&1 != 0:
				escaped = true
			}
		}
		if esc&^escapable != 0 {
			return done, n, true, false
		}
		if quote &^= esc; quote == 0 && st.inStr != 0 {
			return done, n, false, true
		}
		inStr := st.inStr
		var in uint64 // inside a string: from an opening mark to before its closing one
		for j := range 64 {
			if quote>>j&1 != 0 {
				inStr = ^inStr
			}
			in |= inStr & (1 << j)
		}
		if ctrl&in != 0 {
			return done, n, true, false
		}
		scalar := ^(class | quote | in)
		starts := scalar &^ (scalar<<1 | st.scalar)
		out[n] = structural&^in | quote&in | starts | u&esc
		n++
		st.esc = 0
		if escaped {
			st.esc = 1
		}
		st.inStr = inStr
		st.scalar = scalar >> 63
		copy(st.prev[:], blk[32:])
	}
	return done, n, false, false
}
