package restore

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/bits"
	"strconv"
)

// followAlways is the length in bytes up to which a newline-framed message
// is followed at every read (see NewStdioReader): following costs about
// what fn's scan does, which only long messages feel.
const followAlways = 64 << 10

// maxHeaderBlock is the length in bytes of the longest header block a
// StdioReader examines, its empty line included. LSP's headers are two short
// fields; a longer block passes unchanged (see NewStdioReader).
const maxHeaderBlock = 4096

// NewStdioReader returns a reader of src's bytes, a stream of JSON-RPC
// messages in either framing of a stdio transport, in which each message of
// at most max bytes is replaced by what fn appends to dst for it. The framing
// is found message by message, so a stream may mix the two:
//
//   - Content-Length framing, the base protocol of the Language Server
//     Protocol (LSP specification 3.17, "Base Protocol"), which some MCP
//     peers use: at a message boundary, a header block of fields `Name:
//     value`, each ending in CRLF (LF alone is accepted too), ended by an
//     empty line, then a body of exactly as many bytes as its Content-Length
//     field says, with or without a LF after it. The body is given to fn
//     whole, whatever it holds (a LF at its end included), but for a byte
//     order mark at its start, which passes before it. When fn changes
//     its length, the Content-Length value is rewritten in decimal to the new
//     length; every other byte of the block (other fields such as
//     Content-Type, their order and case, the spacing around the value)
//     passes as received.
//   - Newline framing, MCP's stdio transport (specification 2025-06-18,
//     "Transports": messages are delimited by newlines and must not contain
//     embedded newlines): each line whose first byte other than space, tab
//     or CR is `{` or `[` holds a message, the JSON object or array starting
//     there; a byte order mark (U+FEFF in UTF-8) that starts the line passes
//     and is skipped, one only. It ends at the bracket that closes it (brackets counted outside
//     strings), and is passed to fn without waiting for the LF: a peer that
//     writes a message without a LF and keeps its pipe open gets it at
//     once, when the read from src that brought the bracket returns. A
//     message longer than 64 KiB is passed then only if that read ends with
//     the bracket (spaces, tabs and CRs aside); one that a read ends after,
//     with the start of something else, waits until a read ends with a
//     closing bracket, the line's LF or the end of src: the rules below
//     still apply to it exactly, but following the brackets of every read
//     would cost each long message about what fn's scan of it costs. What follows on the
//     line passes as it arrives; another object or array after spaces is a
//     message too, and anything else passes unchanged to the end of the
//     line. A line's LF always ends its message: an object or array open at
//     the LF is given to fn through the LF, as a line is. (In counting, a
//     reverse solidus escapes the byte after it, within strings as JSON
//     says and, in text that is not JSON, outside them too.)
//
// A block is valid framing when exactly one field is named Content-Length
// (in any case), with no space before its colon, and its value is one or
// more ASCII digits (optional spaces or tabs around them) of at most
// math.MaxInt64; other fields are kept but not interpreted. Then:
//
//   - a body of at most max bytes is held until it is complete, and its
//     block with it;
//   - a longer body passes unchanged and unexamined, its block first, as it
//     arrives: it is never held;
//   - a body that the end of src cuts short passes unchanged.
//
// A block with a field named Content-Length that is not valid framing (a
// repeated Content-Length, a value such as -1, +5, 0x10, 5 5 or one beyond
// math.MaxInt64, a space before the colon) passes unchanged, and so does the
// body after it as far as it can be found: one JSON object or array counted
// by its brackets, LFs included, or nothing if none starts there. Readers
// disagree about such blocks, so no length is rewritten and nothing in the
// body is examined. A block that turns out to be none (a line in it that is
// not a field, a control character or lone CR in a value, more than
// maxHeaderBlock bytes) passes unchanged; if it holds a Content-Length field
// (or, cut at the limit, begins one that the rest of its line completes), the
// next object or array passes unchanged too, unexamined, since a reader may
// frame that body by the field, and so it does after a line that is such a
// field from its start but no block (spaces, tabs and CRs before the name,
// spaces or tabs before the colon, or a byte order mark before it). A line
// that names the field only after other text (`DEBUG Content-Length: 38`,
// `{...}Content-Length: 2`) frames nothing: vscode-jsonrpc and
// golang.org/x/tools/internal/jsonrpc2 take a field's name from the start of
// its line. A block without any Content-Length field passes unchanged, and
// the bytes after it are read as any others: no reader can frame a body by
// it.
//
// A line at a message boundary whose bytes so far could still be the start
// of a header block (a field name, then a colon and a value) is held until
// it shows whether it is one; a block of fields is held until its empty
// line, at most maxHeaderBlock (4096) bytes, beyond which it passes
// unchanged. A line that is neither (text, a JSON scalar, a stray closing
// bracket) passes unchanged as it arrives. Nothing is held once it can no
// longer become part of a message: a log line `Note: ready` that a server
// writes to its standard output waits only for the next line.
//
// A message longer than max bytes (counted from its first byte to its
// closing bracket, or through its LF) passes unchanged with the rest of its
// line, as it arrives: at most max bytes of it are ever held. Read returns as
// soon as any bytes are ready, without waiting to fill its buffer. src's
// error, io.EOF included, is returned once everything before it has been
// read; what is held then (an unfinished message or block) passes
// unchanged, after any message that ended within it.
//
// A byte order mark is skipped where RFC 8259 section 8.1 lets a parser
// ignore one, before a JSON text: at the start of a line, of a framed body,
// and of the body after a block that is not valid framing (so that body still
// passes unexamined). Peers write one: Codex CLI on Windows
// (kotlin-sdk#956), and the TypeScript SDK strips U+FEFF from each stdio line
// it reads (typescript-sdk#2790). The mark is passed on, never given to fn;
// two marks, or one after spaces or within a line, are text. Bytes that begin
// a mark are held until they show whether they are one.
//
// fn appends to dst what msg becomes and reports whether msg is one JSON text
// (text) with optional whitespace around it. It is first given a whole line
// through its LF, and when it reports false the line is split as above: fn
// must then have appended msg unchanged and done nothing else, and whitespace
// around a text must pass through fn unchanged (fn(" {} \n") is " " +
// fn("{}") + " \n"), so that how src's bytes are split into reads never
// changes the result. Table.AppendRestoredText and Table.RecordText are such
// functions. fn must not keep msg.
func NewStdioReader(src io.Reader, max int, fn func(dst, msg []byte) (out []byte, text bool)) io.Reader {
	if max < 1 {
		max = 1
	}
	r := &StdioReader{max: max, fn: fn}
	r.Src, r.F = src, r
	return r
}

// A StdioReader is the reader NewStdioReader returns.
type StdioReader struct {
	Filter
	max int
	fn  func(dst, msg []byte) ([]byte, bool)
	st  stdioState

	held []byte // the current message (stText) or body (stBody) so far

	// A JSON object or array being followed (stText, stOpaqueText): its
	// brackets are followed through held[:counted].
	depth    int
	str, esc bool // within a string; after its reverse solidus
	counted  int
	settle   bool // follow every message as it is read (see catchUp)

	// A header block being held (stHeader).
	hdr       []byte
	hs        headerState
	lineStart int   // offset in hdr of the current field's first byte
	colon     int   // offset in hdr of its colon
	loose     bool  // space or tab before its colon
	lengths   int   // fields named Content-Length
	badLength bool  // one of them is not valid framing
	vStart    int   // offset in hdr of the Content-Length value's digits
	vEnd      int   // and of the byte after them
	n         int64 // the declared body length; bytes still to pass (stSkip)

	// unframed: a Content-Length field passed without framing a body (in
	// a block that turned out to be none, or on a line of other text that
	// starts with the field), so the next object or array passes
	// unchanged: a reader that takes the field frames that body by it, and
	// a restored body would not match it.
	unframed bool
	// lead follows the start of the line being passed (stRest) while it
	// may still be a field named Content-Length: 0 to 14, the bytes of the
	// name so far (spaces, tabs and CRs before it aside); 15, the name and
	// spaces or tabs after it; -1 once it cannot be.
	lead int8

	// A byte order mark being matched (stBOM): bomN of its bytes so far;
	// the state after it, and the state if the bytes turn out to be none.
	bomN            int
	bomOK, bomNotOK stdioState
}

// bom is the UTF-8 encoding of U+FEFF, the byte order mark that RFC 8259
// section 8.1 lets a parser ignore at the start of a JSON text.
const bom = "\xef\xbb\xbf"

// stdioState is where a StdioReader is in its stream.
type stdioState uint8

const (
	stBoundary   stdioState = iota // at a message boundary, at the start of a line
	stLine                         // on a line, after whitespace or a message: a message may start
	stText                         // within a newline-framed object or array, held
	stRest                         // passing the rest of a line through its LF
	stHeader                       // within a header block, held
	stBody                         // within a framed body of at most max bytes, held
	stSkip                         // within a framed body longer than max, passing it
	stOpaque                       // after a block that is not valid framing, before its body
	stOpaqueText                   // within the body after such a block, passing it
	stBOM                          // within a byte order mark, held
)

// headerState is where a StdioReader is in a header field.
type headerState uint8

const (
	hLineStart headerState = iota // a field's first byte, or the empty line
	hName                         // within a field name
	hPreColon                     // spaces or tabs after the name
	hValue                        // within the value
	hCR                           // after a CR that must end the field
	hEmptyCR                      // after the CR of the empty line
)

// tchar reports the bytes of an HTTP field name (RFC 9110 section 5.6.2).
var tchar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// Feed processes bytes read from src.
func (r *StdioReader) Feed(p []byte) { r.feed(p) }

// AtBoundary reports whether the bytes Read has returned so far end at a
// message boundary, at the start of a line, with nothing ready or held: a
// message written to the same destination now cannot split another.
func (r *StdioReader) AtBoundary() bool {
	return r.st == stBoundary && r.Drained() && len(r.held) == 0 && len(r.hdr) == 0
}

// feed processes p.
func (r *StdioReader) feed(p []byte) {
	for len(p) > 0 {
		if r.st == stBoundary && len(p) > len(bom) && string(p[:len(bom)]) == bom {
			// A byte order mark whole in p, as stBOM passes it.
			r.Out = append(r.Out, bom...)
			r.st, r.lead, p = stLine, 0, p[len(bom):]
		}
		if (r.st == stBoundary || r.st == stLine) && (p[0] == '{' || p[0] == '[') && !r.unframed {
			// The usual line, whole in p: fn takes it if it is one
			// JSON text, as the rules above would split it.
			if i := bytes.IndexByte(p, '\n'); i >= 0 && i < r.max {
				mark := len(r.Out)
				out, text := r.fn(r.Out, p[:i+1])
				if text {
					r.Out, p = out, p[i+1:]
					r.st = stBoundary
					continue
				}
				r.Out = out[:mark] // fn appended the line unchanged
			}
		}
		p = r.step(p)
	}
}

// step processes some of p, at least one byte, and returns the rest.
func (r *StdioReader) step(p []byte) []byte {
	switch r.st {
	case stBoundary:
		c := p[0]
		switch {
		case c == '\n':
			r.Out = append(r.Out, c)
			return p[1:]
		case tchar[c]:
			r.st, r.hs = stHeader, hLineStart
			r.lengths, r.badLength, r.lineStart = 0, false, 0
			return r.header(p)
		case c == bom[0]:
			r.st, r.bomN, r.bomOK, r.bomNotOK = stBOM, 0, stLine, stRest
			return p
		}
		r.st, r.lead = stLine, 0
		return p
	case stLine:
		i := 0
		for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r') {
			i++
		}
		r.Out = append(r.Out, p[:i]...)
		if i == len(p) {
			return nil
		}
		switch p[i] {
		case '\n':
			r.Out = append(r.Out, '\n')
			r.st = stBoundary
			return p[i+1:]
		case '{', '[':
			r.st, r.depth, r.str, r.esc, r.counted = stText, 0, false, false, 0
			if r.unframed {
				// Passed unchanged: see StdioReader.unframed.
				r.unframed = false
				r.st = stOpaqueText
			}
		default:
			r.st = stRest
		}
		return p[i:]
	case stText:
		return r.text(p)
	case stRest:
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.Out = append(r.Out, p...)
			r.restLead(p)
			return nil
		}
		r.Out = append(r.Out, p[:i+1]...)
		r.restLead(p[:i])
		r.st = stBoundary
		return p[i+1:]
	case stHeader:
		return r.header(p)
	case stBody:
		need := int(r.n) - len(r.held)
		if len(r.held) == 0 && len(p) >= need {
			r.framed(p[:need])
			return p[need:]
		}
		k := min(need, len(p))
		r.held = append(r.held, p[:k]...)
		if len(r.held) == int(r.n) {
			r.framed(r.held)
			r.held = r.held[:0]
			if cap(r.held) > 4*chunkSize {
				r.held = nil
			}
		}
		return p[k:]
	case stSkip:
		k := len(p)
		if int64(k) >= r.n {
			k = int(r.n)
			r.st = stBoundary
		}
		r.n -= int64(k)
		r.Out = append(r.Out, p[:k]...)
		return p[k:]
	case stOpaque:
		i := 0
		for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n') {
			if p[i] == '\n' {
				r.lead = -1 // a new line: no longer after a byte order mark
			}
			i++
		}
		r.Out = append(r.Out, p[:i]...)
		if i == len(p) {
			return nil
		}
		switch p[i] {
		case '{', '[':
			r.st, r.depth, r.str, r.esc = stOpaqueText, 0, false, false
		case bom[0]:
			// Before the body, as at the start of a line.
			r.st, r.bomN, r.bomOK, r.bomNotOK = stBOM, 0, stOpaque, stRest
		default:
			r.st = stBoundary
			if r.lead == 0 {
				// After a byte order mark on this line, as stBOM leaves
				// a line's start.
				r.st = stLine
			}
		}
		return p[i:]
	case stOpaqueText:
		n, done := r.brackets(p)
		r.Out = append(r.Out, p[:n]...)
		if done {
			r.st = stBoundary
		}
		return p[n:]
	case stBOM:
		for len(p) > 0 && r.bomN < len(bom) {
			if p[0] != bom[r.bomN] {
				// None: its bytes so far pass, and p is read as what
				// follows them.
				r.Out = append(r.Out, bom[:r.bomN]...)
				r.st, r.lead = r.bomNotOK, -1
				return p
			}
			r.bomN++
			p = p[1:]
		}
		if r.bomN == len(bom) {
			r.Out = append(r.Out, bom...)
			r.st, r.lead = r.bomOK, 0
		}
		return p
	}
	panic("restore: internal error: unknown stdio state")
}

// text follows a newline-framed object or array, held in r.held, through
// p, and passes it to fn once it ends.
//
// Following the brackets costs about as much as fn's own scan, so it is
// put off while nothing depends on it: bytes that neither end the line nor
// make the message too long are held without being followed, unless they
// end with a closing bracket (spaces, tabs and CRs aside), which may end
// the message while its sender waits. At the LF, fn is offered the whole
// line first. So a long message that arrives in many reads and ends with
// its LF is followed only where a read happens to end with a closing
// bracket; what the rules say is still decided exactly, only later.
func (r *StdioReader) text(p []byte) []byte {
	lf := bytes.IndexByte(p, '\n')
	if lf < 0 && len(r.held)+len(p) <= r.max {
		if !r.settle && !endsWithCloser(r.held, p) && len(r.held)+len(p) > followAlways {
			r.held = append(r.held, p...)
			return nil
		}
		if len(r.held) == 0 {
			// Followed in p, without holding it first.
			n, done := r.brackets(p)
			if done {
				r.Out, _ = r.fn(r.Out, p[:n])
				r.endText(stLine)
				return p[n:]
			}
			r.held = append(r.held, p...)
			r.counted = len(p)
			return nil
		}
		r.held = append(r.held, p...)
		r.catchUp()
		return nil
	}
	// The LF, or more than max bytes. The whole line, if fn takes it as one
	// JSON text: then no message ended before its end.
	seg := p
	if lf >= 0 {
		seg = p[:lf]
		if len(r.held)+lf < r.max {
			msg := p[:lf+1]
			if len(r.held) > 0 {
				r.held = append(r.held, msg...)
				msg = r.held
			}
			mark := len(r.Out)
			out, text := r.fn(r.Out, msg)
			if text {
				r.Out = out
				r.endText(stBoundary)
				return p[lf+1:]
			}
			r.Out = out[:mark] // fn appended msg unchanged
			if len(r.held) > 0 {
				r.held = r.held[:len(r.held)-lf-1]
			}
		}
	}
	// Settle what is held, then follow p.
	if r.counted < len(r.held) && r.catchUp() {
		return p // the message ended within what was held
	}
	cnt := seg[:min(len(seg), r.max-len(r.held))] // the message's bytes that fit
	n, done := r.brackets(cnt)
	switch {
	case done || (lf >= 0 && len(r.held)+lf < r.max):
		if !done {
			n = lf + 1 // open at the LF: the line is the message
		}
		msg := p[:n]
		if len(r.held) > 0 {
			r.held = append(r.held, msg...)
			msg = r.held
		}
		r.Out, _ = r.fn(r.Out, msg)
		if done {
			r.endText(stLine)
		} else {
			r.endText(stBoundary)
		}
		return p[n:]
	}
	// Longer than max: it passes with the rest of its line.
	r.Out = append(r.Out, r.held...)
	r.Out = append(r.Out, cnt...)
	r.endText(stRest)
	return p[len(cnt):]
}

// catchUp follows the brackets of what is held and not yet followed. If the
// message ended there, it is passed to fn, what followed it is fed again,
// and catchUp reports true.
func (r *StdioReader) catchUp() bool {
	n, done := r.brackets(r.held[r.counted:])
	if !done {
		r.counted = len(r.held)
		return false
	}
	k := r.counted + n
	msg, rest := r.held[:k], r.held[k:]
	r.held = nil // rest stays in the old buffer
	r.Out, _ = r.fn(r.Out, msg)
	r.endText(stLine)
	// What followed is settled now too, each message in it followed as it
	// is read, without holding it first.
	r.settle = true
	r.feed(rest)
	r.settle = false
	return true
}

// endText ends the current message: st is what follows.
func (r *StdioReader) endText(st stdioState) {
	r.st, r.counted, r.lead = st, 0, -1
	r.held = r.held[:0]
	if cap(r.held) > 4*chunkSize {
		r.held = nil
	}
}

// endsWithCloser reports whether the last byte of held followed by p other
// than space, tab or CR is a closing bracket.
func endsWithCloser(held, p []byte) bool {
	for _, b := range [2][]byte{p, held} {
		for i := len(b) - 1; i >= 0; i-- {
			switch b[i] {
			case ' ', '\t', '\r':
				continue
			case '}', ']':
				return true
			}
			return false
		}
	}
	return false
}

// bracketClass tells the bytes brackets looks at outside strings: 1 for a
// quotation mark, 2 for an opening bracket, 3 for a closing one, 4 for a
// reverse solidus.
var bracketClass = [256]uint8{'"': 1, '{': 2, '[': 2, '}': 3, ']': 3, '\\': 4}

// brackets follows the brackets of p, a part of an object or array, outside
// strings, and returns the length of p up to and including the bracket that
// closes it (done), or len(p). A reverse solidus escapes the byte after it,
// within strings and (invalid JSON, where any rule that does not depend on
// how p is cut will do) outside them. Strings are passed to their closing
// quotation mark at once, and whole 64-byte blocks outside them a block at
// a time (see block); the rest byte by byte.
func (r *StdioReader) brackets(p []byte) (n int, done bool) {
	i := 0
	for {
		if r.str && !r.esc {
			// To the next quotation mark at once (a long string is
			// passed at the speed of IndexByte, not a block at a time):
			// it ends the string if an even run of reverse solidi is
			// before it, counted from i, where no escape is pending.
			k := bytes.IndexByte(p[i:], '"')
			if k < 0 {
				r.esc = backslashes(p[i:])%2 == 1 // the next byte is escaped
				return len(p), false
			}
			r.str = backslashes(p[i:i+k])%2 == 1
			i += k + 1
			continue
		}
		if len(p)-i < 64 {
			break
		}
		if k, ok := r.block(p[i : i+64]); ok {
			return i + k, true
		}
		i += 64
	}
	for i < len(p) {
		if r.esc {
			r.esc = false // the escaped byte
			i++
			continue
		}
		if r.str {
			// Short strings byte by byte; past 16 bytes, to the next
			// quotation mark, which ends the string if an even run of
			// reverse solidi is before it, counted from i, where no
			// escape is pending.
			j, lim := i, min(len(p), i+16)
			for j < lim && p[j] != '"' && p[j] != '\\' {
				j++
			}
			switch {
			case j == len(p):
				return len(p), false
			case j == lim:
				k := bytes.IndexByte(p[j:], '"')
				if k < 0 {
					r.esc = backslashes(p[i:])%2 == 1 // the next byte is escaped
					return len(p), false
				}
				j += k
				r.str = backslashes(p[i:j])%2 == 1
			case p[j] == '\\':
				r.esc = true
			default:
				r.str = false
			}
			i = j + 1
			continue
		}
		for i < len(p) && bracketClass[p[i]] == 0 {
			i++
		}
		if i == len(p) {
			break
		}
		switch bracketClass[p[i]] {
		case 1:
			r.str = true
		case 2:
			r.depth++
		case 3:
			if r.depth--; r.depth == 0 {
				return i + 1, true
			}
		case 4:
			r.esc = true
		}
		i++
	}
	return len(p), false
}

// Bytes of a word: each set to 1, to 0x7f, to 0x20.
const (
	ones  = 0x0101010101010101
	low7  = 0x7f7f7f7f7f7f7f7f
	space = 0x2020202020202020
)

// eqBytes returns the bits of the bytes of w equal to c, bit k for byte k.
func eqBytes(w uint64, c byte) uint64 {
	t := w ^ ones*uint64(c)
	hi := ^((t&low7 + low7) | t | low7) // the high bit of each byte that is 0 in t
	return (hi >> 7) * 0x0102040810204080 >> 56
}

// block follows the brackets of b, 64 bytes, as brackets does, at once: one
// mask each of its quotation marks, reverse solidi and brackets; from those
// the escaped bytes (the method of simdjson: Langdale and Lemire, "Parsing
// Gigabytes of JSON per Second", 2019, section 3.1.1, as internal/scan's
// blocks uses it), the bytes within strings (a running exclusive or of the
// quotation marks not escaped), and the brackets outside strings; only a
// block in which the depth may reach 0 is walked bracket by bracket.
func (r *StdioReader) block(b []byte) (n int, done bool) {
	var quote, sol, open, close uint64
	for k := 0; k < 64; k += 8 {
		w := binary.LittleEndian.Uint64(b[k:])
		quote |= eqBytes(w, '"') << k
		sol |= eqBytes(w, '\\') << k
		w |= space // [ and ] become { and }
		open |= eqBytes(w, '{') << k
		close |= eqBytes(w, '}') << k
	}
	var carry uint64
	if r.esc {
		carry = 1
	}
	bs := sol &^ carry       // reverse solidi not escaped themselves
	follows := bs<<1 | carry // bytes after one
	oddStarts := bs &^ evenBits &^ follows
	ends, c := bits.Add64(oddStarts, bs, 0)
	esc := (evenBits ^ ends<<1) & follows
	q := quote &^ esc
	in := q ^ q<<1
	in ^= in << 2
	in ^= in << 4
	in ^= in << 8
	in ^= in << 16
	in ^= in << 32
	if r.str {
		in = ^in
	}
	open &^= in | esc
	close &^= in | esc
	if r.depth > bits.OnesCount64(close) {
		r.depth += bits.OnesCount64(open) - bits.OnesCount64(close)
		r.str, r.esc = in>>63 != 0, c != 0
		return 0, false
	}
	for m := open | close; m != 0; m &= m - 1 {
		j := bits.TrailingZeros64(m)
		if open>>j&1 != 0 {
			r.depth++
		} else if r.depth--; r.depth == 0 {
			r.str, r.esc = false, false
			return j + 1, true
		}
	}
	r.str, r.esc = in>>63 != 0, c != 0
	return 0, false
}

// evenBits has the bits of the even bytes of a block set.
const evenBits = 0x5555555555555555

// backslashes returns the number of reverse solidi that end p.
func backslashes(p []byte) int {
	n := 0
	for n < len(p) && p[len(p)-1-n] == '\\' {
		n++
	}
	return n
}

// header follows a header block, held in r.hdr, through p.
func (r *StdioReader) header(p []byte) []byte {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if len(r.hdr) >= maxHeaderBlock {
			// Too long to be LSP's: it passes unchanged.
			r.dropHeader(true)
			if r.hs == hLineStart {
				r.st = stBoundary
			} else {
				r.st = stRest
			}
			return p[i:]
		}
		switch r.hs {
		case hLineStart:
			switch {
			case tchar[c]:
				r.hs, r.lineStart, r.loose = hName, len(r.hdr), false
			case c == '\r':
				r.hs = hEmptyCR
			case c == '\n':
				r.hdr = append(r.hdr, c)
				r.endBlock()
				return p[i+1:]
			default:
				// A line that is not a field: the block was none.
				r.dropHeader(false)
				r.st = stBoundary
				return p[i:]
			}
		case hName:
			switch {
			case tchar[c]:
				// The rest of the name at once.
				j := i + 1
				for j < len(p) && tchar[p[j]] {
					j++
				}
				r.hdr = append(r.hdr, p[i:j]...)
				i = j - 1
				continue
			case c == ':':
				r.hs, r.colon = hValue, len(r.hdr)
			case c == ' ' || c == '\t':
				r.hs, r.loose = hPreColon, true
			default:
				return r.notHeader(p[i:])
			}
		case hPreColon:
			switch c {
			case ' ', '\t':
			case ':':
				r.hs, r.colon = hValue, len(r.hdr)
			default:
				return r.notHeader(p[i:])
			}
		case hValue:
			switch {
			case c == '\r':
				r.hs = hCR
			case c == '\n':
				r.hdr = append(r.hdr, c)
				r.endField()
				continue
			case c == '\t' || (c >= ' ' && c != 0x7f):
				// The rest of the value at once.
				j := i + 1
				for j < len(p) && (p[j] >= ' ' && p[j] != 0x7f || p[j] == '\t') {
					j++
				}
				r.hdr = append(r.hdr, p[i:j]...)
				i = j - 1
				continue
			default:
				return r.notHeader(p[i:])
			}
		case hCR:
			if c != '\n' {
				return r.notHeader(p[i:])
			}
			r.hdr = append(r.hdr, c)
			r.endField()
			continue
		case hEmptyCR:
			if c != '\n' {
				// A line holding a CR and more: the block was none.
				r.dropHeader(false)
				r.st, r.lead = stLine, 0
				return p[i:]
			}
			r.hdr = append(r.hdr, c)
			r.endBlock()
			return p[i+1:]
		}
		r.hdr = append(r.hdr, c)
	}
	return nil
}

// notHeader passes on the bytes held as a header block, which p's first
// byte shows is none, and the rest of the current line after them.
func (r *StdioReader) notHeader(p []byte) []byte {
	r.dropHeader(false)
	r.st = stRest
	return p
}

// dropHeader passes on the bytes held as a header block that turned out to
// be none (or, cut, too long to be LSP's) unchanged, noting whether they hold
// a Content-Length field: then the next object or array is unframed. A
// field cut at the limit that may still become one (a name that begins
// Content-Length, or the whole name and spaces) is followed on through the
// rest of its line (see restLead).
func (r *StdioReader) dropHeader(cut bool) {
	name := r.hdr[r.lineStart:]
	if r.hs != hLineStart && r.hs != hName && r.colon >= r.lineStart {
		name = r.hdr[r.lineStart:r.colon]
	}
	name = name[:trimOWS(name, len(name), -1)]
	const cl = "content-length"
	r.lead = -1
	switch {
	case r.lengths > 0:
		r.unframed = true
	case (r.hs == hValue || r.hs == hCR) && bytes.EqualFold(name, []byte(cl)):
		r.unframed = true
	case cut && r.hs == hName && len(name) <= len(cl) && bytes.EqualFold(name, []byte(cl[:len(name)])):
		r.lead = int8(len(name))
	case cut && r.hs == hPreColon && bytes.EqualFold(name, []byte(cl)):
		r.lead = int8(len(cl) + 1)
	}
	r.flushHeader()
}

// restLead follows p, the next bytes of a line passed as it is (stRest),
// while the line may still be a field named Content-Length in any case from
// its start (spaces, tabs and CRs before it aside, as readers that trim the
// line take it; spaces or tabs before the colon, too): if it is one, the
// next object or array is unframed. Only such a line can start a header
// block that vscode-jsonrpc or golang.org/x/tools/internal/jsonrpc2 frames a
// body by; a line that mentions the name after other text (a log line
// "DEBUG Content-Length: 38") frames nothing.
func (r *StdioReader) restLead(p []byte) {
	const cl = "content-length"
	for i := 0; i < len(p) && r.lead >= 0; i++ {
		c := p[i]
		switch k := int(r.lead); {
		case k == 0 && (c == ' ' || c == '\t' || c == '\r'):
		case k < len(cl):
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != cl[k] {
				r.lead = -1
			} else {
				r.lead++
			}
		case c == ':':
			r.unframed, r.lead = true, -1
		case c == ' ' || c == '\t':
			r.lead = int8(len(cl) + 1)
		default:
			r.lead = -1
		}
	}
}

// flushHeader passes on the bytes held as a header block unchanged.
func (r *StdioReader) flushHeader() {
	r.Out = append(r.Out, r.hdr...)
	r.hdr = r.hdr[:0]
}

// endField examines a field of the block, ended by the LF at the end of
// r.hdr.
func (r *StdioReader) endField() {
	r.hs = hLineStart
	name := r.hdr[r.lineStart:r.colon]
	name = name[:trimOWS(name, len(name), -1)]
	if !bytes.EqualFold(name, []byte("content-length")) {
		return
	}
	r.lengths++
	if r.loose {
		r.badLength = true
		return
	}
	// The value: from after the colon to the CR or LF, spaces and tabs
	// around it left out.
	end := len(r.hdr) - 1 // the LF
	if r.hdr[end-1] == '\r' {
		end--
	}
	start := trimOWS(r.hdr, r.colon+1, 1)
	end = trimOWS(r.hdr, end, -1)
	if start >= end {
		r.badLength = true
		return
	}
	var n int64
	for _, d := range r.hdr[start:end] {
		if d < '0' || d > '9' || n > (math.MaxInt64-int64(d-'0'))/10 {
			r.badLength = true
			return
		}
		n = n*10 + int64(d-'0')
	}
	r.n, r.vStart, r.vEnd = n, start, end
}

// trimOWS returns i moved past the spaces and tabs of b that follow it (dir
// 1) or that precede it (dir -1, b[:i]).
func trimOWS(b []byte, i, dir int) int {
	if dir > 0 {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		return i
	}
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t') {
		i--
	}
	return i
}

// endBlock decides what the header block held in r.hdr, ended by its empty
// line, frames.
func (r *StdioReader) endBlock() {
	if r.lengths > 0 {
		// This block's Content-Length decides its body (framed, skipped,
		// or opaque when malformed), not one passed before it.
		r.unframed = false
	}
	switch {
	case r.lengths == 0:
		r.flushHeader()
		r.st = stBoundary
	case r.lengths > 1 || r.badLength:
		r.flushHeader()
		r.st, r.lead = stOpaque, -1
	case r.n > int64(r.max):
		r.flushHeader()
		r.st = stSkip
	default:
		r.st = stBody
		if r.n == 0 {
			r.framed(nil)
		}
	}
}

// framed passes on the header block held in r.hdr and body, its whole
// body, given to fn, with the Content-Length value rewritten if fn changed
// the body's length.
func (r *StdioReader) framed(body []byte) {
	mark := len(r.Out)
	r.Out = append(r.Out, r.hdr...)
	if len(body) >= len(bom) && string(body[:len(bom)]) == bom {
		// Passed before the body's text, as at the start of a line.
		r.Out = append(r.Out, bom...)
		body = body[len(bom):]
	}
	r.Out, _ = r.fn(r.Out, body)
	if got := len(r.Out) - mark - len(r.hdr); int64(got) != r.n {
		var buf [20]byte
		digits := strconv.AppendInt(buf[:0], int64(got), 10)
		vs, ve := mark+r.vStart, mark+r.vEnd
		grow := len(digits) - (ve - vs)
		if grow > 0 {
			r.Out = append(r.Out, make([]byte, grow)...)
		}
		copy(r.Out[ve+grow:], r.Out[ve:len(r.Out)-max(grow, 0)])
		r.Out = r.Out[:len(r.Out)+min(grow, 0)]
		copy(r.Out[vs:], digits)
	}
	r.hdr = r.hdr[:0]
	r.st = stBoundary
}

// End passes on what is held unchanged, once a message that ended within
// it has been passed to fn: src has ended.
func (r *StdioReader) End() {
	for r.st == stText && r.counted < len(r.held) && r.catchUp() {
	}
	if r.st == stBOM {
		r.Out = append(r.Out, bom[:r.bomN]...)
	}
	r.Out = append(r.Out, r.hdr...)
	r.Out = append(r.Out, r.held...)
	r.hdr, r.held = nil, nil
	r.st = stBoundary
}
