// Package mediatype says which HTTP media types hold JSON-RPC messages, for
// package httpid and rpcid check alike, so that the two read the same
// bodies. Each function takes a media type without parameters (type/subtype,
// as written) and compares it ignoring ASCII case (RFC 9110 section 8.3.1),
// without allocating.
package mediatype

import "strings"

// IsJSON reports whether mt is a type of one JSON text (or of JSON texts
// back to back): application/json (RFC 8259 section 11), a +json type (RFC
// 6839 section 3.1), or one of the two other types JSON-RPC over HTTP names,
// application/json-rpc and application/jsonrequest. The JSON-RPC over HTTP
// draft (JSON-RPC Working Group, 2008-01-15, section "HTTP Header") says
// that a request's Content-Type and Accept "SHOULD be application/json-rpc
// but MAY be application/json or application/jsonrequest", and its examples
// answer with application/json-rpc. The Zabbix API requires a request to
// carry one of the three, and the examples in its documentation send
// application/json-rpc, as clients of Cisco NX-API's JSON-RPC interface do.
//
// Types that are not JSON (text/plain, application/javascript, forms) are
// not: a body labelled so passes unexamined.
func IsJSON(mt string) bool {
	return mt == "application/json" || strings.EqualFold(mt, "application/json") ||
		strings.EqualFold(mt, "application/json-rpc") || strings.EqualFold(mt, "application/jsonrequest") ||
		hasSuffixFold(mt, "+json")
}

// lineTypes are the media types of newline-delimited JSON in use: NDJSON,
// JSON Lines, and Spring's and others' application/stream+json.
var lineTypes = [...]string{
	"application/x-ndjson", "application/ndjson", "application/jsonl",
	"application/jsonlines", "application/x-jsonlines", "application/stream+json",
}

// IsLines reports whether mt is a type of newline-delimited JSON texts, one
// a line: NDJSON, JSON Lines, application/stream+json, or a JSON text
// sequence (IsSeq).
func IsLines(mt string) bool {
	for _, lt := range lineTypes {
		if strings.EqualFold(mt, lt) {
			return true
		}
	}
	return IsSeq(mt)
}

// IsSeq reports whether mt is a JSON text sequence type (RFC 7464, RFC
// 8091): application/json-seq or a +json-seq type, each text starting with
// the record separator U+001E and ending with LF.
func IsSeq(mt string) bool {
	return strings.EqualFold(mt, "application/json-seq") || hasSuffixFold(mt, "+json-seq")
}

// IsEventStream reports whether mt is text/event-stream.
func IsEventStream(mt string) bool {
	return strings.EqualFold(mt, "text/event-stream")
}

// hasSuffixFold reports whether s ends with suffix, ignoring ASCII case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// BOM is the UTF-8 encoding of U+FEFF, the byte order mark. RFC 8259
// section 8.1: implementations "MUST NOT add a byte order mark (U+FEFF) to
// the beginning of a networked-transmitted JSON text", but "MAY ignore the
// presence of a byte order mark rather than treating it as an error".
const BOM = "\xef\xbb\xbf"

// TrimBOM returns b without the byte order mark it starts with, and
// whether there was one. Only one is removed: readers that skip a BOM
// (the Encoding standard's UTF-8 decode, which fetch's Response.json()
// uses; Python's json.loads of bytes; System.Text.Json's stream readers)
// skip one, and fail on a second.
func TrimBOM(b []byte) ([]byte, bool) {
	if len(b) >= len(BOM) && b[0] == BOM[0] && b[1] == BOM[1] && b[2] == BOM[2] {
		return b[len(BOM):], true
	}
	return b, false
}
