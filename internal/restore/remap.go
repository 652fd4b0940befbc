package restore

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/internal/jsonwire"
	"github.com/rpcid/rpcid/internal/scan"
)

// A remapping Table (Table.Remap) sends each request upstream with an id it
// assigns, the way NAT assigns ports: a JSON integer from 1 to maxAssigned,
// counted up and wrapping, skipping ids still remembered, so that no two
// requests remembered at once are sent with the same id. Every MCP bridge
// measured keeps such ids exactly (conformance/BRIDGES.md), where it may
// re-encode, round, refuse or replace the client's own. The response with
// the assigned id is written back with the client's id, byte for byte. The
// remembered records are the Table's usual ones, keyed by the id sent: the
// bookkeeping is the same as for restoring, with another id sent.
//
// A client names its own request ids in one other place that MCP defines:
// notifications/cancelled (params.requestId). A server names a client's
// request id in three places of MCP 2026-07-28's subscriptions/listen: the
// notifications/cancelled it sends when it ends a subscription on stdio,
// params._meta["io.modelcontextprotocol/subscriptionId"] of each
// notification on the subscription, and result._meta of the same name in
// the response that closes it. Each is rewritten, in its direction, when it
// names a remembered request (a server's cancel only when it names a
// subscriptions/listen request: any other names a request of the server's).
// A client's cancel that names no request in flight but whose id the proxy
// assigned to another is sent naming 0, an id never assigned. Progress tokens (params._meta.progressToken)
// and task ids are chosen apart from request ids and pass unchanged.

// maxAssigned is the largest id a remapping Table assigns: every id fits in
// 31 bits, which every JSON parser and every SDK's integer type holds.
const maxAssigned = 1<<31 - 1

// The MCP names a remapping Table reads.
const (
	methodCancelled = "notifications/cancelled"
	methodListen    = "subscriptions/listen"
	memberRequestID = "requestId"
	memberMeta      = "_meta"
	metaSubscribed  = "io.modelcontextprotocol/subscriptionId"
)

// remapState is what a remapping Table keeps beside its records.
type remapState struct {
	last    uint32                  // the id assigned last
	clients map[rpcid.Key][]*record // remembered records by the client's id, in the order sent
}

// assign gives r, a new record, the next free id and remembers it. t.mu is
// held. The table holds at most MaxPending ids, far fewer than maxAssigned,
// so a free id is always found.
func (t *Table) assign(r *record) {
	for {
		t.remap.last = t.remap.last%maxAssigned + 1
		r.id = rpcid.Int(int64(t.remap.last))
		if t.table.Add(r.id, slot{recs: append(r.self[:0:1], r)}) == nil {
			break
		}
	}
	if t.remap.clients == nil {
		t.remap.clients = make(map[rpcid.Key][]*record)
	}
	k := clientKey(r)
	t.remap.clients[k] = append(t.remap.clients[k], r)
	t.stats.Remapped++
}

// clientKey returns the key of the client's id of r, a remapped record.
// It is computed again rather than kept, so that a record costs a table
// that does not remap no more than it did.
func clientKey(r *record) rpcid.Key {
	id, _ := rpcid.Parse(r.raw) // valid: Record parsed it
	return id.Key()
}

// forgetClient takes r out of the index by client id. t.mu is held.
func (t *Table) forgetClient(r *record) {
	k := clientKey(r)
	recs := slices.DeleteFunc(t.remap.clients[k], func(x *record) bool { return x == r })
	if len(recs) == 0 {
		delete(t.remap.clients, k)
	} else {
		t.remap.clients[k] = recs
	}
}

// AppendRecorded is RecordSession that also appends to dst the text to send
// on in place of data: data itself, or, when t.Remap is set, data with the
// id of each request remembered replaced by the id assigned to it, and the
// params.requestId of each notifications/cancelled that names a remembered
// request (Equal under the rule; of several, the one sent last) replaced by
// that request's assigned id. Every other byte passes as it is. text
// reports whether data is one JSON text. If the ids do not fit within
// MaxPending, nothing is remembered, data is appended unchanged and err
// wraps ErrTooManyPending: see AppendRefusal.
func (t *Table) AppendRecorded(dst, data []byte, session string) (out []byte, ex *Exchange, text bool, err error) {
	if !t.Remap {
		ex, text, err = t.recordText(data, session)
		return append(dst, data...), ex, text, err
	}
	var buf [8]scan.Message
	msgs, text := scanMessages(buf[:0], data)
	type edit struct {
		span scan.Span
		rec  *record // the request whose id is replaced, or nil
		repl []byte  // otherwise, the replacement
	}
	var ebuf [4]edit
	edits := ebuf[:0]
	for i := range msgs {
		m := &msgs[i]
		switch {
		case isRequest(m, data):
			raw := m.ID.Bytes(data)
			id, err := rpcid.Parse(raw)
			if err != nil || id.Kind() == rpcid.KindNull {
				continue
			}
			if ex == nil {
				ex = &Exchange{}
			}
			r := &record{id: id, raw: bytes.Clone(raw), ex: ex, session: session, listen: stringIs(m.Method.Bytes(data), methodListen)}
			ex.recs = append(ex.recs, r)
			edits = append(edits, edit{span: m.ID, rec: r})
		case isNotification(m, data) && stringIs(m.Method.Bytes(data), methodCancelled):
			sp, ok := member(data, m.Params, memberRequestID)
			if !ok {
				continue
			}
			if sent := t.cancel(sp.Bytes(data)); sent != nil {
				edits = append(edits, edit{span: sp, repl: sent})
			} else if t.assigned(sp.Bytes(data)) {
				// It names no request in flight, but its id is one the
				// proxy assigned to another: sent unchanged, it would
				// cancel that one. 0 is an id the proxy never assigns.
				edits = append(edits, edit{span: sp, repl: []byte("0")})
			}
		}
	}
	if ex != nil {
		if err := t.add(ex); err != nil {
			return append(dst, data...), nil, text, err
		}
	}
	last := 0
	for _, e := range edits {
		dst = append(dst, data[last:e.span.Start]...)
		if e.rec != nil {
			dst = e.rec.id.AppendJSON(dst)
		} else {
			dst = append(dst, e.repl...)
		}
		last = e.span.End
	}
	dst = append(dst, data[last:]...)
	if ex != nil && t.OnRemap != nil {
		var nb [16]byte
		for _, r := range ex.recs {
			t.OnRemap(r.raw, r.id.AppendJSON(nb[:0]))
		}
	}
	return dst, ex, text, nil
}

// cancel returns the JSON text of the id assigned to the remembered request
// whose client id is Equal to raw (of several, the one sent last), which
// the client is cancelling, or nil if there is none. The request is kept
// for a response that may still come, but as an orphan: a server need not
// answer a cancelled request (MCP: it SHOULD NOT), and one that does not
// must not hold a place of -max-pending for ever.
func (t *Table) cancel(raw []byte) []byte {
	id, err := rpcid.Parse(raw)
	if err != nil || id.Kind() == rpcid.KindNull {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	recs := t.remap.clients[id.Key()]
	if len(recs) == 0 {
		return nil
	}
	r := recs[len(recs)-1]
	if r.elem == nil {
		r.elem = t.orphans.PushBack(r)
	}
	return r.id.AppendJSON(nil)
}

// assigned reports whether raw is Equal to an id the Table assigned to a
// request it remembers.
func (t *Table) assigned(raw []byte) bool {
	id, err := rpcid.Parse(raw)
	if err != nil || id.Kind() == rpcid.KindNull {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, sl, ok := t.table.Take(id)
	if ok {
		t.put(sl)
	}
	return ok
}

// clientOf returns the client's id for the remembered request sent with the
// id raw (Equal under the rule), or nil if there is none; with listenOnly,
// only for a subscriptions/listen request. The request stays remembered.
func (t *Table) clientOf(raw []byte, listenOnly bool) []byte {
	id, err := rpcid.Parse(raw)
	if err != nil || id.Kind() == rpcid.KindNull {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, sl, ok := t.table.Take(id)
	if !ok {
		return nil
	}
	t.put(sl)
	if listenOnly && !sl.recs[0].listen {
		return nil
	}
	return sl.recs[0].raw
}

// EndSession forgets the requests remembered for the MCP session named
// session (see RecordSession), answered or not: the session has ended (a
// DELETE of it succeeded), and no response of its can come. An empty
// session names none.
func (t *Table) EndSession(session string) {
	if session == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var gone []*record
	for _, sl := range t.table.All() {
		for _, r := range sl.recs {
			if r.session == session {
				gone = append(gone, r)
			}
		}
	}
	for _, r := range gone {
		t.remove(r)
	}
}

// AppendRefusal appends to dst what answers data, a client-to-server text
// that Record refused with ErrTooManyPending: a JSON-RPC error response for
// each request in it with the request's own id, as sent, and message as
// the error's message; a batch's responses in an array. It appends nothing
// if data holds no request with an id.
func AppendRefusal(dst, data []byte, message string) []byte {
	var buf [8]scan.Message
	msgs, _, err := scan.Scan(buf[:0], data)
	if err != nil {
		return dst
	}
	batch := len(data) > 0 && bytes.TrimLeft(data, " \t\r\n")[0] == '['
	n := 0
	for i := range msgs {
		m := &msgs[i]
		if !isRequest(m, data) {
			continue
		}
		if n == 0 && batch {
			dst = append(dst, '[')
		} else if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = append(dst, m.ID.Bytes(data)...)
		dst = append(dst, `,"error":{"code":-32000,"message":`...)
		dst = strconv.AppendQuote(dst, message) // message is ASCII, so this is JSON
		dst = append(dst, `}}`...)
	}
	if n > 0 && batch {
		dst = append(dst, ']')
	}
	return dst
}

// remapped finds, in m, a server-to-client message of data, the places
// other than a response's id that name a request id the Table assigned (see
// the comment at the top of this file) and calls fn for each, in increasing
// order of position, with the client's id to write instead. sent is the
// client's id written for a response's own id, or nil.
func (t *Table) remapped(data []byte, m *scan.Message, sent []byte, fn func(start, end int, sent []byte)) {
	switch {
	case isResponse(m, data):
		// The response that closes a subscription names its own id.
		if sent == nil {
			return
		}
		meta, ok := member(data, m.Result, memberMeta)
		if !ok {
			return
		}
		sp, ok := member(data, meta, metaSubscribed)
		if !ok {
			return
		}
		a, err1 := rpcid.Parse(sp.Bytes(data))
		b, err2 := rpcid.Parse(m.ID.Bytes(data))
		if err1 == nil && err2 == nil && rpcid.Equal(a, b) {
			fn(sp.Start, sp.End, sent)
		}
	case isNotification(m, data):
		// A server's cancel names a request of its own, except the
		// cancel that ends a subscription, which names the client's
		// subscriptions/listen request.
		type span struct {
			sp         scan.Span
			listenOnly bool
		}
		var spans [2]span
		n := 0
		if stringIs(m.Method.Bytes(data), methodCancelled) {
			if sp, ok := member(data, m.Params, memberRequestID); ok {
				spans[n] = span{sp, true}
				n++
			}
		}
		if meta, ok := member(data, m.Params, memberMeta); ok {
			if sp, ok := member(data, meta, metaSubscribed); ok {
				spans[n] = span{sp, false}
				n++
			}
		}
		if n == 2 && spans[1].sp.Start < spans[0].sp.Start {
			spans[0], spans[1] = spans[1], spans[0]
		}
		for _, s := range spans[:n] {
			if c := t.clientOf(s.sp.Bytes(data), s.listenOnly); c != nil && !bytes.Equal(c, s.sp.Bytes(data)) {
				fn(s.sp.Start, s.sp.End, c)
			}
		}
	}
}

// isNotification reports whether m, scanned from data, is a JSON-RPC 2.0
// notification (section 4.1): an object with "jsonrpc":"2.0" and a "method"
// member and no "id", its members named once and exactly.
func isNotification(m *scan.Message, data []byte) bool {
	return m.IsJSONRPC20(data) && m.Unambiguous(kindMembers|scan.Params) && m.Method.End != 0 && m.ID.End == 0
}

// stringIs reports whether raw, a valid JSON value, is the string s, escapes
// resolved.
func stringIs(raw []byte, s string) bool {
	if len(raw) == len(s)+2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == s {
		return true
	}
	if len(raw) == 0 || raw[0] != '"' || bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	id, err := rpcid.Parse(raw)
	v, ok := id.StringValue()
	return err == nil && ok && v == s
}

// member returns the span of the value of the member named name (escapes
// resolved) of the object at obj in data, a valid JSON text. It reports
// false if obj is absent or not an object, if no member has the name, or if
// more than one member has it or a case variant of it (encoding/json's
// matching, as internal/scan counts it): readers disagree about such an
// object, and it is left alone.
func member(data []byte, obj scan.Span, name string) (sp scan.Span, ok bool) {
	if obj.End == 0 || data[obj.Start] != '{' {
		return scan.Span{}, false
	}
	found := 0
	i := obj.Start + 1
	for {
		i = jsonwire.SkipSpace(data, i)
		if data[i] == '}' {
			break
		}
		ks := i
		i, _, _ = jsonwire.ConsumeString(data, i)
		key := data[ks:i]
		i = jsonwire.SkipSpace(data, i) + 1 // the colon
		i = jsonwire.SkipSpace(data, i)
		vs := i
		i = skipValue(data, i)
		switch {
		case stringIs(key, name):
			sp = scan.Span{Start: vs, End: i}
			found++
		case foldIs(key, name):
			found++
		}
		i = jsonwire.SkipSpace(data, i)
		if data[i] == ',' {
			i++
		}
	}
	return sp, found == 1 && sp.End != 0
}

// foldIs reports whether key, a JSON string, is name under Unicode simple
// case folding, as encoding/json matches struct fields.
func foldIs(key []byte, name string) bool {
	id, err := rpcid.Parse(key)
	v, ok := id.StringValue()
	return err == nil && ok && bytes.EqualFold([]byte(v), []byte(name))
}

// skipValue returns the offset after the JSON value at data[i], in a text
// already found valid, with jsonwire's tokens.
func skipValue(data []byte, i int) int {
	switch c := data[i]; c {
	case '"':
		n, _, _ := jsonwire.ConsumeString(data, i)
		return n
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i, _, _ = jsonwire.ConsumeString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	case 't':
		n, _ := jsonwire.ConsumeLiteral(data, i, "true")
		return n
	case 'f':
		n, _ := jsonwire.ConsumeLiteral(data, i, "false")
		return n
	case 'n':
		n, _ := jsonwire.ConsumeLiteral(data, i, "null")
		return n
	}
	n, _ := jsonwire.ConsumeNumber(data, i)
	return n
}
