package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A Span is the byte range [Start, End) of a value in the scanned text.
// End == 0 means the value is absent: no JSON value is empty, so a present
// value always ends after offset 0.
type Span struct {
	// Start is the offset of the value's first byte.
	Start int
	// End is the offset just after the value's last byte, or 0 if absent.
	End int
}

// Bytes returns data[sp.Start:sp.End], or nil if sp is absent.
func (sp Span) Bytes(data []byte) []byte {
	if sp.End == 0 {
		return nil
	}
	return data[sp.Start:sp.End]
}

// A Member is a set of the JSON-RPC 2.0 members that Scan reports.
type Member uint8

// The members Scan reports (JSON-RPC 2.0 sections 4 and 5).
const (
	ID Member = 1 << iota
	Method
	Result
	Error
	JSONRPC
	Params
)

// A Message is what Scan reports about one top-level message of a text: the
// text itself when it is not a batch, or one element of a batch array.
type Message struct {
	// Value is the span of the message (or batch element) itself, without
	// the whitespace around it.
	Value Span

	// Object reports whether Value is a JSON object. The member spans below
	// are set only then; an element that is not an object is never a
	// JSON-RPC message (section 6 answers it with an error response).
	Object bool

	// The spans of the member values (not their names), without the
	// whitespace around them. When a member is named more than once, the
	// span is that of the last one, the one encoding/json keeps.
	ID, Method, Result, Error, JSONRPC, Params Span

	// Dup is the set of members named more than once, counting every name
	// that encoding/json's case-insensitive struct field matching takes
	// for the member: {"id":1,"ID":2} has a duplicate id.
	Dup Member

	// Fold is the set of members named at least once by a case variant of
	// their name ("ID", "Id", "jſonrpc") rather than by the exact name. A
	// JSON-RPC peer that compares names exactly sees no such member, or
	// another one, where encoding/json sees this one. Escapes do not make a
	// variant: "\u0069d" is the name id.
	Fold Member
}

// Unambiguous reports whether every member in set is named at most once
// and only by its exact name, so that every JSON-RPC implementation, whether
// it compares member names exactly or as encoding/json does, reads the same
// value (or the same absence) for it.
func (m *Message) Unambiguous(set Member) bool {
	return (m.Dup|m.Fold)&set == 0
}

// IsJSONRPC20 reports whether m is an object whose jsonrpc member is named
// exactly once, exactly, and is a string whose value is "2.0" (JSON-RPC 2.0
// sections 4 and 5: the member "MUST be exactly "2.0""). data is the text m
// was scanned from. Escapes are resolved: "2\u002e0" is "2.0".
func (m *Message) IsJSONRPC20(data []byte) bool {
	if !m.Object || m.JSONRPC.End == 0 || !m.Unambiguous(JSONRPC) {
		return false
	}
	v := data[m.JSONRPC.Start:m.JSONRPC.End]
	if string(v) == `"2.0"` {
		return true
	}
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	var buf [8]byte
	s, ok := unquoteShort(buf[:0], v[1:len(v)-1])
	return ok && string(s) == "2.0"
}

// Sentinel errors, wrapped by *SyntaxError.
var (
	// ErrSyntax reports a text that is not exactly one JSON value (RFC
	// 8259) with optional whitespace around it, or that nests arrays and
	// objects more than 10000 deep (encoding/json's limit).
	ErrSyntax = errors.New("invalid JSON")

	// ErrInvalidUTF8 reports a string with invalid UTF-8 (RFC 8259
	// section 8.1) or a \u escape of a lone UTF-16 surrogate (section 8.2).
	ErrInvalidUTF8 = errors.New("invalid UTF-8 in string")
)

// A SyntaxError reports why a text could not be scanned. It does not keep
// the text.
type SyntaxError struct {
	// Offset is the byte offset of the first byte that could not be
	// accepted, or the text's length when it ended too soon.
	Offset int
	// Err is ErrSyntax or ErrInvalidUTF8.
	Err    error
	reason string
}

// Error returns "scan: " and the reason, the offset and the sentinel's text.
func (e *SyntaxError) Error() string {
	return "scan: " + e.reason + " at byte offset " + strconv.Itoa(e.Offset) + ": " + e.Err.Error()
}

// Unwrap returns e.Err, for errors.Is.
func (e *SyntaxError) Unwrap() error { return e.Err }

// maxDepth is the deepest nesting of arrays and objects accepted: that of
// encoding/json (maxNestingDepth in its scanner.go), so that every accepted
// text is json.Valid.
const maxDepth = 10000

// A fault is a scanning error before it becomes a *SyntaxError.
type fault uint8

const (
	ok fault = iota
	faultEOF
	faultNoValue
	faultValueStart
	faultAfterText
	faultAfterElement
	faultAfterMember
	faultName
	faultColon
	faultLiteral
	faultDigit
	faultFracDigit
	faultExpDigit
	faultControl
	faultEscape
	faultHex
	faultUTF8
	faultSurrogate
	faultDepth
	faultDeeper // nesting deeper than the stack of the first try: try again
)

var reasons = [...]string{
	faultEOF:          "unexpected end of input",
	faultNoValue:      "no value",
	faultValueStart:   "invalid character at start of value",
	faultAfterText:    "invalid character after top-level value",
	faultAfterElement: "invalid character after array element",
	faultAfterMember:  "invalid character after object member",
	faultName:         "object member name must be a string",
	faultColon:        "expected ':' after object member name",
	faultLiteral:      "invalid literal",
	faultDigit:        "number needs a digit",
	faultFracDigit:    "number needs a digit after the decimal point",
	faultExpDigit:     "number needs a digit in the exponent",
	faultControl:      "control character in string",
	faultEscape:       "invalid escape in string",
	faultHex:          "invalid \\u escape in string",
	faultUTF8:         "invalid UTF-8 in string",
	faultSurrogate:    "lone surrogate escape in string",
	faultDepth:        "nesting deeper than 10000",
	faultDeeper:       "nesting deeper than 255", // never reported: Scan tries again
}

// A scanner holds the state of one Scan. It lives in Scan's frame.
type scanner struct {
	data  []byte
	flt   fault
	off   int      // where flt was found
	stack []uint64 // bit d set: the container at depth d is an object
	// deepest is the deepest nesting stack has room for: maxDepth, or
	// less in the first try of Scan, which fails with faultDeeper below
	// it.
	deepest int
}

// shallow is the deepest nesting that Scan's first try has room for, in
// a stack small enough that clearing it costs little beside a message;
// deeper texts are scanned again with room for maxDepth (scanDeep).
const shallow = 4*64 - 1

// fail records the first fault and returns len(s.data), so that callers can
// return at once and every loop ends.
func (s *scanner) fail(i int, f fault) int {
	if s.flt == ok {
		s.flt, s.off = f, i
	}
	return len(s.data)
}

// Scan appends to dst one Message for each top-level message of data: one
// for a text that is not an array, one per element of a batch array (none
// for []). batch reports whether data is an array. data must be exactly one
// JSON text (RFC 8259) with optional whitespace around it, checked as the
// package documentation says; otherwise Scan returns dst unchanged and a
// *SyntaxError wrapping ErrSyntax or ErrInvalidUTF8.
//
// Scan takes time linear in len(data) for every shape of input (a text
// that nests arrays and objects more than 255 deep is scanned twice, the
// second time with room for 10000), does not retain data, and allocates
// nothing when dst has room for the messages (and nothing but the error
// when it fails).
func Scan(dst []Message, data []byte) (msgs []Message, batch bool, err error) {
	n := len(dst)
	var stack [(shallow + 1) / 64]uint64
	// Field by field: a composite literal is built in a temporary and
	// copied, 16 bytes a load from 8-byte stores, which the processor
	// cannot forward.
	var s scanner
	s.data, s.stack, s.deepest = data, stack[:], shallow
	dst, batch = s.text(dst)
	if s.flt == faultDeeper {
		return scanDeep(dst[:n], data)
	}
	return s.result(dst, n, batch)
}

// scanDeep is Scan with room for nesting maxDepth deep, for the texts that
// nest deeper than shallow.
//
//go:noinline
func scanDeep(dst []Message, data []byte) (msgs []Message, batch bool, err error) {
	n := len(dst)
	var stack [maxDepth/64 + 1]uint64
	var s scanner
	s.data, s.stack, s.deepest = data, stack[:], maxDepth
	dst, batch = s.text(dst)
	return s.result(dst, n, batch)
}

// result returns what Scan returns once s has scanned the text: dst and
// batch, or dst[:n] and the error.
func (s *scanner) result(dst []Message, n int, batch bool) ([]Message, bool, error) {
	if s.flt != ok {
		se := &SyntaxError{Offset: s.off, Err: ErrSyntax, reason: reasons[s.flt]}
		if s.flt == faultUTF8 || s.flt == faultSurrogate {
			se.Err = ErrInvalidUTF8
		}
		return dst[:n], false, se
	}
	return dst, batch, nil
}

// text scans the whole text.
func (s *scanner) text(dst []Message) ([]Message, bool) {
	data := s.data
	i := ws(data, 0)
	if i == len(data) {
		s.fail(i, faultNoValue)
		return dst, false
	}
	batch := data[i] == '['
	if !batch {
		dst = append(dst, Message{})
		i = s.message(&dst[len(dst)-1], i, 0)
	} else {
		i = ws(data, i+1)
		if i < len(data) && data[i] == ']' {
			i++
		} else {
			for {
				if i >= len(data) {
					s.fail(i, faultEOF)
					break
				}
				dst = append(dst, Message{})
				if i = ws(data, s.message(&dst[len(dst)-1], i, 1)); s.flt != ok {
					break
				}
				if i < len(data) && data[i] == ',' {
					i = ws(data, i+1)
					continue
				}
				if i < len(data) && data[i] == ']' {
					i++
					break
				}
				if i >= len(data) {
					s.fail(i, faultEOF)
				} else {
					s.fail(i, faultAfterElement)
				}
				break
			}
		}
	}
	if s.flt != ok {
		return dst, batch
	}
	if i = ws(data, i); i != len(data) {
		s.fail(i, faultAfterText)
	}
	return dst, batch
}

// message scans the value at data[i] (not whitespace; i may be len(data))
// as one message at nesting depth depth (0 for the whole text, 1 for a batch
// element) and fills m. It returns the offset after the value.
func (s *scanner) message(m *Message, i, depth int) int {
	data := s.data
	if i >= len(data) {
		return s.fail(i, faultEOF)
	}
	if data[i] != '{' {
		end := s.value(i, depth)
		m.Value = Span{i, end}
		return end
	}
	m.Object = true
	m.Value.Start = i
	d := depth + 1 // at most 2: within maxDepth
	i = ws(data, i+1)
	if i < len(data) && data[i] == '}' {
		m.Value.End = i + 1
		return i + 1
	}
	var seen Member
	for i < len(data) {
		if data[i] != '"' {
			return s.fail(i, faultName)
		}
		var mem Member
		exact := true
		if j := skipPlain(data, i+1); j < len(data) && data[j] == '"' {
			mem, exact = classify(data[i+1 : j])
			i = j + 1
		} else {
			j = s.str(i)
			if s.flt != ok {
				return j
			}
			mem, exact = classifyRaw(data[i+1 : j-1])
			i = j
		}
		i = ws(data, i)
		if i >= len(data) || data[i] != ':' {
			return s.fail(i, faultColon)
		}
		i = ws(data, i+1)
		if i >= len(data) {
			return s.fail(i, faultEOF)
		}
		start := i
		if i = s.value(i, d); s.flt != ok {
			return i
		}
		if mem != 0 {
			if seen&mem != 0 {
				m.Dup |= mem
			}
			seen |= mem
			if !exact {
				m.Fold |= mem
			}
			*m.span(mem) = Span{start, i}
		}
		i = ws(data, i)
		if i >= len(data) {
			break
		}
		if data[i] == ',' {
			i = ws(data, i+1)
			continue
		}
		if data[i] == '}' {
			m.Value.End = i + 1
			return i + 1
		}
		return s.fail(i, faultAfterMember)
	}
	return s.fail(i, faultEOF)
}

// span returns the field of m that holds the span of mem, one member.
func (m *Message) span(mem Member) *Span {
	switch mem {
	case ID:
		return &m.ID
	case Method:
		return &m.Method
	case Result:
		return &m.Result
	case Error:
		return &m.Error
	case JSONRPC:
		return &m.JSONRPC
	}
	return &m.Params
}

// names are the members' exact names, in the order of their bits.
var names = [...]string{"id", "method", "result", "error", "jsonrpc", "params"}

// classify returns the member that name, the decoded name of an object
// member, stands for (0 for none), and whether name is its exact name
// rather than a case variant.
func classify(name []byte) (Member, bool) {
	switch string(name) {
	case "id":
		return ID, true
	case "method":
		return Method, true
	case "result":
		return Result, true
	case "error":
		return Error, true
	case "jsonrpc":
		return JSONRPC, true
	case "params":
		return Params, true
	}
	// A case variant is at most 8 bytes: only s (U+017F, 2 bytes) and k
	// (U+212A, 3 bytes; in none of the names) fold with non-ASCII letters.
	if len(name) < 2 || len(name) > 8 {
		return 0, false
	}
	for i, n := range names {
		if bytes.EqualFold(name, []byte(n)) {
			return 1 << i, false
		}
	}
	return 0, false
}

// classifyRaw is classify for raw, the checked contents of a member name
// between its quotation marks, which may hold escapes.
func classifyRaw(raw []byte) (Member, bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return classify(raw)
	}
	var buf [8]byte
	name, ok := unquoteShort(buf[:0], raw)
	if !ok {
		return 0, false
	}
	return classify(name)
}

// unquoteShort appends the decoded contents of raw, the checked contents of
// a JSON string between its quotation marks, to dst if they fit in its
// capacity; ok is false if they do not.
func unquoteShort(dst, raw []byte) (_ []byte, ok bool) {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			if len(dst) == cap(dst) {
				return dst, false
			}
			dst = append(dst, c)
			i++
			continue
		}
		var r rune
		switch raw[i+1] {
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			r = hex4(raw[i+2:])
			if utf16.IsSurrogate(r) { // checked: a pair
				r = utf16.DecodeRune(r, hex4(raw[i+8:]))
				i += 6
			}
			i += 4
		default: // '"', '\\', '/'
			r = rune(raw[i+1])
		}
		i += 2
		if len(dst)+utf8.RuneLen(r) > cap(dst) {
			return dst, false
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, true
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

// isSpace reports whether c is JSON whitespace (RFC 8259 section 2).
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// ws returns the offset of the first byte at or after data[i] that is not
// whitespace, or len(data).
func ws(data []byte, i int) int {
	for i < len(data) && data[i] <= ' ' && isSpace(data[i]) {
		i++
	}
	return i
}

// value checks the JSON value that starts at data[i] (not whitespace, i <
// len(data)) inside containers nested depth deep, and returns the offset
// after it. It walks nested arrays and objects with a bit stack, never by
// recursion, so no input can exhaust the goroutine stack.
//
// It is written as three states joined by goto (at a value, after one, at
// a member name), with short strings and integers checked in line: most of
// a JSON text's structure is made of them, and a call costs more than
// checking one.
func (s *scanner) value(i, depth int) int {
	data := s.data
	d := depth
	var (
		c       byte
		j       int
		low, qm uint64
		obj     bool
	)
top: // At the first byte of a value; i < len(data).
	c = data[i]
	if c == '"' {
		// A short plain string in line: its contents (see skipPlain)
		// end within the next 16 bytes. Any other through str.
		if len(data)-i > 16 {
			j = i
			low, qm = quoteFirst(binary.LittleEndian.Uint64(data[i+1:]))
			if low == 0 {
				j = i + 8
				low, qm = quoteFirst(binary.LittleEndian.Uint64(data[i+9:]))
			}
			if low&-low&qm != 0 {
				i = j + 2 + bits.TrailingZeros64(low)>>3
				goto after
			}
		}
		if i = s.str(i); s.flt != ok {
			return i
		}
		goto after
	}
	if c-'1' <= 8 {
		// An integer in line, unless a fraction or an exponent follows.
		j = i + 1
		for j < len(data) && data[j]-'0' <= 9 {
			j++
		}
		if j == len(data) || data[j] != '.' && data[j]|0x20 != 'e' {
			i = j
			goto after
		}
	}
	switch c {
	case '{', '[':
		if d++; d > s.deepest {
			if d <= maxDepth {
				return s.fail(i, faultDeeper)
			}
			return s.fail(i, faultDepth)
		}
		i = ws(data, i+1)
		if i >= len(data) {
			return s.fail(i, faultEOF)
		}
		if data[i] == c+2 { // '}' is '{'+2, ']' is '['+2
			d--
			i++
			goto after
		}
		if c == '[' {
			s.stack[d>>6] &^= 1 << (d & 63)
			goto top
		}
		s.stack[d>>6] |= 1 << (d & 63)
		goto name
	case 't':
		if len(data)-i < 4 || string(data[i:i+4]) != "true" {
			return s.failLiteral(i, "true")
		}
		i += 4
	case 'f':
		if len(data)-i < 5 || string(data[i:i+5]) != "false" {
			return s.failLiteral(i, "false")
		}
		i += 5
	case 'n':
		if len(data)-i < 4 || string(data[i:i+4]) != "null" {
			return s.failLiteral(i, "null")
		}
		i += 4
	default:
		if c != '-' && c-'0' > 9 {
			return s.fail(i, faultValueStart)
		}
		if i = s.number(i); s.flt != ok {
			return i
		}
	}
after: // After a value: close containers, or go on to the next element.
	if d == depth {
		return i
	}
	i = ws(data, i)
	if i >= len(data) {
		return s.fail(i, faultEOF)
	}
	obj = s.stack[d>>6]>>(d&63)&1 != 0
	switch data[i] {
	case ',':
		i = ws(data, i+1)
		if obj {
			goto name
		}
		if i >= len(data) {
			return s.fail(i, faultEOF)
		}
		goto top
	case '}':
		if !obj {
			return s.fail(i, faultAfterElement)
		}
	case ']':
		if obj {
			return s.fail(i, faultAfterMember)
		}
	default:
		if obj {
			return s.fail(i, faultAfterMember)
		}
		return s.fail(i, faultAfterElement)
	}
	d--
	i++
	goto after
name: // At a member name and its ':' (i may be len(data)).
	if len(data)-i > 16 && data[i] == '"' {
		// A short plain name in line, as a short string above.
		j = i
		low, qm = quoteFirst(binary.LittleEndian.Uint64(data[i+1:]))
		if low == 0 {
			j = i + 8
			low, qm = quoteFirst(binary.LittleEndian.Uint64(data[i+9:]))
		}
		if low&-low&qm != 0 {
			if j += 2 + bits.TrailingZeros64(low)>>3; j < len(data) && data[j] == ':' {
				if i = ws(data, j+1); i >= len(data) {
					return s.fail(i, faultEOF)
				}
				goto top
			}
		}
	}
	if i = s.memberName(i); s.flt != ok {
		return i
	}
	goto top
}

// memberName checks the member name at data[i] and the name separator after
// it, and returns the offset of the member's value, which is less than
// len(data). It is value's slow path for names it does not take in line.
func (s *scanner) memberName(i int) int {
	data := s.data
	if i >= len(data) {
		return s.fail(i, faultEOF)
	}
	if data[i] != '"' {
		return s.fail(i, faultName)
	}
	// The caller has tried the short plain names.
	if i = s.str(i); s.flt != ok {
		return i
	}
	i = ws(data, i)
	if i >= len(data) || data[i] != ':' {
		return s.fail(i, faultColon)
	}
	if i = ws(data, i+1); i >= len(data) {
		return s.fail(i, faultEOF)
	}
	return i
}

// failLiteral records a malformed literal that should be lit at data[i],
// at the first byte that departs from it.
func (s *scanner) failLiteral(i int, lit string) int {
	j := 0
	for j < len(lit) && i+j < len(s.data) && s.data[i+j] == lit[j] {
		j++
	}
	if i+j == len(s.data) {
		return s.fail(i+j, faultEOF)
	}
	return s.fail(i+j, faultLiteral)
}

// number checks the number at data[i] (RFC 8259 section 6) and returns the
// offset after it. Whatever follows is the caller's to check.
//
//	number = [ minus ] int [ frac ] [ exp ]
//	int    = zero / ( digit1-9 *DIGIT )
//	frac   = decimal-point 1*DIGIT
//	exp    = e [ minus / plus ] 1*DIGIT
func (s *scanner) number(i int) int {
	data := s.data
	if data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return s.fail(i, faultEOF)
	case data[i] == '0':
		i++
	case data[i]-'1' <= 8:
		i++
		for i < len(data) && data[i]-'0' <= 9 {
			i++
		}
	default:
		return s.fail(i, faultDigit)
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || data[i]-'0' > 9 {
			return s.fail(i, faultFracDigit)
		}
		for i < len(data) && data[i]-'0' <= 9 {
			i++
		}
	}
	if i < len(data) && data[i]|0x20 == 'e' {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i]-'0' > 9 {
			return s.fail(i, faultExpDigit)
		}
		for i < len(data) && data[i]-'0' <= 9 {
			i++
		}
	}
	return i
}

// str checks the string whose opening quotation mark is at data[i] (RFC
// 8259 sections 7 and 8.1, and no lone surrogate escapes) and returns the
// offset after its closing quotation mark.
//
// It skips printable ASCII eight bytes a step (see skipPlain), and checks
// each run of multi-byte UTF-8 sequences with utf8Run. Where escapes come
// close together (two within eight bytes, as in source code and JSON held
// in a string), it switches to dense, which finds the escapes of eight
// bytes at once without a branch for each.
func (s *scanner) str(i int) int {
	data := s.data
	i++
	last := -8 // the offset of the last escape
	for {
		// skipPlain, written out here to save a call after each escape.
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
			return s.fail(i, faultEOF)
		}
	look: // data[i] is not plain
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 < len(data) && escapes[data[i+1]] {
				// The common escapes, without a call.
				close := i-last < 8
				last = i
				if i += 2; close {
					i = dense(data, i)
				}
				continue
			}
			if i = s.escape(i); s.flt != ok {
				return i
			}
		case c < 0x20:
			return s.fail(i, faultControl)
		default:
			var bad bool
			if i, bad = utf8Run(data, i); bad {
				return s.fail(i, faultUTF8)
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
// byte str must look at itself: a quotation mark that ends the string, a
// reverse solidus whose escape is another (\u) or none, a control
// character, a byte of a multi-byte UTF-8 sequence; or of the last seven
// bytes or fewer, which str takes byte by byte.
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
				i-- // an escaped byte: str looks at its reverse solidus
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

// quoteFirst returns special(x) and the high bits of the bytes of x that are
// quotation marks (and maybe of bytes above the lowest such, from a borrow).
func quoteFirst(x uint64) (low, qm uint64) {
	q, b := x^('"'*ones), x^('\\'*ones)
	qm = (q - ones) &^ q
	return (qm | (b-ones)&^b | (x - 0x20*ones) | x) & highs, qm
}

// escapes maps the byte after a reverse solidus to true for the escapes of
// RFC 8259 section 7 other than \u, which escape checks.
var escapes = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escape checks the escape at data[i], a reverse solidus, and returns the
// offset after it. A \u escape of a high surrogate must be followed by one of
// a low surrogate; a low surrogate alone is refused.
func (s *scanner) escape(i int) int {
	data := s.data
	if i+1 >= len(data) {
		return s.fail(len(data), faultEOF)
	}
	if c := data[i+1]; c != 'u' {
		if !escapes[c] {
			return s.fail(i+1, faultEscape)
		}
		return i + 2
	}
	r := hex4(data[i+2:])
	if r < 0 {
		return s.failHex(i + 2)
	}
	if !utf16.IsSurrogate(r) {
		return i + 6
	}
	if r < 0xDC00 && (i+6 == len(data) || i+7 == len(data) && data[i+6] == '\\') {
		// A high surrogate at the end of the text, or with only the
		// reverse solidus of its pair: cut short, not lone.
		return s.fail(len(data), faultEOF)
	}
	if r < 0xDC00 && i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
		r2 := hex4(data[i+8:])
		if r2 < 0 {
			return s.failHex(i + 8)
		}
		if r2 >= 0xDC00 && r2 <= 0xDFFF {
			return i + 12
		}
	}
	return s.fail(i, faultSurrogate)
}

// failHex records a malformed \u escape whose digits start at data[i].
func (s *scanner) failHex(i int) int {
	for j := i; j < i+4; j++ {
		if j >= len(s.data) {
			return s.fail(j, faultEOF)
		}
		if c := s.data[j]; c-'0' > 9 && c|0x20-'a' > 5 {
			return s.fail(j, faultHex)
		}
	}
	return s.fail(i, faultHex)
}

// Constants for looking at eight bytes at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7f7f7f7f7f7f7f7f
)

// special returns the bits that skipPlain finds in x, eight bytes of a
// string's contents: the high bit of the first byte to look at is the
// lowest set bit, if any.
func special(x uint64) uint64 {
	q, b := x^('"'*ones), x^('\\'*ones)
	return ((q-ones)&^q | (b-ones)&^b | (x - 0x20*ones) | x) & highs
}

// skipPlain returns the offset of the first byte at or after data[i] that a
// string scanner must look at: a quotation mark, a reverse solidus, a
// control character below U+0020 or a byte of a multi-byte UTF-8 sequence;
// or len(data). It looks at eight bytes a step while it can.
func skipPlain(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i : i+8])
		q := x ^ ('"' * ones)  // a zero byte where x has '"'
		b := x ^ ('\\' * ones) // a zero byte where x has '\\'
		// (y - ones) &^ y & highs has the high bit of the lowest zero byte
		// of y set (and maybe bits above it, from the borrow); likewise
		// x - 0x20*ones for the lowest byte below 0x20 (a byte with the high
		// bit set may set it too, as x does), and x for bytes with the high
		// bit set. So the lowest set bit of the union marks exactly the
		// first byte to look at.
		if m := ((q-ones)&^q | (b-ones)&^b | (x - 0x20*ones) | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(data) && plain[data[i]] {
		i++
	}
	return i
}
