// Package rpcid reads, writes and matches JSON-RPC 2.0 request ids exactly.
//
// A JSON-RPC response is matched to its request by id, which may be a string,
// a number or null (JSON-RPC 2.0 section 4). Intermediaries such as HTTP
// gateways and session bridges change an id's JSON type in transit: a client
// sends "id":0 and receives "id":"0". This package defines when two ids are
// the same, and implements that rule without floating point, allocating only
// to keep a number that is not an integer within int64 (1.5, or
// 9223372036854775808) or a string that is not the canonical spelling of
// one written without escapes ("req-1" and "\u0037", but not "42").
//
// # The rule
//
// An id on the wire is one JSON value (RFC 8259), optionally surrounded by
// JSON whitespace. In the grammar below, number, string and ws are as in
// RFC 8259 sections 6, 7 and 2; a string's value is its contents with escapes
// resolved.
//
//	id        = ws ( null / number / string ) ws
//	ws        = *( %x20 / %x09 / %x0A / %x0D )     ; no BOM, NBSP or other space
//	canonical = "0" / [ "-" ] %x31-39 *%x30-39      ; ASCII only, value within int64
//
// Kinds and equality follow from the value received:
//
//  1. null is KindNull. It is equal only to null.
//  2. A number whose exact mathematical value is an integer n with
//     -2^63 <= n <= 2^63-1 is KindInt n, whatever its spelling: -0, 1.0, 1e3
//     and 100e-2 are 0, 1, 1000 and 1. Values are computed exactly, never
//     through float64, so 9007199254740993 stays 9007199254740993.
//  3. Any other number (fractional, or an integer outside int64) is
//     KindNumber. Its text is kept as received, and it equals another number
//     of the same exact value: 1.5, 15e-1 and 1.50 are equal, as are 1e400
//     and 10e399. A nonzero number d × 10^e in lowest terms (d an integer
//     not divisible by 10) with |e| >= 10^18 is refused with ErrRange rather
//     than computed slowly or wrongly: 1e999999999999999999 is accepted,
//     10e999999999999999999 is not; zero is accepted in every spelling
//     (0e99999999999999999999 is the integer 0).
//  4. A string is KindString with its escapes resolved. Invalid UTF-8 and \u
//     escapes of lone surrogates are refused with ErrInvalidUTF8.
//  5. A string equals the integer id n exactly when its value matches
//     canonical and denotes n: "0" equals 0, "-12" equals -12 and
//     "9223372036854775807" equals 2^63-1. "00", "01", "-0", "+1", " 1",
//     "1 ", "1.0", "1e0", "0x1", "１" (fullwidth), "١" (Arabic-Indic), "1_0",
//     "" and "9223372036854775808" equal no number. A string never equals a
//     KindNumber id.
//  6. Otherwise two strings are equal when their values are identical bytes:
//     no Unicode normalization, no case folding. "\u0041" equals "A".
//  7. The zero ID is KindAbsent: there was no id (a notification, or no id
//     member). It is not null, and equals only itself.
//
// Equal is an equivalence relation, and it does not matter which side sent
// which form: Equal(a, b) is Equal(b, a). Key gives each id a comparable
// canonical form such that a.Key() == b.Key() exactly when Equal(a, b).
//
// # Why this rule
//
// Canonical spellings only: when parsers disagree about a form, the safe
// answer is to reject it rather than to guess. JavaScript's Number accepts
// " 1", "0x1" and "" (as 0); Python's int accepts "1_0" (as 10) and
// non-ASCII digits; Rust's i64::from_str accepts "+1" and "01". Each of these
// matches a response to a request that a peer written in another language
// would not, or to the wrong request. net/netip rejects IPv4 addresses with
// leading zeros for the same reason (golang/go#49365).
//
// Symmetric: gateways turn numbers into strings, and servers also turn a
// string id they receive back into a number, so neither direction may be
// privileged.
//
// Exact: implementations that decode ids through float64 truncate 1.5 to 1,
// round 2^53+1 to 2^53, and overflow 2^63-1; all of these match responses to
// the wrong request.
//
// # Using it
//
// Parse or UnmarshalJSON an id from a message's "id" member; keep requests in
// flight in a Pending table and match each response with Pending.Take,
// Pending.TakeJSON, or Pending.TakeJSONMatch, which also tells an id that
// matches nothing from a null and an invalid one; write the id back with
// AppendJSON or MarshalJSON, which preserve the form that was received. An ID is comparable with == (same
// form) and has a Key for maps indexed by the rule.
//
// Errors are of type *Error, carrying the byte offset of the fault, and wrap
// one of ErrSyntax, ErrInvalidUTF8, ErrType, ErrRange and ErrDuplicate for
// errors.Is. No input makes this package panic, except MustParse by design.
package rpcid
