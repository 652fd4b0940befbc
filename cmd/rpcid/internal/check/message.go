package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
	"github.com/rpcid/rpcid/internal/scan"
)

// message handles one JSON object that should be a JSON-RPC 2.0 message,
// given as the raw values of its members.
func (s *capture) message(pos position, loc string, dir direction, m *fields) {
	if m.dup != 0 {
		s.invalid(pos, loc, fmt.Sprintf("not JSON-RPC 2.0 as every peer reads it: %s named more than once (counting case variants), and peers differ in which one they read (encoding/json reads the last)", memberNames(m.dup)))
		return
	}
	if m.fold != 0 {
		s.invalid(pos, loc, fmt.Sprintf("not JSON-RPC 2.0 as every peer reads it: %s named only by a case variant (such as \"ID\" for \"id\"), which encoding/json and the Go SDKs read as the member and peers that compare names exactly do not", memberNames(m.fold)))
		return
	}
	if m.version == nil {
		s.invalid(pos, loc, `not JSON-RPC 2.0: the "jsonrpc" member is missing`)
		return
	}
	if string(m.version) != `"2.0"` && !isVersion20(m.version) {
		s.invalid(pos, loc, fmt.Sprintf(`not JSON-RPC 2.0: "jsonrpc" is %s, not "2.0"`, show(m.version)))
		return
	}
	s.hasRPC = true
	isCall, hasResult, hasError, hasID := m.method != nil, m.result != nil, m.errv != nil, m.id != nil
	var method string
	switch {
	case isCall && (hasResult || hasError):
		s.invalid(pos, loc, `not JSON-RPC 2.0: a message with both "method" and "result" or "error"`)
		return
	case isCall:
		var ok bool
		if method, ok = s.methodOf(m.method); !ok {
			s.invalid(pos, loc, fmt.Sprintf(`not JSON-RPC 2.0: "method" is %s, not a string`, base.JSONTypeName(m.method)))
			return
		}
	case hasResult && hasError:
		s.invalid(pos, loc, `not JSON-RPC 2.0: a response with both "result" and "error"`)
		return
	case hasResult || hasError:
		if !hasID && hasError && s.httpError && s.failedExchange && dir != fromClient {
			// An HTTP transport's refusal, as MCP 2025-03-26 allows:
			// "The HTTP response body MAY comprise a JSON-RPC error
			// response that has no id."
			s.messages++
			s.counts.responses++
			s.refuse(m.errv, "no id")
			return
		}
		if !hasID {
			s.idless(pos, loc, dir, m.errv)
			return
		}
	default:
		s.invalid(pos, loc, `not JSON-RPC 2.0: neither a request ("method") nor a response ("result" or "error")`)
		return
	}
	if isCall && !hasID {
		s.messages++
		s.counts.notifications++
		s.notification(pos, dir, method, m.params)
		return
	}
	id, err := rpcid.Parse(m.id)
	if err != nil {
		s.invalid(pos, loc, idError(m.id, err))
		return
	}
	s.messages++
	if isCall {
		s.counts.requests++
		s.request(pos, dir, id, m.id, method)
		return
	}
	s.counts.responses++
	// Without a marker, a response is the server's and answers a client request.
	s.response(pos, dir != fromClient, id, m.id, m.errv)
}

// methodOf decodes a method name, sharing the strings of names seen
// before (allocating nothing for them).
func (s *capture) methodOf(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' {
		if m, ok := s.rawMethods[string(raw)]; ok {
			return m, true
		}
	}
	m, ok := jsonString(raw)
	if ok && len(s.rawMethods) < 4096 && len(raw) <= 256 {
		if s.rawMethods == nil {
			s.rawMethods = map[string]string{}
		}
		s.rawMethods[string(raw)] = m
	}
	return m, ok
}

// isVersion20 reports whether a jsonrpc value spelled otherwise than
// "2.0" (with escapes) is the string 2.0.
func isVersion20(raw []byte) bool {
	v, ok := jsonString(raw)
	return ok && v == "2.0"
}

// jsonString decodes a JSON string value.
func jsonString(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		inner := raw[1 : len(raw)-1]
		plain := utf8.Valid(inner)
		for _, c := range inner {
			if c == '\\' || c == '"' || c < 0x20 {
				plain = false
				break
			}
		}
		if plain {
			return string(inner), true
		}
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// idError says why rpcid.Parse refused the id raw, and so the message.
func idError(raw []byte, err error) string {
	switch {
	case errors.Is(err, rpcid.ErrType):
		return fmt.Sprintf("not JSON-RPC 2.0: the id %s is not a string, number or null: JSON-RPC 2.0 allows no other type", show(raw))
	case errors.Is(err, rpcid.ErrInvalidUTF8):
		return fmt.Sprintf("the id %s is a string that is not valid UTF-8 (or escapes a lone surrogate), which the rule refuses (clause 4), and the message is not examined", show(raw))
	case errors.Is(err, rpcid.ErrRange):
		// A JSON number, as JSON-RPC 2.0 allows: only too large to compare.
		return fmt.Sprintf("the id %s is a number too large or too small to compare exactly (the rule refuses d × 10^e with |e| ≥ 10^18), and the message is not examined", show(raw))
	}
	return fmt.Sprintf("the id %s is refused by the rule: %v, and the message is not examined", show(raw), err)
}

// notification handles a notification at pos: it is remembered for the
// causes of a null-id response (see nullResponse), and MCP's
// notifications/cancelled marks a cancelled request, which need not be
// answered (MCP: receivers should not respond to it).
func (s *capture) notification(pos position, dir direction, method string, params json.RawMessage) {
	s.t.sides[sideOf(dir == fromServer)].notified(method, s.intern(method), pos.n())
	if method != "notifications/cancelled" || len(params) == 0 {
		return
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return
	}
	raw, ok := p["requestId"]
	if !ok {
		return
	}
	id, err := rpcid.Parse(raw)
	if err != nil {
		return
	}
	// The sender cancels a request it sent.
	sd := &s.t.sides[sideOf(dir == fromServer)]
	if x, ok := sd.get(keyOf(id)); ok && s.t.at(x).flags&fAnswered == 0 {
		s.t.at(x).flags |= fCancelled
	}
}

func sideOf(server bool) int {
	if server {
		return 1
	}
	return 0
}

// serverMethods are the MCP requests only a server sends (ping is sent by
// both, and counts after initialize).
var serverMethods = map[string]bool{"sampling/createMessage": true, "roots/list": true, "elicitation/create": true}

// noteMethod tracks direction markers: it records the first unmarked request
// whose method suggests the server sent it.
func (s *capture) noteMethod(method string, pos position) {
	if method == "initialize" {
		s.initialized = true
	}
}

func looksServerSent(method string, initialized bool) bool {
	return serverMethods[method] || method == "ping" && initialized
}

// withHint appends the marker hint to a finding's message when one of
// the requests it is about (refs) is unmarked and looks server-sent.
func (s *capture) withHint(msg string, f *finding, refs ...ref) string {
	if s.marked || s.har {
		return msg
	}
	for _, x := range refs {
		if x == none {
			continue
		}
		if r := s.t.at(x); r.flags&fServerLike != 0 {
			// The request the finding involves, not the first such one.
			f.Hint = "the capture has no direction markers and " + s.t.method(x) + " (" + s.posOf(r).String() + ") looks like a request the server sent: marking each line with > (client) or < (server) would settle which side sent what"
			return msg + "; " + f.Hint
		}
	}
	return msg
}

// explainWithHint returns the message of a finding that explains once
// (f.short, then f.why), with the hint withHint adds, which it adds to
// f.short too.
func (s *capture) explainWithHint(f *finding, refs ...ref) string {
	msg := s.withHint(f.short+"; "+f.why, f, refs...)
	if f.Hint != "" {
		f.short += "; " + f.Hint
	}
	return msg
}

// intern returns the display form of a method name, shared between
// requests.
func (s *capture) intern(method string) string {
	if m, ok := s.methods[method]; ok {
		return m
	}
	m := base.ShowString(method)
	if len(s.methods) < 4096 && len(method) <= 256 {
		s.methods[strings.Clone(method)] = m
	}
	return m
}

// payload handles one JSON text that should be a message or a batch. loc
// prefixes messages about its validity; column is the 1-based column of its
// first byte on a JSON Lines line, or 0 for a HAR body.
func (s *capture) payload(pos position, loc string, dir direction, data []byte, column int) {
	msgs, batch, err := scanText(s.msgs[:0], &s.scanned, data)
	s.msgs = msgs[:0]
	if err != nil && s.har && !s.strict && !startsLikeJSONText(data) {
		// Text that is not JSON at all, in a body or event nothing asks
		// to be JSON-RPC (a page's event stream of heartbeats, such as
		// webpack-hot-middleware's "data: 💓"): passed over, as JSON
		// without JSON-RPC is. What starts like an object or array is
		// reported: it may be a broken message.
		s.passed = true
		return
	}
	if err != nil {
		where := ""
		f := s.where()
		if err.Offset >= 0 { // the 0-based offset of the first byte not accepted
			if column > 0 {
				f.Column = int(err.Offset) + column
				where = fmt.Sprintf(" at column %d", f.Column)
			} else {
				off := err.Offset + s.offsetBase
				f.Offset = &off
				where = fmt.Sprintf(" at byte offset %d", off)
			}
		}
		reason := err.Reason
		if strings.HasPrefix(reason, "invalid character") && err.Offset >= 0 && err.Offset < int64(len(data)) {
			reason += " " + nameByte(data[err.Offset:])
		}
		s.report(pos, levelError, kindInvalid, loc+fmt.Sprintf("not JSON%s: %s", where, reason), f)
		what, valid := "is not JSON", len(data)
		if err.Offset >= 0 {
			valid = int(err.Offset)
		}
		if err.Reason == "unexpected end of input" {
			what = "is cut short"
			if !s.har && s.atEOF {
				what = "is cut short at the end of the input"
			}
		}
		s.lostText(pos, dir, data, valid, what)
		return
	}
	if s.har && !s.strict && notRPC(msgs, batch, s.httpError) {
		s.passed = true
		return
	}
	s.examined = true
	if !batch {
		m := &msgs[0]
		if !m.object {
			s.invalid(pos, loc, "not JSON-RPC 2.0: "+base.JSONTypeName(m.value)+", not a message object or batch")
			return
		}
		s.message(pos, loc, dir, m)
		return
	}
	if len(msgs) == 0 {
		s.invalid(pos, loc, "not JSON-RPC 2.0: an empty batch")
		return
	}
	s.batchAnswers(msgs)
	defer clear(s.batchAnswered)
	for i := range msgs {
		m := &msgs[i]
		eloc := fmt.Sprintf("%sbatch element %d: ", loc, i+1)
		s.element = i + 1
		if !m.object {
			s.invalid(pos, eloc, "not JSON-RPC 2.0: "+base.JSONTypeName(m.value)+", not a message object")
			continue
		}
		s.message(pos, eloc, dir, m)
	}
	s.element = 0
}

// notRPC reports whether a HAR body, event or frame that is JSON holds no
// JSON-RPC message, so that it is passed over, not reported, outside the
// answer to a JSON-RPC request: one without a "jsonrpc" member (in any
// spelling) that is an HTTP error document (httpError: the body of a
// response with a status other than 2xx, such as OAuth's
// {"error":"invalid_token"} with 401) or has neither a "method" member nor
// an "id" with a "result" or "error" (a REST resource such as
// {"id":3,"name":"c"}, an OAuth metadata document, a page's own event
// stream).
func notRPC(msgs []fields, batch bool, httpError bool) bool {
	if batch && len(msgs) == 0 {
		return false
	}
	for i := range msgs {
		m := &msgs[i]
		if !m.object {
			continue
		}
		if m.version != nil || (m.dup|m.fold)&scan.JSONRPC != 0 {
			return false
		}
		if !httpError && (m.method != nil || m.id != nil && (m.result != nil || m.errv != nil) || (m.dup|m.fold) != 0) {
			return false
		}
	}
	return true
}

// nameByte names the character at the start of b for a finding: 'x' for
// printable ASCII, U+XXXX for a control or other character, and 0xXX for
// a byte that is not UTF-8.
func nameByte(b []byte) string {
	r, size := utf8.DecodeRune(b)
	switch {
	case r == utf8.RuneError && size <= 1:
		return fmt.Sprintf("(byte 0x%02X)", b[0])
	case r >= 0x20 && r < 0x7f:
		return fmt.Sprintf("(%q)", r)
	}
	return fmt.Sprintf("(U+%04X)", r)
}
