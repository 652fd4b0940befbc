package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rpcid/rpcid"
)

// position is where a message is in a capture: a line of a JSON Lines
// capture or an entry of a HAR capture, both counted from 1.
type position struct {
	line  int
	entry int
}

func (p position) String() string {
	if p.entry > 0 {
		return "entry " + strconv.Itoa(p.entry)
	}
	return "line " + strconv.Itoa(p.line)
}

// direction is who sent a message.
type direction int

const (
	fromUnknown direction = iota // no marker: requests are the client's, responses the server's
	fromClient
	fromServer
)

// request is a request seen in the capture, pending until answered.
type request struct {
	pos    position
	seq    int      // order of arrival, for stable reports
	id     rpcid.ID // as parsed
	raw    []byte   // the id's JSON text as received
	method string
	server bool // sent by the server (answered by the client)

	dups      []*request // later requests with an Equal id, sent while this one was pending
	cancelled bool       // MCP notifications/cancelled named it
	warned    bool       // its id already drew an unsafe-integer or fractional warning
	note      string     // why it may have gone unanswered (HAR: the HTTP status)
}

// side holds the requests one peer has in flight, and indexes of their ids
// as the lax normalizers see them.
type side struct {
	pending rpcid.Pending[*request]
	js      map[uint64][]*request // JavaScript: the id's double (bits, -0 as +0)
	py      map[string][]*request // Python: the exact integer value in decimal
	rs      map[int64][]*request  // Rust: plain integer ids (rmcp reads no other numbers)
}

// session checks one capture.
type session struct {
	c             *checker
	file          string
	sides         [2]side // [0]: the client's requests, [1]: the server's
	seq           int
	entryRequests []*request // requests of the current HAR entry
}

func newSession(c *checker, file string) *session {
	s := &session{c: c, file: file}
	for i := range s.sides {
		s.sides[i] = side{js: map[uint64][]*request{}, py: map[string][]*request{}, rs: map[int64][]*request{}}
	}
	return s
}

// report emits a finding at pos.
func (s *session) report(pos position, level, kind, msg string, f *finding) {
	if f == nil {
		f = &finding{}
	}
	f.File, f.Line, f.Entry = s.file, pos.line, pos.entry
	f.Level, f.Kind, f.Message = level, kind, msg
	s.c.emit(f)
}

// invalid reports a line, body or element that is not a JSON-RPC message.
func (s *session) invalid(pos position, loc, msg string) {
	s.report(pos, levelError, kindInvalid, loc+msg, nil)
}

// message handles one JSON object that should be a JSON-RPC 2.0 message.
// The members are framed with encoding/json; the id itself is read from its
// raw bytes by rpcid.Parse.
func (s *session) message(pos position, loc string, dir direction, data []byte) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		s.invalid(pos, loc, fmt.Sprintf("not JSON: %v", err))
		return
	}
	version, ok := m["jsonrpc"]
	if !ok {
		s.invalid(pos, loc, `not JSON-RPC 2.0: the "jsonrpc" member is missing`)
		return
	}
	var v string
	if json.Unmarshal(version, &v) != nil || v != "2.0" {
		s.invalid(pos, loc, fmt.Sprintf(`not JSON-RPC 2.0: "jsonrpc" is %s, not "2.0"`, show(version)))
		return
	}
	methodRaw, isCall := m["method"]
	_, hasResult := m["result"]
	errRaw, hasError := m["error"]
	idRaw, hasID := m["id"]
	var method string
	switch {
	case isCall && (hasResult || hasError):
		s.invalid(pos, loc, `not JSON-RPC 2.0: a message with both "method" and "result" or "error"`)
		return
	case isCall:
		if json.Unmarshal(methodRaw, &method) != nil {
			s.invalid(pos, loc, fmt.Sprintf(`not JSON-RPC 2.0: "method" is %s, not a string`, jsonTypeName(methodRaw)))
			return
		}
	case hasResult && hasError:
		s.invalid(pos, loc, `not JSON-RPC 2.0: a response with both "result" and "error"`)
		return
	case hasResult || hasError:
		if !hasID {
			s.invalid(pos, loc, `not JSON-RPC 2.0: a response without an "id" member`)
			return
		}
	default:
		s.invalid(pos, loc, `not JSON-RPC 2.0: neither a request ("method") nor a response ("result" or "error")`)
		return
	}
	if isCall && !hasID {
		s.c.counts.notifications++
		s.notification(dir, method, m["params"])
		return
	}
	id, err := rpcid.Parse(idRaw)
	if err != nil {
		s.invalid(pos, loc, fmt.Sprintf("not JSON-RPC 2.0: the id %s is not a string, number or null: %s", show(idRaw), idError(err)))
		return
	}
	if isCall {
		s.c.counts.requests++
		s.request(pos, dir == fromServer, id, idRaw, method)
		return
	}
	s.c.counts.responses++
	// Without a marker, a response is the server's and answers a client request.
	s.response(pos, dir != fromClient, id, idRaw, errRaw)
}

// idError says why rpcid.Parse refused an id.
func idError(err error) string {
	switch {
	case errors.Is(err, rpcid.ErrType):
		return "JSON-RPC 2.0 allows no other type"
	case errors.Is(err, rpcid.ErrInvalidUTF8):
		return "the string is not valid UTF-8 (or escapes a lone surrogate)"
	case errors.Is(err, rpcid.ErrRange):
		return "its exponent is too large to compare exactly"
	}
	return err.Error()
}

// notification handles MCP's notifications/cancelled: a cancelled request
// need not be answered (MCP: receivers should not respond to it).
func (s *session) notification(dir direction, method string, params json.RawMessage) {
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
	sd := &s.sides[0]
	if dir == fromServer {
		sd = &s.sides[1]
	}
	if sent, r, ok := sd.pending.Take(id); ok {
		r.cancelled = true
		sd.pending.Add(sent, r)
	}
}

// request handles a request with an id.
func (s *session) request(pos position, server bool, id rpcid.ID, raw []byte, method string) {
	s.seq++
	r := &request{pos: pos, seq: s.seq, id: id, raw: append([]byte(nil), raw...), method: method, server: server}
	r.warned = s.numericWarnings(pos, "request", id, raw)
	if id.Kind() == rpcid.KindNull {
		s.report(pos, levelWarning, kindNullRequest,
			fmt.Sprintf("request %s has a null id: JSON-RPC 2.0 discourages it and MCP forbids it; its response cannot be told from a reply to an unreadable request", methodName(method)),
			&finding{ID: r.raw})
		return
	}
	sd := &s.sides[0]
	if server {
		sd = &s.sides[1]
	}
	if pos.entry > 0 {
		s.entryRequests = append(s.entryRequests, r) // HAR only: JSON Lines keep no per-line state
	}
	err := sd.pending.Add(id, r)
	if errors.Is(err, rpcid.ErrDuplicate) {
		sent, first, _ := sd.pending.Take(id)
		first.dups = append(first.dups, r)
		sd.pending.Add(sent, first)
		s.report(pos, levelError, kindDuplicate,
			fmt.Sprintf("%s id %s (%s) sent while %s is still pending: their responses cannot be told apart",
				reqWord(server), show(raw), method, first.describe()),
			&finding{ID: r.raw, Request: first.ref()})
		return
	}
	if err != nil {
		// Add refuses only absent, null and duplicate ids, handled above.
		s.invalid(pos, "", err.Error())
		return
	}
	sd.index(r)
}

// response handles a response. toClient is true when it answers a request
// of the client.
func (s *session) response(pos position, toClient bool, id rpcid.ID, raw, errRaw []byte) {
	if id.Kind() == rpcid.KindNull {
		s.report(pos, levelError, kindNullResponse,
			"response with a null id: the peer could not read a request ("+describeError(errRaw)+")",
			&finding{ID: append([]byte(nil), raw...)})
		return
	}
	sd := &s.sides[0]
	if !toClient {
		sd = &s.sides[1]
	}
	sent, r, ok := sd.pending.Take(id)
	if !ok {
		s.unmatched(pos, sd, id, raw)
		s.numericWarnings(pos, "response", id, raw)
		return
	}
	sd.unindex(r)
	if len(r.dups) > 0 {
		next := r.dups[0]
		next.dups = r.dups[1:]
		sd.pending.Add(next.id, next)
		sd.index(next)
	}
	f := &finding{ID: append([]byte(nil), raw...), Request: r.ref()}
	switch {
	case sent.Kind() != id.Kind():
		s.report(pos, levelWarning, kindTypeChanged,
			fmt.Sprintf("response id %s matches %s only under the rule: the id's JSON type changed from %s to %s in transit; SDKs that compare type and value (go-sdk, mcp-go's stdio and SSE transports, C#) drop this response",
				show(raw), r.describe(), typeWord(sent), typeWord(id)), f)
	case isNumber(id) && string(r.raw) != string(raw):
		s.report(pos, levelWarning, kindSpellingChanged,
			fmt.Sprintf("response id %s equals the id of %s by value, but its spelling changed in transit; SDKs that compare spellings or read ids as plain integers (rmcp, C#, sourcegraph/jsonrpc2) reject or drop it",
				show(raw), r.describe()), f)
	}
	if !r.warned {
		s.numericWarnings(pos, "response", id, raw)
	}
}

func isNumber(id rpcid.ID) bool { return id.Kind() == rpcid.KindInt || id.Kind() == rpcid.KindNumber }

func typeWord(id rpcid.ID) string {
	if id.Kind() == rpcid.KindString {
		return "string"
	}
	return "number"
}

func reqWord(server bool) string {
	if server {
		return "server request"
	}
	return "request"
}

// describe names a request for other findings: request 2 (line 7, tools/call).
func (r *request) describe() string {
	return fmt.Sprintf("%s %s (%s, %s)", reqWord(r.server), show(r.raw), r.pos, r.method)
}

func (r *request) ref() *requestRef {
	return &requestRef{Line: r.pos.line, Entry: r.pos.entry, ID: r.raw, Method: r.method}
}

func methodName(m string) string {
	if m == "" {
		return `""`
	}
	return m
}

// describeError summarizes a response's error member: "error -32700: Parse error".
func describeError(raw []byte) string {
	if len(raw) == 0 {
		return `it carries a "result" instead of an error`
	}
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message *string         `json:"message"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Message == nil {
		return "error " + show(raw)
	}
	msg := *e.Message
	if len(msg) > 200 {
		msg = truncate(msg, 200) + "..."
	}
	if len(e.Code) > 0 {
		return fmt.Sprintf("error %s: %s", show(e.Code), msg)
	}
	return "error: " + msg
}

// finish reports the requests never answered, in the order they were sent.
func (s *session) finish() {
	var open []*request
	for i := range s.sides {
		for _, r := range s.sides[i].pending.All() {
			open = append(open, r)
			open = append(open, r.dups...)
		}
	}
	slices.SortFunc(open, func(a, b *request) int { return a.seq - b.seq })
	for _, r := range open {
		if r.cancelled {
			continue
		}
		msg := fmt.Sprintf("%s %s (%s) was never answered", reqWord(r.server), show(r.raw), r.method)
		if r.note != "" {
			msg += " (" + r.note + ")"
		}
		s.report(r.pos, levelError, kindUnanswered, msg, &finding{ID: r.raw})
	}
}

// maxSafe is 2^53-1, the largest integer below which JavaScript numbers
// (IEEE 754 doubles) hold every integer exactly (RFC 8259 section 6).
const maxSafe = 1<<53 - 1

// numericWarnings warns about a numeric id beyond 2^53-1 in magnitude or
// with a fractional part, and reports whether it did.
func (s *session) numericWarnings(pos position, what string, id rpcid.ID, raw []byte) bool {
	var integral bool
	switch id.Kind() {
	case rpcid.KindInt:
		n, _ := id.Int64()
		if -maxSafe <= n && n <= maxSafe {
			return false
		}
		integral = true
	case rpcid.KindNumber:
		text, _ := id.Number()
		integral = numberIsIntegral(string(text))
	default:
		return false
	}
	f := &finding{ID: append([]byte(nil), raw...)}
	if !integral {
		s.report(pos, levelWarning, kindFractional,
			fmt.Sprintf("%s id %s is not an integer: JSON-RPC 2.0 says ids SHOULD NOT have fractional parts and MCP allows only strings and integers; SDKs that read ids as integers truncate or reject it", what, show(raw)), f)
		return true
	}
	bound := "above 2^53-1"
	if raw[0] == '-' {
		bound = "below -(2^53-1)"
	}
	msg := fmt.Sprintf("%s id %s is %s: JavaScript peers cannot hold such ids exactly", what, show(raw), bound)
	if js := jsString(jsValue(raw)); js != string(raw) {
		msg += " (JSON.parse gives " + js + ")"
	}
	s.report(pos, levelWarning, kindUnsafeInteger, msg, f)
	return true
}

// numberIsIntegral reports whether the JSON number t has an integer value.
func numberIsIntegral(t string) bool {
	t = strings.TrimPrefix(t, "-")
	mant, exp := t, int64(0)
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant = t[:i]
		e, neg := t[i+1:], false
		if e != "" && (e[0] == '+' || e[0] == '-') {
			e, neg = e[1:], e[0] == '-'
		}
		e = strings.TrimLeft(e, "0")
		if len(e) > 18 { // rpcid refuses such exponents; decide by sign
			return !neg
		}
		exp, _ = strconv.ParseInt(e, 10, 64)
		if neg {
			exp = -exp
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	trimmed := strings.TrimRight(digits, "0")
	if strings.Trim(trimmed, "0") == "" {
		return true // zero
	}
	scale := exp - int64(len(frac)) + int64(len(digits)-len(trimmed))
	return scale >= 0
}

// index records r's id as each lax normalizer's SDK holds a pending id.
// Only numeric ids are indexed: these SDKs normalize the response id and
// look it up among numeric request ids.
func (sd *side) index(r *request) {
	if !isNumber(r.id) {
		return
	}
	k := jsKey(jsValue(r.raw))
	sd.js[k] = append(sd.js[k], r)
	if n, ok := r.id.Int64(); ok {
		sd.py[strconv.FormatInt(n, 10)] = append(sd.py[strconv.FormatInt(n, 10)], r)
		if isPlainInt(r.raw) {
			sd.rs[n] = append(sd.rs[n], r)
		}
	} else if isPlainInt(r.raw) {
		sd.py[string(r.raw)] = append(sd.py[string(r.raw)], r)
	}
}

// unindex removes r from the indexes.
func (sd *side) unindex(r *request) {
	if !isNumber(r.id) {
		return
	}
	remove := func(list []*request) []*request {
		return slices.DeleteFunc(list, func(x *request) bool { return x == r })
	}
	k := jsKey(jsValue(r.raw))
	if sd.js[k] = remove(sd.js[k]); len(sd.js[k]) == 0 {
		delete(sd.js, k)
	}
	if n, ok := r.id.Int64(); ok {
		key := strconv.FormatInt(n, 10)
		if sd.py[key] = remove(sd.py[key]); len(sd.py[key]) == 0 {
			delete(sd.py, key)
		}
		if sd.rs[n] = remove(sd.rs[n]); len(sd.rs[n]) == 0 {
			delete(sd.rs, n)
		}
	} else if isPlainInt(r.raw) {
		key := string(r.raw)
		if sd.py[key] = remove(sd.py[key]); len(sd.py[key]) == 0 {
			delete(sd.py, key)
		}
	}
}

// jsKey is the key of a JavaScript Map for a number: SameValueZero treats
// -0 as +0.
func jsKey(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	return math.Float64bits(f)
}

// isPlainInt reports whether a JSON number is written as an integer without
// fraction or exponent, and is not -0 (rmcp reads -0 as a float).
func isPlainInt(raw []byte) bool {
	s := string(raw)
	if s == "-0" {
		return false
	}
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// unmatched reports a response whose id matches no pending request, and
// what the lax normalizers would have done with it.
func (s *session) unmatched(pos position, sd *side, id rpcid.ID, raw []byte) {
	var lax []laxMatch
	var reqs []*request
	add := func(name, value string, r *request) {
		verdict := "different"
		if str, ok := id.StringValue(); ok {
			if v, ok := lenientNumber(str); ok && rpcid.Equal(v, r.id) {
				verdict = "malformed"
			}
		}
		lax = append(lax, laxMatch{Normalizer: name, Value: value, Verdict: verdict, Request: *r.ref()})
		reqs = append(reqs, r)
	}
	if str, ok := id.StringValue(); ok {
		if f := jsNumber(str); !math.IsNaN(f) {
			if list := sd.js[jsKey(f)]; len(list) > 0 {
				add("JavaScript Number()", jsString(f), list[0])
			}
		}
		if v, ok := pyInt(str); ok {
			if list := sd.py[v]; len(list) > 0 {
				add("Python int()", v, list[0])
			}
		}
		if n, ok := rustI64(str); ok {
			if list := sd.rs[n]; len(list) > 0 {
				add("Rust i64::from_str", strconv.FormatInt(n, 10), list[0])
			}
		}
	} else if isNumber(id) {
		// JSON.parse has already made the id a double; the TypeScript SDK
		// looks that double up among the numeric request ids.
		f := jsValue(raw)
		if list := sd.js[jsKey(f)]; len(list) > 0 {
			add("JavaScript Number()", jsString(f), list[0])
		}
	}
	msg := fmt.Sprintf("response id %s matches no pending request", show(raw))
	if sd == &s.sides[1] {
		msg = fmt.Sprintf("response id %s matches no pending server request", show(raw))
	}
	// Group the normalizers that agree on value, request and verdict.
	for i := 0; i < len(lax); {
		j := i + 1
		for j < len(lax) && reqs[j] == reqs[i] && lax[j].Value == lax[i].Value && lax[j].Verdict == lax[i].Verdict {
			j++
		}
		names := make([]string, 0, j-i)
		for _, l := range lax[i:j] {
			names = append(names, l.Normalizer)
		}
		verb := "reads"
		if j-i > 1 {
			verb = "read"
		}
		msg += fmt.Sprintf("; %s %s it as %s and would deliver it to %s", joinAnd(names), verb, truncate(lax[i].Value, 64), reqs[i].describe())
		if lax[i].Verdict == "malformed" {
			msg += ", accepting a malformed spelling of that id"
		} else {
			msg += ", whose id is different"
		}
		i = j
	}
	s.report(pos, levelError, kindUnmatched, msg, &finding{ID: append([]byte(nil), raw...), Lax: lax})
}

// joinAnd joins names as "A", "A and B" or "A, B and C".
func joinAnd(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// show returns JSON text for a message, cut to a readable length.
func show(raw []byte) string {
	const max = 64
	s := string(raw)
	if len(raw) > max+8 {
		s = truncate(s, max) + fmt.Sprintf("... (%d bytes)", len(raw))
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
