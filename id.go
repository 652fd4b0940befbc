package rpcid

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Kind is the kind of an ID: which of the JSON values allowed by JSON-RPC 2.0
// section 4 it is, or none.
type Kind uint8

// The kinds of ID.
const (
	// KindAbsent is the zero ID: no id member at all (a notification). It
	// is not null.
	KindAbsent Kind = iota
	// KindNull is the JSON literal null.
	KindNull
	// KindInt is a JSON number whose exact value is an integer within int64,
	// however it was spelled: 7, 7.0, 70e-1 and 0.7e1 are all KindInt 7.
	KindInt
	// KindNumber is any other JSON number: fractional (1.5), or an integer
	// outside int64 (9223372036854775808, 1e400). Its text is kept as
	// received.
	KindNumber
	// KindString is a JSON string.
	KindString
)

var kindNames = [...]string{"absent", "null", "int", "number", "string"}

// String returns the lower-case name of k: "absent", "null", "int",
// "number" or "string", or "Kind(N)" for a value outside the constants.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// form is how an ID is stored. It refines Kind: a string whose contents are
// the canonical decimal spelling of an int64 is kept as that integer, so that
// parsing "1234" allocates nothing and == stays exact.
type form uint8

const (
	formAbsent    form = form(KindAbsent)
	formNull      form = form(KindNull)
	formInt       form = form(KindInt)
	formNumber    form = form(KindNumber)
	formString    form = form(KindString)
	formIntString form = iota // string with contents strconv.FormatInt(n, 10)
)

// An ID is a JSON-RPC 2.0 request id: absent, null, a number or a string.
//
// An ID is a small value (32 bytes on 64-bit systems) that is immutable and
// comparable: == reports whether two IDs were received in the same form, and
// IDs can be map keys. The zero ID is absent. Two IDs that differ only in
// form, such as Int(5) and String("5"), are not == but are Equal; use Key to
// index a map by the matching rule.
//
// == on IDs compares forms exactly: Int(5) == MustParse("5.0") (both are the
// integer 5), String("5") == MustParse(`"\u0035"`) (both are the string "5"),
// while MustParse("1.5") != MustParse("15e-1") (two spellings of one
// KindNumber, which AppendJSON writes back as received).
type ID struct {
	// s holds the contents of a formString, or for a formNumber the number
	// text as received followed by its canonical key (see numberKey); n then
	// gives the length of the text as received.
	s string
	// n is the value of a formInt or formIntString.
	n int64
	f form
}

// Int returns the integer id n (KindInt).
func Int(n int64) ID { return ID{n: n, f: formInt} }

// Null returns the null id (KindNull).
func Null() ID { return ID{f: formNull} }

// String returns the string id with contents s (KindString). Each byte of s
// that is not part of valid UTF-8 is replaced by U+FFFD, as encoding/json
// does when marshalling, so that every ID can be written as JSON and read
// back unchanged.
func String(s string) ID {
	if n, ok := canonicalInt(s); ok {
		return ID{n: n, f: formIntString}
	}
	if !utf8.ValidString(s) {
		s = replaceInvalidUTF8(s)
	}
	return ID{s: s, f: formString}
}

// replaceInvalidUTF8 returns s with each byte that is not part of valid
// UTF-8 replaced by U+FFFD.
func replaceInvalidUTF8(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// Kind returns the kind of id.
func (id ID) Kind() Kind {
	if id.f == formIntString {
		return KindString
	}
	return Kind(id.f)
}

// IsZero reports whether id is the zero ID, that is, absent. A null id is
// not zero. Since Go 1.24, encoding/json's omitzero option uses IsZero to
// leave an absent id out.
func (id ID) IsZero() bool { return id.f == formAbsent }

// Int64 returns the value of an integer id (KindInt) and true, or 0 and
// false for every other kind: String("42").Int64() is (0, false).
func (id ID) Int64() (int64, bool) {
	if id.f == formInt {
		return id.n, true
	}
	return 0, false
}

// StringValue returns the decoded contents of a string id (KindString) and
// true, or "" and false for every other kind.
func (id ID) StringValue() (string, bool) {
	switch id.f {
	case formString:
		return id.s, true
	case formIntString:
		return strconv.FormatInt(id.n, 10), true
	}
	return "", false
}

// Number returns the JSON number text of a numeric id and true: for KindInt
// the canonical decimal spelling, for KindNumber the text as received. For
// every other kind it returns "" and false.
func (id ID) Number() (json.Number, bool) {
	switch id.f {
	case formInt:
		return json.Number(strconv.FormatInt(id.n, 10)), true
	case formNumber:
		return json.Number(id.s[:id.n]), true
	}
	return "", false
}

// String returns the JSON spelling of id, as AppendJSON writes it, for logs
// and %v. The zero ID, which has no JSON spelling, is written as absent
// (without quotes, so it cannot be mistaken for the string id "absent").
func (id ID) String() string {
	switch id.f {
	case formAbsent:
		return "absent"
	case formNull:
		return "null"
	case formInt:
		return strconv.FormatInt(id.n, 10)
	case formNumber:
		return id.s[:id.n]
	}
	return string(id.AppendJSON(make([]byte, 0, len(id.s)+2)))
}
