package rpcid

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The sentinel errors. Every error returned by this package is an *Error
// whose Err field is one of these, so callers test with errors.Is.
var (
	// ErrSyntax reports input that is not one JSON value (RFC 8259)
	// surrounded by optional JSON whitespace: empty input, a malformed
	// literal, number or string, or a second value after the first.
	ErrSyntax = errors.New("invalid JSON")

	// ErrInvalidUTF8 reports a JSON string whose contents are not valid
	// UTF-8 (RFC 8259 section 8.1), or that contains a \u escape of a lone
	// UTF-16 surrogate (section 8.2). encoding/json accepts both and
	// silently replaces them with U+FFFD; an id changed that way would match
	// the wrong request, so this package refuses them.
	ErrInvalidUTF8 = errors.New("invalid UTF-8 in string")

	// ErrType reports a value that is valid JSON but cannot be used as an
	// id where it appears: an object, array, true or false anywhere (JSON-RPC
	// 2.0 section 4 allows only a string, number or null), and a null or
	// absent id where a request must be correlated (Pending.Add) or a JSON
	// value must be written (MarshalJSON of the zero ID).
	ErrType = errors.New("value cannot be an id")

	// ErrRange reports a number this package refuses to compute with: a
	// number whose value in lowest terms, d × 10^e with d an integer not
	// divisible by 10, has |e| >= 10^18 (1e1000000000000000000 and
	// 10e999999999999999999 are refused, 1e999999999999999999 and
	// 0.1e1000000000000000000 are not); or a float NaN or infinity given to
	// FromAny. The bound is on the value, not the spelling, so a value is
	// refused in every spelling or in none.
	ErrRange = errors.New("number out of range")

	// ErrDuplicate reports a Pending.Add of an id Equal to one already pending.
	// JSON-RPC 2.0 leaves ids in flight unmatched otherwise; MCP requires
	// that a request id is not reused within a session.
	ErrDuplicate = errors.New("id already pending")
)

// maxErrorInput is how many bytes of the input an Error keeps, at most.
const maxErrorInput = 64

// Error describes why an id could not be parsed, converted or added. It
// never holds on to the caller's buffer: Input is a copy of at most 64 bytes.
type Error struct {
	// Func names the operation that failed: "Parse", "FromAny",
	// "UnmarshalJSON", "MarshalJSON", "Pending.Add" or
	// "Pending.TakeJSONMatch".
	Func string

	// Input is a copy of the first 64 bytes (at most) of the input that
	// failed, for the message. For Pending.Add and MarshalJSON it is the
	// id's JSON spelling (as ID.String writes it), "" for the absent id; for
	// FromAny of a Go type that cannot be an id it is "".
	Input string

	// Offset is the byte offset in the input where the fault was found:
	// the first byte that could not be accepted, the first byte of a value
	// of the wrong type or of an exponent out of range, or the length of the
	// input when it ended too soon. It is -1 when the fault is not in JSON
	// text: a Go value given to FromAny, an ID given to Pending.Add or
	// MarshalJSON.
	Offset int

	// Err is the sentinel: ErrSyntax, ErrInvalidUTF8, ErrType, ErrRange or
	// ErrDuplicate.
	Err error

	// detail says what was wrong in words, for the message.
	detail string
	// truncated reports that Input is a prefix of a longer input.
	truncated bool
	// id reports that Input is an ID's JSON spelling, which the message
	// shows as it is, or "" for the absent id.
	id bool
}

// Error returns a message of the form
//
//	rpcid: Parse "01": invalid character '1' after value at byte offset 1: invalid JSON
//
// Input text is quoted as a Go string, except that an ID (Pending.Add,
// MarshalJSON) is shown in its JSON spelling, as ID.String writes it:
//
//	rpcid: Pending.Add "7": an Equal id is in flight: id already pending
//	rpcid: Pending.Add absent id: no response can be matched to a notification: value cannot be an id
func (e *Error) Error() string {
	b := make([]byte, 0, 64+len(e.Input)+len(e.detail))
	b = append(b, "rpcid: "...)
	b = append(b, e.Func...)
	switch {
	case e.id && e.Input == "":
		b = append(b, " absent id"...)
	case e.id:
		b = append(b, ' ')
		b = append(b, e.Input...)
	case e.Input != "" || e.Offset >= 0:
		b = append(b, ' ')
		b = strconv.AppendQuote(b, e.Input)
	}
	if e.truncated {
		b = append(b, "..."...)
	}
	b = append(b, ": "...)
	if e.detail != "" {
		b = append(b, e.detail...)
		if e.Offset >= 0 {
			b = append(b, ' ')
		}
	}
	if e.Offset >= 0 {
		b = append(b, "at byte offset "...)
		b = strconv.AppendInt(b, int64(e.Offset), 10)
	}
	b = append(b, ": "...)
	if e.Err != nil {
		b = append(b, e.Err.Error()...)
	} else {
		b = append(b, "error"...)
	}
	return string(b)
}

// Unwrap returns e.Err, so that errors.Is(err, ErrSyntax) and the like work.
func (e *Error) Unwrap() error { return e.Err }

// newError builds an *Error, copying a bounded prefix of input.
func newError[T string | []byte](fn string, input T, off int, sentinel error, detail string) *Error {
	truncated := len(input) > maxErrorInput
	if truncated {
		input = input[:maxErrorInput]
	}
	// strings.Clone: a substring of a string input would keep all of it alive.
	return &Error{Func: fn, Input: strings.Clone(string(input)), Offset: off, Err: sentinel, detail: detail, truncated: truncated}
}

// idError builds an *Error about an ID given to fn, which Input holds in
// its JSON spelling: a copy of at most its first 64 bytes, cut before a
// UTF-8 sequence rather than inside it; "" for the absent id.
func idError(fn string, id ID, sentinel error, detail string) *Error {
	s := ""
	if id.f != formAbsent {
		s = id.String()
	}
	truncated := len(s) > maxErrorInput
	if truncated {
		n := maxErrorInput
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	// strings.Clone: the spelling of a KindNumber is a substring of the ID's.
	return &Error{Func: fn, Input: strings.Clone(s), Offset: -1, Err: sentinel, detail: detail, truncated: truncated, id: true}
}
