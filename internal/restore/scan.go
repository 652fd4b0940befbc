package restore

import (
	"bytes"
	"encoding/json"
	"io"
)

// A span is the byte range [start, end) of one "id" member's value inside a
// JSON text.
type span struct{ start, end int }

// A message kind selects which JSON-RPC messages scanIDs reports.
type kind uint8

const (
	// requests are objects with a "method" member (JSON-RPC 2.0 section 4);
	// notifications among them have no "id" and are not reported.
	requests kind = iota
	// responses are objects with a "result" or "error" member and no
	// "method" member (section 5). Requests sent by the server to the
	// client have a "method" member, so their ids are never reported.
	responses
)

// scanIDs appends to dst the span of the "id" member of each top-level
// JSON-RPC message of kind k in data, which must be a single JSON object (one
// message) or an array (a batch, section 6) with optional whitespace around
// it. Array elements that are not objects are skipped. A message with more than
// one "id" member is skipped: parsers disagree about which one counts, and
// this package never guesses. Member names are compared exactly, as JSON-RPC
// requires (encoding/json's case-insensitive field matching is not used).
//
// ok is false when data is not such a JSON text; dst is then returned
// unchanged. The spans are in increasing order.
//
// The scan uses encoding/json.Decoder's tokens and InputOffset, so it agrees
// with encoding/json about what JSON is.
func scanIDs(dst []span, data []byte, k kind) (_ []span, ok bool) {
	n := len(dst)
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return dst, false
	}
	switch tok {
	case json.Delim('{'):
		if dst, ok = scanObject(dst, dec, 0, k); !ok {
			return dst[:n], false
		}
	case json.Delim('['):
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return dst[:n], false
			}
			if raw[0] != '{' {
				continue
			}
			end := int(dec.InputOffset())
			start := end - len(raw)
			sub := json.NewDecoder(bytes.NewReader(raw))
			if _, err := sub.Token(); err != nil {
				return dst[:n], false
			}
			if dst, ok = scanObject(dst, sub, start, k); !ok {
				return dst[:n], false
			}
		}
		if _, err := dec.Token(); err != nil { // the closing ']'
			return dst[:n], false
		}
	default:
		return dst[:n], false
	}
	if _, err := dec.Token(); err != io.EOF { // nothing may follow the value
		return dst[:n], false
	}
	return dst, true
}

// scanObject reads the members of an object whose '{' dec has just returned,
// through its closing '}', and appends the id span of a message of kind k.
// base is the offset of dec's input within the whole text.
func scanObject(dst []span, dec *json.Decoder, base int, k kind) ([]span, bool) {
	var (
		id                             span
		ids                            int
		hasMethod, hasResult, hasError bool
	)
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return dst, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return dst, false
		}
		switch key {
		case "id":
			ids++
			end := int(dec.InputOffset())
			id = span{base + end - len(raw), base + end}
		case "method":
			hasMethod = true
		case "result":
			hasResult = true
		case "error":
			hasError = true
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return dst, false
	}
	if ids != 1 {
		return dst, true
	}
	switch {
	case k == requests && hasMethod, k == responses && !hasMethod && (hasResult || hasError):
		dst = append(dst, id)
	}
	return dst, true
}
