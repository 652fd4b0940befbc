// Package scan finds the members that decide a JSON-RPC 2.0 message's
// meaning (id, method, result, error, jsonrpc, params) in one pass over a
// JSON text, without decoding anything and without allocating.
//
// Scan validates the whole text as strictly as rpcid.Parse validates an id:
// RFC 8259 exactly, and in addition invalid UTF-8 (section 8.1) and \u
// escapes of lone UTF-16 surrogates (section 8.2) are errors, where
// encoding/json accepts both and replaces them with U+FFFD. Like
// encoding/json it refuses nesting deeper than 10000 arrays and objects, so
// every text it accepts is one json.Valid accepts. Member values are only
// checked and skipped; their spans point into the caller's text. An error
// reports the offset of the first byte that could not be accepted.
//
// Member names are compared as encoding/json compares them when it decodes
// into a struct: exactly, and also case-insensitively by Unicode simple case
// folding (bytes.EqualFold), so "ID", "Id", "jSONRPC" and "reſult" (U+017F
// LATIN SMALL LETTER LONG S) all count. Message.Dup reports members named
// more than once in this sense and Message.Fold members named by a case
// variant, so that a caller can leave alone a message whose meaning depends
// on which JSON-RPC implementation reads it (JSON-RPC 2.0 member names are
// case-sensitive, encoding/json's matching is not).
//
// The scanner is plain Go on every platform: it walks nested arrays and
// objects with a bit stack rather than by recursion, checks short strings
// and integers in line, and skips the plain bytes of longer strings eight
// at a time.
//
// The package is internal because its shape serves rpcid's own tools
// (httpid, internal/restore under the rpcid proxy, and rpcid check): the
// Message layout and the choice of members are implementation details that
// the module does not promise to keep, while the root package's public
// surface stays the id rule itself.
package scan
