package restore

import "github.com/rpcid/rpcid/internal/scan"

// scanMessages returns the messages of data, one JSON text, scanned into
// buf, and true; none and false if data is not a JSON text as internal/scan
// defines it (RFC 8259, valid UTF-8, no lone surrogate escapes), with
// optional whitespace around it.
func scanMessages(buf []scan.Message, data []byte) ([]scan.Message, bool) {
	msgs, _, err := scan.Scan(buf, data)
	if err != nil {
		return nil, false
	}
	return msgs, true
}

// kindMembers are the members that decide what kind of message an object
// is and which request it answers. If any of them is named twice, or by a
// case variant that encoding/json's case-insensitive struct decoding takes
// for it ("ID", "Method", "reſult"), JSON-RPC implementations disagree about
// the message, and it is left alone.
const kindMembers = scan.ID | scan.Method | scan.Result | scan.Error

// isRequest reports whether m, scanned from data, is a JSON-RPC 2.0 request
// with an id (section 4): an object with "jsonrpc":"2.0", a "method" member
// and an "id" member, each named once and exactly.
func isRequest(m *scan.Message, data []byte) bool {
	return m.IsJSONRPC20(data) && m.Unambiguous(kindMembers) && m.Method.End != 0 && m.ID.End != 0
}

// isResponse reports whether m, scanned from data, is a JSON-RPC 2.0
// response (section 5): an object with "jsonrpc":"2.0", an "id" member, a
// "result" or "error" member and no "method" member, each named at most
// once and exactly. Requests the server sends to the client have a "method"
// member, and carry ids from the server's own sequence.
func isResponse(m *scan.Message, data []byte) bool {
	return m.IsJSONRPC20(data) && m.Unambiguous(kindMembers) && m.Method.End == 0 &&
		(m.Result.End != 0 || m.Error.End != 0) && m.ID.End != 0
}
