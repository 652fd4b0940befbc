package main

import (
	"encoding/json"
	"errors"
)

// fields are the members of one top-level message (or batch element) that
// check reads: each the raw JSON text of the member's value, nil when the
// member is absent.
type fields struct {
	value                                     []byte // the message itself
	object                                    bool   // value is an object; the members are set only then
	version, id, method, result, errv, params []byte
}

// textError says why a text is not JSON: Offset is the byte offset of the
// fault.
type textError struct {
	Offset int64
	Reason string
}

// scanText reads one JSON text that should be a JSON-RPC message or batch,
// appending to dst one fields per top-level message: one for an object or
// any other value, one per element of a batch array. batch reports whether
// data was an array. This is the only place check decodes messages, so
// that the decoding can change in one place.
func scanText(dst []fields, data []byte) (msgs []fields, batch bool, err *textError) {
	if !json.Valid(data) {
		var v json.RawMessage
		e := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(e, &se) {
			return dst, false, &textError{Offset: se.Offset, Reason: se.Error()}
		}
		return dst, false, &textError{Offset: -1, Reason: e.Error()}
	}
	i := 0
	for i < len(data) && isJSONSpace(data[i]) {
		i++
	}
	if data[i] != '[' {
		return append(dst, readFields(data[i:])), false, nil
	}
	var elems []json.RawMessage
	if e := json.Unmarshal(data, &elems); e != nil {
		return dst, true, &textError{Offset: -1, Reason: e.Error()}
	}
	for _, m := range elems {
		dst = append(dst, readFields(m))
	}
	return dst, true, nil
}

// readFields frames the members of one valid JSON value.
func readFields(v []byte) fields {
	f := fields{value: v}
	if len(v) == 0 || v[0] != '{' {
		return f
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return f
	}
	f.object = true
	f.version, f.id, f.method = m["jsonrpc"], m["id"], m["method"]
	f.result, f.errv, f.params = m["result"], m["error"], m["params"]
	return f
}
