package check

import (
	"errors"
	"strings"

	"github.com/rpcid/rpcid/internal/scan"
)

// fields are the members of one top-level message (or batch element) that
// check reads: each the raw JSON text of the member's value, nil when the
// member is absent.
type fields struct {
	value                                     []byte // the message itself
	object                                    bool   // value is an object; the members are set only then
	version, id, method, result, errv, params []byte
	// dup and fold are the members that peers read differently: named
	// twice, or by a case variant ("ID") that encoding/json takes for the
	// member and exact readers do not (see scan.Message).
	dup, fold scan.Member
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
// data was an array. This is the only place check reads messages: with the
// one-pass scanner of internal/scan (RFC 8259, strict UTF-8), spans into
// data and no allocation when dst and sc have room.
func scanText(dst []fields, sc *[]scan.Message, data []byte) (msgs []fields, batch bool, err *textError) {
	ms, batch, e := scan.Scan((*sc)[:0], data)
	*sc = ms[:0]
	if e != nil {
		var se *scan.SyntaxError
		if errors.As(e, &se) {
			return dst, false, &textError{Offset: int64(se.Offset), Reason: syntaxReason(se)}
		}
		return dst, false, &textError{Offset: -1, Reason: e.Error()}
	}
	for i := range ms {
		m := &ms[i]
		f := fields{value: m.Value.Bytes(data), object: m.Object}
		if m.Object {
			f.version, f.id, f.method = m.JSONRPC.Bytes(data), m.ID.Bytes(data), m.Method.Bytes(data)
			f.result, f.errv, f.params = m.Result.Bytes(data), m.Error.Bytes(data), m.Params.Bytes(data)
			f.dup, f.fold = m.Dup&^scan.Params, m.Fold&^scan.Params
		}
		dst = append(dst, f)
	}
	return dst, batch, nil
}

// syntaxReason is the reason of a scan error without the package prefix
// and the offset, which the finding gives as a column or byte.
func syntaxReason(se *scan.SyntaxError) string {
	msg := strings.TrimPrefix(se.Error(), "scan: ")
	if i := strings.Index(msg, " at byte offset "); i >= 0 {
		msg = msg[:i]
	}
	switch {
	case strings.Contains(msg, "surrogate"):
		msg += " (RFC 8259 section 8.2)"
	case errors.Is(se, scan.ErrInvalidUTF8):
		msg += " (RFC 8259 section 8.1)"
	}
	return msg
}

// memberNames names the members in set, for findings: "the member \"id\" is".
func memberNames(set scan.Member) string {
	var names []string
	for _, m := range []struct {
		bit  scan.Member
		name string
	}{{scan.JSONRPC, "jsonrpc"}, {scan.ID, "id"}, {scan.Method, "method"}, {scan.Result, "result"}, {scan.Error, "error"}} {
		if set&m.bit != 0 {
			names = append(names, `"`+m.name+`"`)
		}
	}
	if len(names) == 1 {
		return "the member " + names[0] + " is"
	}
	return "the members " + joinAnd(names) + " are"
}
