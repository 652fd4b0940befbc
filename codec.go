package rpcid

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rpcid/rpcid/internal/jsonwire"
)

// Parse parses data, the JSON text of one id, as it appears as the value of
// an "id" member: one JSON value (RFC 8259 section 3) with optional JSON
// whitespace (space, tab, line feed, carriage return; section 2) before and
// after it. Parse neither retains nor modifies data, so that the compiler
// can pass Parse([]byte(s)) the bytes of s without copying them.
//
// The kind follows the rule in the package documentation: null is KindNull;
// a number with an exact integer value within int64 is KindInt, however it is
// spelled; any other number is KindNumber and keeps its text; a string is
// KindString, with its escapes resolved.
//
// The error, an *Error, wraps
//   - ErrSyntax when data is empty, is not JSON, or holds more than one value;
//   - ErrInvalidUTF8 when a string holds invalid UTF-8 or a \u escape of a
//     lone surrogate;
//   - ErrType when data is valid JSON but an object, array, true or false;
//   - ErrRange when data is a number d × 10^e in lowest terms (d an integer
//     not divisible by 10) with |e| >= 10^18, such as 1e1000000000000000000
//     or 10e999999999999999999.
//
// Parse allocates nothing for null, integers, and strings written without
// escapes that spell an int64 canonically; one string for other strings and
// for KindNumber.
func Parse(data []byte) (ID, error) { return parse(data, "Parse") }

// MustParse is like Parse but panics if s cannot be parsed. It is meant for
// ids written in programs and tests.
func MustParse(s string) ID {
	id, err := Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return id
}

// UnmarshalJSON sets *id to the id in data, as Parse does; on error *id is
// unchanged. encoding/json calls it with "null" for a null member, which
// gives KindNull, and does not call it for a missing member, which leaves
// the ID absent. The error is an *Error (Func "UnmarshalJSON") wrapping the
// sentinels listed at Parse.
func (id *ID) UnmarshalJSON(data []byte) error {
	x, err := parse(data, "UnmarshalJSON")
	if err != nil {
		return err
	}
	*id = x
	return nil
}

// parse is Parse with fn, the name of the exported function, for errors. It
// holds the fastest paths itself, null and an integer or canonical integer
// string of at most 8 digits, so that such an id costs one call; parseSlow
// does the rest.
func parse(data []byte, fn string) (ID, error) {
	if len(data) == 4 && string(data) == "null" {
		return ID{f: formNull}, nil
	}
	s, f, neg := data, formInt, uint64(0)
	if len(data) == 0 || data[0]-'1' > 8 {
		s, f, neg = intText(data) // not a bare positive integer
	}
	if uint(len(s))-1 < 8 {
		var x uint64
		if len(s) >= 4 {
			x = load8(s)
		} else {
			x = load3(s)
		}
		if u, ok := eightDigits(x, len(s)); ok {
			return ID{n: negate(u, neg), f: f}, nil
		}
	} else if uint(len(s))-1 < 19 {
		if u, ok := digits(s, neg); ok {
			return ID{n: negate(u, neg), f: f}, nil
		}
	}
	return parseSlow(data, fn)
}

// parseSlow is parse after its fast path failed.
func parseSlow(data []byte, fn string) (ID, error) {
	if n, f := parseFast(data); f != formAbsent {
		return ID{n: n, f: f}, nil
	}
	var v view
	if flt := v.scan(data); flt.err != nil {
		return ID{}, newError(fn, data, flt.off, flt.err, flt.detail)
	}
	return v.id(data), nil
}

// MarshalJSON returns the JSON spelling of id, as AppendJSON writes it. The
// zero ID has none: MarshalJSON returns an *Error wrapping ErrType for it.
// To leave an absent id out of a struct, use the omitzero option (Go 1.24).
// A *ID field with omitempty leaves out a nil pointer too, but only for
// encoding: decoding "id":null into a pointer sets it to nil without calling
// UnmarshalJSON, so a null id and a missing one look alike.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.f == formAbsent {
		return nil, idError("MarshalJSON", id, ErrType, "no JSON value (leave the member out with omitzero)")
	}
	return id.AppendJSON(nil), nil
}

// AppendJSON appends the JSON spelling of id to b and returns the extended
// buffer. It appends nothing for the zero ID. Integers are written in
// canonical decimal, KindNumber ids with their text as received, and strings
// with the escapes JSON requires (quotation mark, reverse solidus, and
// control characters below U+0020, using \b \f \n \r \t where they exist and
// \u00XX otherwise) and no others: other bytes, including U+007F and
// non-ASCII UTF-8, are written as they are. The result is valid JSON (RFC
// 8259) that Parse turns back into an ID == id (for every ID but the zero
// ID, which has no JSON spelling).
func (id ID) AppendJSON(b []byte) []byte {
	switch id.f {
	case formNull:
		return append(b, "null"...)
	case formInt:
		return strconv.AppendInt(b, id.n, 10)
	case formNumber:
		return append(b, id.s[:id.n]...)
	case formIntString:
		b = append(b, '"')
		b = strconv.AppendInt(b, id.n, 10)
		return append(b, '"')
	case formString:
		return appendQuoted(b, id.s)
	}
	return b
}

// appendQuoted appends s as a JSON string. s is valid UTF-8 (String and
// Parse make sure of it).
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// FromAny converts an id held in a Go value, as encoding/json and SDKs hand
// ids over, to an ID:
//   - nil is KindNull;
//   - a string is String(s) if it is valid UTF-8 (encoding/json decodes
//     strings so); one that is not is refused with ErrInvalidUTF8, as Parse
//     refuses it (String would replace its invalid bytes with U+FFFD, and
//     so make ids Equal that are not);
//   - a json.Number or json.RawMessage is parsed as Parse does; a json.Number
//     must hold exactly a JSON number, without whitespace;
//   - int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64 and
//     uintptr give KindInt, except a uint, uint64 or uintptr above
//     math.MaxInt64, which gives KindNumber with its decimal spelling (types
//     defined from these, such as type ReqID int64, are not recognized:
//     convert them first);
//   - a float64 or float32 that is an integer within int64 gives KindInt;
//     another finite one gives KindNumber with the value of the shortest
//     decimal that reads back as the same float, spelled as
//     strconv.FormatFloat(f, 'g', -1, bits) spells it (1e-07, 1e+20,
//     9.223372036854776e+18 for float64(1<<63)): the value a peer holding
//     the float sends, since encoding/json and JavaScript write that
//     decimal too, so the ID is Equal to what they write, though not
//     spelled alike (they write 1e-7, 100000000000000000000 and
//     9223372036854776000); it is not the float's exact binary value
//     (9223372036854775808). An id decoded into a float has lost its
//     spelling already; decode with json.Decoder.UseNumber, or into
//     json.RawMessage, to keep it;
//   - an ID is returned as it is.
//
// The error, an *Error with Func "FromAny", wraps ErrRange for a NaN or
// infinite float, ErrType for any other type (bool, maps, slices, structs,
// pointers), and the errors of Parse for a json.Number or json.RawMessage
// (ErrSyntax for a json.Number that is not a JSON number).
func FromAny(v any) (ID, error) {
	switch x := v.(type) {
	case nil:
		return Null(), nil
	case ID:
		return x, nil
	case string:
		if !utf8.ValidString(x) {
			// String would replace the bytes with U+FFFD, so that "\xff"
			// and "\xfe" would be Equal: refused, as Parse refuses them.
			i := 0
			for i < len(x) {
				r, size := utf8.DecodeRuneInString(x[i:])
				if r == utf8.RuneError && size == 1 {
					break
				}
				i += size
			}
			return ID{}, newError("FromAny", x, i, ErrInvalidUTF8, "invalid UTF-8 byte 0x"+strconv.FormatUint(uint64(x[i]), 16)+" in string")
		}
		return String(x), nil
	case json.Number:
		if len(x) > 0 && (jsonwire.IsSpace(x[0]) || jsonwire.IsSpace(x[len(x)-1])) {
			return ID{}, newError("FromAny", string(x), 0, ErrSyntax, "json.Number is not a JSON number")
		}
		id, err := parse([]byte(x), "FromAny")
		if err != nil {
			return ID{}, err
		}
		if k := id.Kind(); k != KindInt && k != KindNumber {
			return ID{}, newError("FromAny", string(x), 0, ErrSyntax, "json.Number is not a JSON number")
		}
		return id, nil
	case json.RawMessage:
		return parse(x, "FromAny")
	case int:
		return Int(int64(x)), nil
	case int8:
		return Int(int64(x)), nil
	case int16:
		return Int(int64(x)), nil
	case int32:
		return Int(int64(x)), nil
	case int64:
		return Int(x), nil
	case uint:
		return fromUint64(uint64(x)), nil
	case uint8:
		return Int(int64(x)), nil
	case uint16:
		return Int(int64(x)), nil
	case uint32:
		return Int(int64(x)), nil
	case uint64:
		return fromUint64(x), nil
	case uintptr:
		return fromUint64(uint64(x)), nil
	case float64:
		return fromFloat(x, 64)
	case float32:
		return fromFloat(float64(x), 32)
	}
	return ID{}, &Error{Func: "FromAny", Offset: -1, Err: ErrType, detail: "Go type " + reflect.TypeOf(v).String() + " is not a JSON string, number or null"}
}

func fromUint64(u uint64) ID {
	if u <= math.MaxInt64 {
		return Int(int64(u))
	}
	var buf [20]byte
	id, _ := Parse(strconv.AppendUint(buf[:0], u, 10))
	return id
}

func fromFloat(f float64, bitSize int) (ID, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ID{}, newError("FromAny", strconv.FormatFloat(f, 'g', -1, 64), -1, ErrRange, "NaN and infinity are not JSON numbers")
	}
	// -2^63 and 2^63 are exact as floats; every float in [-2^63, 2^63) with
	// no fractional part converts to int64 exactly.
	if f >= -(1<<63) && f < 1<<63 && f == math.Trunc(f) {
		return Int(int64(f)), nil
	}
	var buf [32]byte
	return Parse(strconv.AppendFloat(buf[:0], f, 'g', -1, bitSize))
}

// parseFast parses the commonest ids without the general scanner: null, a
// plain JSON integer within int64 of at most 19 digits, and a string that is
// the canonical spelling of such an integer, with no whitespace around them.
// It returns formAbsent for anything else, which the general scanner then
// decides.
func parseFast(data []byte) (int64, form) {
	if len(data) == 4 && string(data) == "null" {
		return 0, formNull
	}
	s, f, neg := intText(data)
	if uint(len(s))-1 >= 19 {
		return 0, formAbsent
	}
	u, ok := digits(s, neg)
	if !ok {
		return 0, formAbsent
	}
	return negate(u, neg), f
}

// digits returns the value of s, 1 to 19 bytes, and true if every byte is
// an ASCII digit and the value is at most math.MaxInt64+neg (neg is 0 or 1,
// for a minus sign). It reads eight digits at a time: first the 1 to 8 that
// leave a multiple of 8, then blocks of 8.
func digits(s []byte, neg uint64) (uint64, bool) {
	head := (len(s)-1)%8 + 1
	var x uint64
	if head >= 4 {
		x = load8(s[:head])
	} else {
		x = load3(s[:head])
	}
	u, ok := eightDigits(x, head)
	for s = s[head:]; len(s) >= 8 && ok; s = s[8:] {
		var v uint64
		v, ok = eightDigits(binary.LittleEndian.Uint64(s), 8)
		u = u*1e8 + v // at most 19 digits: below 2^64
	}
	return u, ok && u <= math.MaxInt64+neg
}

// negate returns u as an int64, negated when neg is 1 (neg is 0 or 1), without
// a branch: u ^ -1 + 1 is -u in two's complement.
func negate(u, neg uint64) int64 { return int64(u ^ -neg + neg) }

// intText finds the digits of an integer id spelled as parseFast accepts
// it: data is -?[1-9][0-9]* or 0, or the same in quotation marks (f is then
// formIntString). It returns the digits without the sign, or none (s empty)
// when data cannot be such an id. neg is 1 for a minus sign, else 0. The
// digits themselves are not checked.
func intText(data []byte) (s []byte, f form, neg uint64) {
	s, f = data, formInt
	if len(s) > 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s, f = s[1:len(s)-1], formIntString
	}
	if len(s) > 1 && s[0] == '-' {
		s, neg = s[1:], 1
	}
	if len(s)+int(neg) > 1 && s[0] == '0' {
		return nil, f, 0 // a leading zero, -0 and "-0" take the general scanner
	}
	return s, f, neg
}

// load8 returns the bytes of s, which has 4 to 8 bytes, as a little-endian
// word: two loads that overlap when s is shorter than 8 bytes, where the
// overlapping bytes are equal, so OR keeps them.
func load8(s []byte) uint64 {
	n := uint(len(s))
	return uint64(binary.LittleEndian.Uint32(s)) | uint64(binary.LittleEndian.Uint32(s[n-4:]))<<(8*(n-4))
}

// load3 returns the bytes of s, which has 1 to 3 bytes, as a little-endian
// word: three loads, which for 1 or 2 bytes read some byte twice, into the
// same place.
func load3(s []byte) uint64 {
	n := uint(len(s))
	return uint64(s[0]) | uint64(s[n/2])<<(8*(n/2)) | uint64(s[n-1])<<(8*(n-1))
}

// eightDigits returns the value of the n digits (1 to 8) in x, as load3 or
// load8 returned them, if they are all ASCII digits. It puts them last in an
// eight-byte little-endian word after leading '0's (01234567 for "1234567")
// and converts that with D. Lemire's method: pairs of digits, then
// quadruples, then all eight, each step with one multiplication.
func eightDigits(x uint64, n int) (uint64, bool) {
	const ones = 0x0101010101010101
	x = x<<(64-8*n) | '0'*ones>>(8*n)
	// Each byte is 0x30..0x39 exactly when its high nibble is 3 and adding 6
	// leaves it 3.
	if x&(0xf0*ones)|(x+6*ones)&(0xf0*ones)>>4 != 0x33*ones {
		return 0, false
	}
	x -= '0' * ones
	x = x*10 + x>>8 // bytes 0, 2, 4, 6: the value of two digits
	return (x&0x000000ff000000ff*(100+1000000<<32) + x>>16&0x000000ff000000ff*(1+10000<<32)) >> 32, true
}

// canonicalInt reports whether s is the canonical decimal spelling of an
// int64, 0|-?[1-9][0-9]* in ASCII, and returns its value.
func canonicalInt[T string | []byte](s T) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	i := 0
	if s[0] == '-' {
		i = 1
	}
	if i == len(s) || s[i] == '0' {
		return 0, len(s) == 1 && s[0] == '0'
	}
	if len(s)-i > 19 {
		return 0, false
	}
	var u uint64
	for ; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		u = u*10 + uint64(c) // at most 19 digits: no overflow
	}
	if s[0] == '-' {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// fault is a scanning error before it becomes an *Error: Parse builds one,
// Pending.TakeJSON does not need one.
type fault struct {
	err    error // sentinel; nil means no fault
	off    int
	detail string
}

// view is one scanned id. It refers to the input by byte offsets, never by
// sub-slices, so that scanning does not let the input escape to the heap
// (go build -gcflags=-m reports no leaking param for Parse and the methods
// built on it). id turns it into an ID, allocating only what must outlive
// the input.
type view struct {
	f form
	n int64 // formInt, formIntString
	// raw is where in the input the contents between the quotes
	// (formString) or the number's text (formNumber) are.
	raw span
	// esc reports whether raw (formString) holds escapes.
	esc bool
	key numberKey // formNumber
}

// span is the byte range [i, j) of the input.
type span struct{ i, j int }

func (s span) of(data []byte) []byte { return data[s.i:s.j] }

func (s span) len() int { return s.j - s.i }

// numberKey is the canonical spelling of a KindNumber: an optional minus
// sign, the significant digits d1 followed by d2 (the digits before and after
// the decimal point, without leading or trailing zeros), and, unless it is
// 0, the exponent: -?[1-9]([0-9]*[1-9])?(e-?[1-9][0-9]*)?. Two numbers have
// the same key exactly when they have the same mathematical value. d1 and d2
// are spans of the input.
type numberKey struct {
	neg    bool
	d1, d2 span
	exp    int64
}

func (k *numberKey) appendTo(b, data []byte) []byte {
	if k.neg {
		b = append(b, '-')
	}
	b = append(b, k.d1.of(data)...)
	b = append(b, k.d2.of(data)...)
	if k.exp != 0 {
		b = append(b, 'e')
		b = strconv.AppendInt(b, k.exp, 10)
	}
	return b
}

func (k *numberKey) writeTo(sb *strings.Builder, data []byte) {
	var buf [24]byte
	if k.neg {
		sb.WriteByte('-')
	}
	sb.Write(k.d1.of(data))
	sb.Write(k.d2.of(data))
	if k.exp != 0 {
		sb.WriteByte('e')
		sb.Write(strconv.AppendInt(buf[:0], k.exp, 10))
	}
}

func (k *numberKey) len() int {
	n := k.d1.len() + k.d2.len()
	if k.neg {
		n++
	}
	if k.exp != 0 {
		var buf [24]byte
		n += 1 + len(strconv.AppendInt(buf[:0], k.exp, 10))
	}
	return n
}

// id returns the ID that v describes; data is the input v was scanned from.
func (v *view) id(data []byte) ID {
	switch v.f {
	case formString:
		raw := v.raw.of(data)
		if !v.esc {
			return ID{s: string(raw), f: formString}
		}
		var sb strings.Builder
		sb.Grow(jsonwire.UnquotedLen(raw))
		unescape(&sb, raw)
		s := sb.String()
		if n, ok := canonicalInt(s); ok {
			return ID{n: n, f: formIntString}
		}
		return ID{s: s, f: formString}
	case formNumber:
		var sb strings.Builder
		sb.Grow(v.raw.len() + v.key.len())
		sb.Write(v.raw.of(data))
		v.key.writeTo(&sb, data)
		return ID{s: sb.String(), n: int64(v.raw.len()), f: formNumber}
	}
	return ID{n: v.n, f: v.f}
}

// scan parses data as one id value with optional whitespace around it. Faults
// of syntax are reported at the first byte that cannot be accepted; a
// value's type (ErrType) or range (ErrRange) is reported only when all of
// data is valid JSON.
func (v *view) scan(data []byte) fault {
	i := jsonwire.SkipSpace(data, 0)
	if i == len(data) {
		return fault{ErrSyntax, i, "no value"}
	}
	start := i
	var sem fault // semantic fault, reported if the syntax is right
	switch c := data[i]; {
	case c == '"':
		var flt fault
		i, flt = v.scanString(data, i)
		if flt.err != nil {
			return flt
		}
	case c == '-' || c-'0' <= 9:
		i, sem = v.scanNumber(data, i)
		if sem.err == ErrSyntax {
			return sem
		}
	case c == 'n':
		var flt fault
		if i, flt = consumeLiteral(data, i, "null"); flt.err != nil {
			return flt
		}
		v.f = formNull
	case c == 't' || c == 'f':
		lit := "true"
		if c == 'f' {
			lit = "false"
		}
		var flt fault
		if i, flt = consumeLiteral(data, i, lit); flt.err != nil {
			return flt
		}
		sem = fault{ErrType, start, lit + " cannot be an id"}
	case c == '{' || c == '[':
		var flt fault
		if i, flt = skipComposite(data, i); flt.err != nil {
			return flt
		}
		sem = fault{ErrType, start, "object or array cannot be an id"}
		if c == '{' {
			sem.detail = "object cannot be an id"
		} else {
			sem.detail = "array cannot be an id"
		}
	default:
		return fault{ErrSyntax, i, "invalid character " + quoteByte(c) + " at start of value"}
	}
	if i = jsonwire.SkipSpace(data, i); i != len(data) {
		return fault{ErrSyntax, i, "invalid character " + quoteByte(data[i]) + " after value"}
	}
	return sem
}

func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

// consumeLiteral checks that lit starts at data[i] and returns the offset
// after it.
func consumeLiteral(data []byte, i int, lit string) (int, fault) {
	j, f := jsonwire.ConsumeLiteral(data, i, lit)
	if f != jsonwire.OK {
		return j, fault{ErrSyntax, j, "invalid literal"}
	}
	return j, fault{}
}

// numberFault turns f, a fault that jsonwire found at offset off in a
// number, into Parse's.
func numberFault(off int, f jsonwire.Fault) fault {
	switch f {
	case jsonwire.FracDigit:
		return fault{ErrSyntax, off, "number needs a digit after the decimal point"}
	case jsonwire.ExpDigit:
		return fault{ErrSyntax, off, "number needs a digit in the exponent"}
	}
	return fault{ErrSyntax, off, "number needs a digit"} // Digit, or EOF after '-'
}

// stringFault turns f, a fault that jsonwire found at data[off] in a
// string, into Parse's.
func stringFault(data []byte, off int, f jsonwire.Fault) fault {
	switch f {
	case jsonwire.EOF:
		return fault{ErrSyntax, off, "unterminated string"}
	case jsonwire.Control:
		return fault{ErrSyntax, off, "control character in string"}
	case jsonwire.Escape:
		return fault{ErrSyntax, off, "invalid escape in string"}
	case jsonwire.Hex:
		return fault{ErrSyntax, off, "invalid \\u escape in string"}
	case jsonwire.UTF8:
		return fault{ErrInvalidUTF8, off, "invalid UTF-8 byte 0x" + strconv.FormatUint(uint64(data[off]), 16) + " in string"}
	}
	return fault{ErrInvalidUTF8, off, "lone surrogate escape in string"}
}

// scanNumber scans the JSON number starting at data[i] and fills v as
// formInt or formNumber. It returns the offset after the number. The fault
// is ErrSyntax for a malformed number, or ErrRange for a number this package
// does not compute with; with ErrRange the returned offset is still the end
// of the number so that the caller can check the syntax of the rest. The
// grammar is RFC 8259 section 6, as jsonwire.ConsumeNumber checks it.
func (v *view) scanNumber(data []byte, i int) (int, fault) {
	end, f := jsonwire.ConsumeNumber(data, i)
	if f != jsonwire.OK {
		return end, numberFault(end, f)
	}
	// The text is a number: take it apart.
	start := i
	neg := data[i] == '-'
	if neg {
		i++
	}
	intStart := i
	for i < end && data[i]-'0' <= 9 {
		i++
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < end && data[i] == '.' {
		i++
		fracStart = i
		for i < end && data[i]-'0' <= 9 {
			i++
		}
		fracEnd = i
	}
	var exp int64
	expStart := i
	if i < end { // e or E
		i++
		expNeg := data[i] == '-'
		if data[i] == '+' || data[i] == '-' {
			i++
		}
		for ; i < end; i++ {
			// Saturate at expSaturated: a larger written exponent cannot
			// bring the value's exponent back below maxExponent.
			if exp < expSaturated/10 {
				exp = exp*10 + int64(data[i]-'0')
			} else {
				exp = expSaturated
			}
		}
		if expNeg {
			exp = -exp
		}
	}
	v.raw = span{start, end}

	// The value is digits × 10^(exp - len(frac)), where digits is the
	// integer spelled by int and frac together. Find its significant digits:
	// d1, a tail of int, then d2, a head of frac.
	var d1, d2 span
	if lo := firstNonZero(data, intStart, intEnd); lo < intEnd {
		d1 = span{lo, intEnd}
		d2 = span{fracStart, fracEnd}
	} else {
		d2 = span{firstNonZero(data, fracStart, fracEnd), fracEnd}
	}
	// Trailing zeros: strip them from d2, then (if d2 is empty) from d1.
	tz := 0
	if d2.len() > 0 {
		n := lastNonZero(data, d2.i, d2.j) + 1
		tz = d2.j - n
		d2.j = n
	}
	scale := -int64(fracEnd-fracStart) + int64(tz)
	if d2.len() == 0 && d1.len() > 0 {
		n := lastNonZero(data, d1.i, d1.j) + 1
		scale += int64(d1.j - n)
		d1.j = n
	}
	if d1.len() == 0 && d2.len() == 0 {
		// Zero, whatever the sign and exponent: -0, 0.0, 0e99999999999999999999.
		v.f, v.n = formInt, 0
		return end, fault{}
	}
	e := exp + scale
	if e >= maxExponent || e <= -maxExponent {
		return end, fault{ErrRange, expStart, "exponent of the value in lowest terms has 19 or more digits"}
	}
	nd := int64(d1.len() + d2.len())
	if e >= 0 && nd+e <= 19 {
		// An integer of at most 19 digits: it fits in a uint64.
		var u uint64
		for _, c := range d1.of(data) {
			u = u*10 + uint64(c-'0')
		}
		for _, c := range d2.of(data) {
			u = u*10 + uint64(c-'0')
		}
		for z := e; z > 0; z-- {
			u *= 10
		}
		if neg && u <= 1<<63 {
			v.f, v.n = formInt, -int64(u)
			return end, fault{}
		}
		if !neg && u <= math.MaxInt64 {
			v.f, v.n = formInt, int64(u)
			return end, fault{}
		}
	}
	v.f = formNumber
	v.key = numberKey{neg: neg, d1: d1, d2: d2, exp: e}
	return end, fault{}
}

// maxExponent bounds the exponent e of a number's value in lowest terms,
// d × 10^e with d an integer not divisible by 10: Parse refuses a number with
// |e| >= maxExponent (ErrRange). The bound depends on the value, not on its
// spelling, so that a value is accepted in every spelling or in none, and
// every Key spells a number that Parse accepts.
const maxExponent = 1_000_000_000_000_000_000

// expSaturated caps the written exponent while it is read. Any written
// exponent at or above it puts the value's exponent at or above maxExponent
// for every input shorter than 3×10^18 bytes.
const expSaturated = 4 * maxExponent

// firstNonZero returns the index of the first byte of data[i:j] that is not
// '0', or j.
func firstNonZero(data []byte, i, j int) int {
	for i < j && data[i] == '0' {
		i++
	}
	return i
}

// lastNonZero returns the index of the last byte of data[i:j] that is not
// '0', or i-1.
func lastNonZero(data []byte, i, j int) int {
	j--
	for j >= i && data[j] == '0' {
		j--
	}
	return j
}

// scanString scans the JSON string whose opening quotation mark is at
// data[i] and fills v as formString or formIntString. It returns the offset
// after the closing quotation mark. The contents are checked as
// jsonwire.ConsumeString checks them: no unescaped control characters,
// valid escapes, valid UTF-8, and no \u escape of a lone surrogate.
func (v *view) scanString(data []byte, i int) (int, fault) {
	end, esc, f := jsonwire.ConsumeString(data, i)
	if f != jsonwire.OK {
		return end, stringFault(data, end, f)
	}
	raw := span{i + 1, end - 1}
	if !esc {
		if n, ok := canonicalInt(raw.of(data)); ok {
			v.f, v.n = formIntString, n
			return end, fault{}
		}
	}
	v.f, v.raw, v.esc = formString, raw, esc
	return end, fault{}
}

// unescape writes the decoded contents of raw, the checked contents of a
// JSON string between its quotation marks, to sb.
func unescape(sb *strings.Builder, raw []byte) {
	for i := 0; i < len(raw); {
		j := indexBackslash(raw, i)
		sb.Write(raw[i:j])
		if j == len(raw) {
			return
		}
		r, size := jsonwire.DecodeEscape(raw, j)
		sb.WriteRune(r)
		i = j + size
	}
}

// indexBackslash returns the offset of the first reverse solidus at or after
// data[i], or len(data). It is bytes.IndexByte written in Go, eight bytes a
// step: the compiler must assume that an assembly function such as
// bytes.IndexByte may write to its argument, and would then copy every
// []byte(s) that a caller converts at the call to Parse.
func indexBackslash(data []byte, i int) int {
	const ones = 0x0101010101010101
	for ; i+8 <= len(data); i += 8 {
		b := binary.LittleEndian.Uint64(data[i:]) ^ ('\\' * ones) // a zero byte where data has '\\'
		if (b-ones)&^b&(0x80*ones) != 0 {
			break
		}
	}
	for i < len(data) && data[i] != '\\' {
		i++
	}
	return i
}

// skipComposite checks the object or array starting at data[i] and returns
// the offset after it. It keeps its own stack, so deep nesting cannot
// exhaust the goroutine stack.
func skipComposite(data []byte, i int) (int, fault) {
	var stack []byte // open '{' and '[' in order
	var v view
	for {
		// At the start of a value.
		i = jsonwire.SkipSpace(data, i)
		if i >= len(data) {
			return i, fault{ErrSyntax, i, "unexpected end of input"}
		}
		var flt fault
		switch c := data[i]; {
		case c == '{' || c == '[':
			stack = append(stack, c)
			i = jsonwire.SkipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i, flt = skipMemberName(data, i); flt.err != nil {
					return i, flt
				}
			}
			continue
		case c == '"':
			i, flt = v.scanString(data, i)
		case c == '-' || c-'0' <= 9:
			var f jsonwire.Fault
			if i, f = jsonwire.ConsumeNumber(data, i); f != jsonwire.OK {
				flt = numberFault(i, f)
			}
		case c == 'n' || c == 't' || c == 'f':
			lit := "null"
			if c == 't' {
				lit = "true"
			} else if c == 'f' {
				lit = "false"
			}
			i, flt = consumeLiteral(data, i, lit)
		default:
			return i, fault{ErrSyntax, i, "invalid character " + quoteByte(c) + " at start of value"}
		}
		if flt.err != nil {
			return i, flt
		}
		// After a value: close containers or find the next element.
		for {
			if len(stack) == 0 {
				return i, fault{}
			}
			i = jsonwire.SkipSpace(data, i)
			if i >= len(data) {
				return i, fault{ErrSyntax, i, "unexpected end of input"}
			}
			top := stack[len(stack)-1]
			if data[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return i, fault{ErrSyntax, i, "invalid character " + quoteByte(data[i]) + " after element"}
			}
			i++
			if top == '{' {
				i = jsonwire.SkipSpace(data, i)
				if i, flt = skipMemberName(data, i); flt.err != nil {
					return i, flt
				}
			}
			break
		}
	}
}

// skipMemberName checks an object member's name and the name separator at
// data[i] and returns the offset after the separator.
func skipMemberName(data []byte, i int) (int, fault) {
	if i >= len(data) || data[i] != '"' {
		if i >= len(data) {
			return i, fault{ErrSyntax, i, "unexpected end of input"}
		}
		return i, fault{ErrSyntax, i, "object member name must be a string"}
	}
	var v view
	i, flt := v.scanString(data, i)
	if flt.err != nil {
		return i, flt
	}
	i = jsonwire.SkipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		if i >= len(data) {
			return i, fault{ErrSyntax, i, "unexpected end of input"}
		}
		return i, fault{ErrSyntax, i, "expected ':' after object member name"}
	}
	return i + 1, fault{}
}
