package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"

	"github.com/rpcid/rpcid/internal/jsonwire"
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

// lexical maps the faults of jsonwire to those of Scan.
var lexical = [...]fault{
	jsonwire.EOF:       faultEOF,
	jsonwire.Literal:   faultLiteral,
	jsonwire.Digit:     faultDigit,
	jsonwire.FracDigit: faultFracDigit,
	jsonwire.ExpDigit:  faultExpDigit,
	jsonwire.Control:   faultControl,
	jsonwire.Escape:    faultEscape,
	jsonwire.Hex:       faultHex,
	jsonwire.UTF8:      faultUTF8,
	jsonwire.Surrogate: faultSurrogate,
}

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
	i := jsonwire.SkipSpace(data, 0)
	if i == len(data) {
		s.fail(i, faultNoValue)
		return dst, false
	}
	batch := data[i] == '['
	if !batch {
		dst = append(dst, Message{})
		i = s.message(&dst[len(dst)-1], i, 0)
	} else {
		i = jsonwire.SkipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			i++
		} else {
			for {
				if i >= len(data) {
					s.fail(i, faultEOF)
					break
				}
				dst = append(dst, Message{})
				if i = jsonwire.SkipSpace(data, s.message(&dst[len(dst)-1], i, 1)); s.flt != ok {
					break
				}
				if i < len(data) && data[i] == ',' {
					i = jsonwire.SkipSpace(data, i+1)
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
	if i = jsonwire.SkipSpace(data, i); i != len(data) {
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
	i = jsonwire.SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		m.Value.End = i + 1
		return i + 1
	}
	var seen Member
	for i < len(data) {
		if data[i] != '"' {
			return s.fail(i, faultName)
		}
		j, esc, f := jsonwire.ConsumeString(data, i)
		if f != jsonwire.OK {
			return s.fail(j, lexical[f])
		}
		var mem Member
		var exact bool
		if esc {
			mem, exact = classifyEscaped(data[i+1 : j-1])
		} else {
			mem, exact = classify(data[i+1 : j-1])
		}
		i = j
		i = jsonwire.SkipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return s.fail(i, faultColon)
		}
		i = jsonwire.SkipSpace(data, i+1)
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
		i = jsonwire.SkipSpace(data, i)
		if i >= len(data) {
			break
		}
		if data[i] == ',' {
			i = jsonwire.SkipSpace(data, i+1)
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

// classifyEscaped is classify for raw, the checked contents of a member
// name between its quotation marks, which hold escapes.
func classifyEscaped(raw []byte) (Member, bool) {
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
		r, size := jsonwire.DecodeEscape(raw, i)
		i += size
		if len(dst)+utf8.RuneLen(r) > cap(dst) {
			return dst, false
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, true
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
		// A short plain string in line: its contents (printable ASCII
		// other than '"' and '\\', see quoteFirst) end within the next
		// 16 bytes. Any other through str.
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
		i = jsonwire.SkipSpace(data, i+1)
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
	i = jsonwire.SkipSpace(data, i)
	if i >= len(data) {
		return s.fail(i, faultEOF)
	}
	obj = s.stack[d>>6]>>(d&63)&1 != 0
	switch data[i] {
	case ',':
		i = jsonwire.SkipSpace(data, i+1)
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
				if i = jsonwire.SkipSpace(data, j+1); i >= len(data) {
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
	i = jsonwire.SkipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return s.fail(i, faultColon)
	}
	if i = jsonwire.SkipSpace(data, i+1); i >= len(data) {
		return s.fail(i, faultEOF)
	}
	return i
}

// failLiteral records a malformed literal that should be lit at data[i].
func (s *scanner) failLiteral(i int, lit string) int {
	j, f := jsonwire.ConsumeLiteral(s.data, i, lit)
	return s.fail(j, lexical[f])
}

// number checks the number at data[i] and returns the offset after it.
func (s *scanner) number(i int) int {
	j, f := jsonwire.ConsumeNumber(s.data, i)
	if f != jsonwire.OK {
		return s.fail(j, lexical[f])
	}
	return j
}

// str checks the string whose opening quotation mark is at data[i] and
// returns the offset after its closing quotation mark.
func (s *scanner) str(i int) int {
	j, _, f := jsonwire.ConsumeString(s.data, i)
	if f != jsonwire.OK {
		return s.fail(j, lexical[f])
	}
	return j
}

// quoteFirst returns, for x, eight bytes of a string's contents, a word
// whose lowest set bit is the high bit of the first byte that is not plain
// (printable ASCII other than '"' and '\\'), or 0 if all are plain; and
// the high bits of the bytes of x that are quotation marks (and maybe of
// bytes above the lowest such, from a borrow).
func quoteFirst(x uint64) (low, qm uint64) {
	q, b := x^('"'*ones), x^('\\'*ones)
	qm = (q - ones) &^ q
	return (qm | (b-ones)&^b | (x - 0x20*ones) | x) & highs, qm
}

// Constants for looking at eight bytes at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)
