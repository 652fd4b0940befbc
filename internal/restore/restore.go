// Package restore remembers the ids of the JSON-RPC 2.0 requests a client
// sends and restores the ids of the responses it receives to the exact bytes
// that were sent, when an intermediary changed their spelling in transit
// ("id":1 sent, "id":"1" received) but not their identity under the rpcid
// rule; or, for rpcid proxy -remap, sends each request with an id of its own
// and restores the client's (Table.Remap).
//
// It is the one implementation of that logic behind both adapters of this
// module: httpid.Transport (HTTP exchanges and event streams) and
// `rpcid proxy` (HTTP, and stdio: one message or batch per line, or
// Content-Length framed; see NewStdioReader). It is
// internal because its only users are in this module, and its shape (spans
// into a caller's buffer, exchanges that end) follows what those adapters
// need; exporting it would freeze that shape before a third user exists.
// The public way in is httpid.Transport, and for programs in other languages
// the rpcid proxy command.
package restore

import (
	"bytes"
	"container/list"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/internal/scan"
)

// DefaultMaxPending is the number of request ids a Table remembers at most
// when its MaxPending field is zero or negative.
const DefaultMaxPending = 4096

// ErrTooManyPending is returned, wrapped, by Table.Record when remembering
// the ids of a message would make the Table hold more than MaxPending ids
// while none of them can be dropped.
var ErrTooManyPending = errors.New("too many request ids pending")

// A Table remembers request ids sent by one client and restores response ids
// Equal to them (rpcid.Equal) to the spelling that was sent.
//
// A remembered id is forgotten when a response with an Equal id is restored
// or found already spelled as sent, and when the Exchange that recorded it is
// released as failed. An Exchange released as not failed leaves its
// unanswered ids as orphans: they wait for a response on another stream
// (MCP's standalone event stream, say) but are the first to be dropped,
// oldest first, when room is needed.
//
// Matching is scoped. A response id is matched against the remembered ids
// Equal to it in this order, and the first of these groups that holds any
// decides:
//
//  1. the ids of the exchange whose response body holds the response (the
//     Exchange given to Table.Scope): a response to a POST's request
//     arrives in that POST's response (JSON-RPC 2.0 section 5: the response
//     id MUST be the same as the request's; MCP Streamable HTTP: the server
//     answers the requests of a POST on that POST's response, JSON or event
//     stream);
//  2. the ids sent in the same MCP session (the session given to
//     RecordSession and Table.Scope: in HTTP, the requests' Mcp-Session-Id
//     header, or the session a 2024-11-05 HTTP+SSE URL names), when the exchange has no Equal id or recorded none at all,
//     as for an event stream opened with GET (resumption with
//     Last-Event-ID, the standalone stream); an empty session is none;
//  3. all remembered ids, as Restore without a scope matches (stdio, where
//     every response arrives on one stream).
//
// Within the deciding group, an id spelled exactly as received is chosen
// first, then the one spelling among requests still in flight, then the one
// spelling among orphans; each group keeps the order requests were sent in.
// If the group holds requests with Equal ids but different spellings and
// none of these rules picks one (1 and 1.0 in one batch, "1" received), the
// response is ambiguous: its id is left unchanged and nothing is forgotten.
//
// With Remap set, the Table assigns the id each request is sent with (see
// AppendRecorded and remap.go): the records are the same, keyed by the id
// sent instead of the client's, and each response is written back with the
// client's id.
//
// A Table is safe for concurrent use. Its zero value is ready to use; set its
// fields before first use, and do not copy it after.
type Table struct {
	// MaxPending is the largest number of ids remembered at once. If zero or
	// negative, DefaultMaxPending is used.
	MaxPending int

	// OnRestore, if set, is called for each response id rewritten, with the
	// id as received and as it will be written. It is called without the
	// Table's lock held, from the goroutine that called Restore, and must not
	// keep the slices.
	OnRestore func(received, sent []byte)

	// OnUnmatched, if set, is called for each valid, non-null response id
	// that matches no remembered id. Like OnRestore, it must not keep the
	// slice.
	OnUnmatched func(received []byte)

	// OnAmbiguous, if set, is called for each response id Equal to
	// remembered ids sent in different spellings in the group that decides
	// (see Table), none spelled as received and no one spelling alone among
	// those in flight: the id is left as received and nothing is forgotten.
	// Like OnRestore, it must not keep the slice.
	OnAmbiguous func(received []byte)

	// OnElsewhere, if set, is called for each response id found through a
	// Scope (in the response body of an exchange) that answers a request
	// recorded by another exchange: one whose own body did not hold it. It
	// is called after OnRestore, if the id was rewritten too, without the
	// Table's lock held, and must not keep the slices in m.
	OnElsewhere func(m Elsewhere)

	// Budget, if set, bounds the bytes the adapters hold in buffers for
	// the Table's exchanges at once (see Budget); nil sets no bound.
	Budget *Budget

	// Remap, if set, makes the Table assign the id each request is sent
	// with, instead of remembering the client's own (see AppendRecorded):
	// responses are then matched against the assigned ids and written back
	// with the client's. Set it before first use.
	Remap bool

	// OnRemap, if set, is called for each request id remapped, with the
	// client's id and the id assigned, without the Table's lock held. It
	// must not keep the slices.
	OnRemap func(client, sent []byte)

	// OnRefused, if set, is called by an adapter of a remapping Table for
	// each message it answered with AppendRefusal instead of sending it.
	OnRefused func(err error)

	mu      sync.Mutex
	table   rpcid.Pending[slot]
	n       int       // records in table
	orphans list.List // *record whose exchange ended unanswered, oldest first
	stats   Stats
	remap   remapState
}

// Stats counts what a Table has seen.
type Stats struct {
	Requests  int64 // request ids recorded
	Responses int64 // response ids examined (in messages Restore was given)
	Restored  int64 // response ids rewritten to the spelling sent
	Unmatched int64 // valid, non-null response ids that matched no remembered id
	Ambiguous int64 // response ids Equal to remembered ids of different spellings, left as received
	Remapped  int64 // request ids sent as an id the Table assigned (Remap)
}

// An Elsewhere describes a response id that answered a request of another
// exchange than the one whose response body held it (see Table.OnElsewhere).
type Elsewhere struct {
	Received []byte // the response id as received
	Sent     []byte // the request id as it was sent (and is now written)
	// Ended reports that the request's exchange had ended without its
	// response (it was an orphan); otherwise it was still in flight.
	Ended bool
	// Session reports that the request was sent in the MCP session of the
	// body that held the response: the same non-empty session was given to
	// RecordSession and Table.Scope.
	Session bool
}

// A record is one request id sent by one exchange.
type record struct {
	id      rpcid.ID      // the id sent upstream: the client's, or the one assigned (Remap)
	raw     []byte        // the client's id's exact JSON text; never modified
	ex      *Exchange     // the exchange that recorded it
	session string        // the MCP session it was sent in, or ""
	elem    *list.Element // in Table.orphans once the exchange ended unanswered
	done    bool          // answered or dropped: no longer in the table
	listen  bool          // a subscriptions/listen request (Remap), which the server's cancel may name
	// short holds raw when it is short, and self is the backing array of
	// its slot's records while it is the only one: the common case then
	// costs no allocations of its own.
	short [24]byte
	self  [1]*record
}

// A slot holds the records of all remembered requests with Equal ids, in the
// order they were sent. Usually there is one.
type slot struct{ recs []*record }

// An Exchange is the set of ids one call to Record remembered: for HTTP, one
// request body. Release ends it.
type Exchange struct {
	recs     []*record
	released bool
	// one and ref are the storage of recs for an exchange of one id (most
	// of them), so that Record allocates once for it.
	one record
	ref [1]*record
}

// Stats returns the counts so far.
func (t *Table) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// Idle reports whether examining a server-to-client message can change
// nothing and tell nobody anything: no id is remembered and OnUnmatched is
// not set. Adapters skip scanning then.
func (t *Table) Idle() bool {
	return t.OnUnmatched == nil && t.Len() == 0
}

// Len returns the number of ids remembered now: requests in flight, plus
// orphans not yet dropped.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

func (t *Table) maxPending() int {
	if t.MaxPending > 0 {
		return t.MaxPending
	}
	return DefaultMaxPending
}

// Record remembers the ids of the requests in data, one client-to-server
// JSON text: a request, a notification, or a batch (JSON-RPC 2.0 sections 4
// and 6). Only JSON-RPC 2.0 requests with a valid, non-null id are
// remembered (see isRequest): notifications, null and invalid ids, messages
// without "jsonrpc":"2.0", messages whose id, method, result or error member
// is named twice or by a case variant, and texts that are not JSON are not.
// data is not retained.
//
// It returns the Exchange to Release when the exchange ends, or nil when no
// id was remembered. If the ids do not fit within MaxPending after dropping
// orphans, it remembers none and returns an error wrapping
// ErrTooManyPending.
func (t *Table) Record(data []byte) (*Exchange, error) {
	return t.RecordSession(data, "")
}

// RecordSession is Record for requests sent in the MCP session named
// session (the request's Mcp-Session-Id header), or in none if session is
// "": a response found through a Scope with the same Session answers them
// before requests of other sessions (see Table).
func (t *Table) RecordSession(data []byte, session string) (*Exchange, error) {
	ex, _, err := t.recordText(data, session)
	return ex, err
}

// RecordText is Record, and also reports whether data is one JSON text
// (text), with optional whitespace around it, as internal/scan checks it:
// when it is not, nothing is remembered and ex and err are nil. NewStdioReader's
// line function uses it to learn whether a line was taken as one message.
func (t *Table) RecordText(data []byte) (ex *Exchange, text bool, err error) {
	return t.recordText(data, "")
}

// recordText is RecordText for requests sent in session.
func (t *Table) recordText(data []byte, session string) (ex *Exchange, text bool, err error) {
	var buf [8]scan.Message
	msgs, text := scanMessages(buf[:0], data)
	n := 0
	for i := range msgs {
		if isRequest(&msgs[i], data) {
			msgs[n] = msgs[i]
			n++
		}
	}
	if n == 0 {
		return nil, text, nil
	}
	ex = &Exchange{}
	if n == 1 {
		ex.recs = ex.ref[:0]
	} else {
		ex.recs = make([]*record, 0, n)
	}
	for i := range msgs[:n] {
		raw := msgs[i].ID.Bytes(data)
		id, err := rpcid.Parse(raw)
		if err != nil || id.Kind() == rpcid.KindNull {
			continue
		}
		r := &ex.one
		if len(ex.recs) > 0 {
			r = new(record)
		}
		r.id, r.ex, r.session = id, ex, session
		if len(raw) <= len(r.short) {
			r.raw = append(r.short[:0], raw...)
		} else {
			r.raw = bytes.Clone(raw) // do not pin data
		}
		ex.recs = append(ex.recs, r)
	}
	if len(ex.recs) == 0 {
		return nil, true, nil
	}
	return ex, true, t.add(ex)
}

// add remembers the records of ex, a new exchange.
func (t *Table) add(ex *Exchange) error {
	limit := t.maxPending()
	n := len(ex.recs)
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.n+n > limit && t.orphans.Len() > 0 {
		t.remove(t.orphans.Front().Value.(*record))
	}
	if t.n+n > limit {
		return fmt.Errorf("%w: %d pending, the message adds %d, MaxPending is %d", ErrTooManyPending, t.n, n, limit)
	}
	for _, r := range ex.recs {
		if t.Remap {
			t.assign(r)
			t.n++
			continue
		}
		_, sl, ok := t.table.Take(r.id)
		if !ok {
			sl.recs = r.self[:0:1]
		}
		sl.recs = append(sl.recs, r)
		t.put(sl)
		t.n++
	}
	t.stats.Requests += int64(n)
	return nil
}

// put stores a non-empty slot in the table. t.mu is held, and no Equal id is
// in the table.
func (t *Table) put(sl slot) {
	if err := t.table.Add(sl.recs[0].id, sl); err != nil {
		// Records hold valid, non-null ids, and their slot was taken out.
		panic("restore: internal error: " + err.Error())
	}
}

// remove takes r out of the table. t.mu is held.
func (t *Table) remove(r *record) {
	if _, sl, ok := t.table.Take(r.id); ok {
		sl.recs = slices.DeleteFunc(sl.recs, func(x *record) bool { return x == r })
		if len(sl.recs) > 0 {
			t.put(sl)
		}
	}
	t.drop(r)
}

// drop marks r as gone from the table. t.mu is held.
func (t *Table) drop(r *record) {
	if r.elem != nil {
		t.orphans.Remove(r.elem)
		r.elem = nil
	}
	if t.Remap {
		t.forgetClient(r)
	}
	r.done = true
	t.n--
}

// Release ends ex: its unanswered ids are forgotten if failed, and kept as
// orphans otherwise. A nil Exchange and a second Release do nothing.
func (t *Table) Release(ex *Exchange, failed bool) {
	if ex == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ex.released {
		return
	}
	ex.released = true
	for _, r := range ex.recs {
		switch {
		case r.done:
		case failed:
			t.remove(r)
		case r.elem == nil: // not already an orphan (a cancelled request)
			r.elem = t.orphans.PushBack(r)
		}
	}
	ex.recs = nil
}

// Restore finds the response ids in data, one server-to-client JSON text (a
// response or a batch), and calls fn, in increasing order of position, for
// each one that must be rewritten: data[start:end] is the id as received and
// sent is the spelling to write instead, which is never modified and may be
// kept. Each response id Equal to a remembered id answers it, whether or
// not it needs rewriting. Only JSON-RPC 2.0 responses are examined (see
// isResponse): requests the server sends (objects with a "method" member),
// messages without "jsonrpc":"2.0" (a REST API's {"id":"5","result":...}),
// and messages whose id, method, result or error member is named twice or by
// a case variant are never touched and answer nothing.
//
// Restore matches without a scope, against all remembered ids (step 3 in
// Table's order): for a transport with one stream each way (stdio). For the
// response body of one exchange, use Scope.Restore.
func (t *Table) Restore(data []byte, fn func(start, end int, sent []byte)) {
	t.restoreText(data, nil, fn)
}

// A Scope is a Table seen from the response body of one exchange: its
// methods are the Table's, but match each response id against the
// exchange's own requests first, then against those of its MCP session,
// then against all (see Table), and report a match with another exchange's
// request to Table.OnElsewhere. The zero Scope must not be used; get one
// from Table.Scope. A Scope is a small value: copy it freely.
type Scope struct {
	t       *Table
	ex      *Exchange
	session string
}

// Scope returns the Scope of a response body of exchange ex (nil when its
// request recorded no id, as a GET's or a notification's does) sent in the
// MCP session named session ("" for none; see RecordSession).
func (t *Table) Scope(ex *Exchange, session string) Scope {
	return Scope{t: t, ex: ex, session: session}
}

// Restore is Table.Restore for a text found in s's body.
func (s Scope) Restore(data []byte, fn func(start, end int, sent []byte)) {
	s.t.restoreText(data, &s, fn)
}

// RestoreInPlace is Table.RestoreInPlace for a text found in s's body.
func (s Scope) RestoreInPlace(data []byte) (out []byte, changed bool) {
	return s.t.restoreInPlace(data, &s)
}

// AppendRestored is Table.AppendRestored for a text found in s's body.
func (s Scope) AppendRestored(dst, data []byte) (out []byte, changed bool) {
	out, changed, _ = s.t.appendRestored(dst, data, &s)
	return out, changed
}

// restoreText is Restore within sc (nil for none), and reports whether data
// is one JSON text, with optional whitespace around it (when it is not, fn
// is not called and nothing is counted).
func (t *Table) restoreText(data []byte, sc *Scope, fn func(start, end int, sent []byte)) (text bool) {
	var buf [8]scan.Message
	msgs, text := scanMessages(buf[:0], data)
	for i := range msgs {
		m := &msgs[i]
		if t.Remap {
			t.restoreRemapped(data, m, sc, fn)
			continue
		}
		if !isResponse(m, data) {
			continue
		}
		raw := m.ID.Bytes(data)
		if sent := t.restore(raw, sc); sent != nil {
			fn(m.ID.Start, m.ID.End, sent)
		}
	}
	return text
}

// restoreRemapped is restoreText's work on m, one message of data, for a
// remapping Table: a response's id, and the other places that name an id the
// Table assigned (see remapped), in increasing order of position.
func (t *Table) restoreRemapped(data []byte, m *scan.Message, sc *Scope, fn func(start, end int, sent []byte)) {
	var sent []byte
	if isResponse(m, data) {
		sent = t.restore(m.ID.Bytes(data), sc)
	}
	type edit struct {
		start, end int
		sent       []byte
	}
	var buf [2]edit
	edits := buf[:0]
	if sent != nil {
		edits = append(edits, edit{m.ID.Start, m.ID.End, sent})
	}
	t.remapped(data, m, sent, func(start, end int, sent []byte) {
		edits = append(edits, edit{start, end, sent})
	})
	if len(edits) == 2 && edits[1].start < edits[0].start {
		edits[0], edits[1] = edits[1], edits[0]
	}
	for _, e := range edits {
		fn(e.start, e.end, e.sent)
	}
}

// RestoreInPlace restores the response ids in data as AppendRestored does,
// writing into data itself when no id grows, and returns the result and
// whether any id was rewritten. Otherwise the result is a new slice and data
// is unchanged.
func (t *Table) RestoreInPlace(data []byte) (out []byte, changed bool) {
	return t.restoreInPlace(data, nil)
}

func (t *Table) restoreInPlace(data []byte, sc *Scope) (out []byte, changed bool) {
	type edit struct {
		start, end int
		sent       []byte
	}
	var buf [4]edit
	edits := buf[:0]
	grows := false
	t.restoreText(data, sc, func(start, end int, sent []byte) {
		edits = append(edits, edit{start, end, sent})
		grows = grows || len(sent) > end-start
	})
	if len(edits) == 0 {
		return data, false
	}
	if grows {
		out = make([]byte, 0, len(data)+16)
	} else {
		out = data[:0] // each write lands at or before what it copies
	}
	last := 0
	for _, e := range edits {
		out = append(out, data[last:e.start]...)
		out = append(out, e.sent...)
		last = e.end
	}
	return append(out, data[last:]...), true
}

// AppendRestored appends data to dst with its response ids restored (see
// Restore) and reports whether any id was rewritten.
func (t *Table) AppendRestored(dst, data []byte) (out []byte, changed bool) {
	out, changed, _ = t.appendRestored(dst, data, nil)
	return out, changed
}

// AppendRestoredText is AppendRestored, and also reports whether data is
// one JSON text (text), with optional whitespace around it, as
// internal/scan checks it: when it is not, data is appended unchanged and
// nothing is counted. NewStdioReader's line function uses it to learn
// whether a line was taken as one message.
func (t *Table) AppendRestoredText(dst, data []byte) (out []byte, changed, text bool) {
	return t.appendRestored(dst, data, nil)
}

func (t *Table) appendRestored(dst, data []byte, sc *Scope) (out []byte, changed, text bool) {
	last := 0
	text = t.restoreText(data, sc, func(start, end int, sent []byte) {
		dst = append(dst, data[last:start]...)
		dst = append(dst, sent...)
		last = end
		changed = true
	})
	return append(dst, data[last:]...), changed, text
}

// restore answers a response whose id is raw, found within sc (nil for
// none): it forgets the matching request id and returns the bytes to write
// instead of raw, or nil to leave raw as it is (raw is already spelled as
// sent, matches nothing, or is ambiguous). It calls the Table's hooks.
func (t *Table) restore(raw []byte, sc *Scope) []byte {
	t.mu.Lock()
	t.stats.Responses++
	_, sl, m, _ := t.table.TakeJSONMatch(raw)
	if m != rpcid.MatchTaken {
		unmatched := m == rpcid.MatchNotPending // not null, not invalid
		if unmatched {
			t.stats.Unmatched++
		}
		t.mu.Unlock()
		if unmatched && t.OnUnmatched != nil {
			t.OnUnmatched(raw)
		}
		return nil
	}
	var repl []byte
	var away Elsewhere // filled in when the request was another exchange's
	i, rewrite := sl.choose(raw, sc)
	if i >= 0 {
		r := sl.recs[i]
		if sc != nil && r.ex != sc.ex {
			away = Elsewhere{Received: raw, Sent: r.raw, Ended: r.elem != nil, Session: sc.session != "" && r.session == sc.session}
		}
		sl.recs = slices.Delete(sl.recs, i, i+1)
		t.drop(r)
		if rewrite {
			repl = r.raw
			t.stats.Restored++
		}
	} else {
		t.stats.Ambiguous++
	}
	if len(sl.recs) > 0 {
		t.put(sl)
	}
	t.mu.Unlock()
	switch {
	case i < 0:
		if t.OnAmbiguous != nil {
			t.OnAmbiguous(raw)
		}
	case repl != nil && t.OnRestore != nil:
		t.OnRestore(raw, repl)
	}
	if away.Sent != nil && t.OnElsewhere != nil {
		t.OnElsewhere(away)
	}
	return repl
}

// The groups of records a response is matched against, in order (see
// Table).
const (
	groupExchange = iota // the records of the scope's exchange
	groupSession         // the records sent in the scope's session
	groupAll             // every record
)

// holds reports whether r is in group g of scope sc (nil for none, where
// only groupAll holds anything).
func (sc *Scope) holds(g int, r *record) bool {
	switch {
	case g == groupAll:
		return true
	case sc == nil:
		return false
	case g == groupExchange:
		return sc.ex != nil && r.ex == sc.ex
	}
	return sc.session != "" && r.session == sc.session
}

// choose picks the record a response with id raw, found within sc (nil for
// none), answers: among the records of the first group (see Table) that
// holds any, a record spelled exactly as raw (no rewrite), preferring one in
// flight, then the only spelling among requests still in flight, then the
// only spelling among orphans. It returns -1 if the spellings disagree.
func (sl *slot) choose(raw []byte, sc *Scope) (i int, rewrite bool) {
	for g := groupExchange; g <= groupAll; g++ {
		if i, rewrite, ok := sl.chooseIn(raw, sc, g); ok {
			return i, rewrite
		}
	}
	return -1, false // unreachable: groupAll holds every record, and a slot has one
}

// chooseIn is choose within group g of sc; ok is false if the group holds
// none of sl's records.
func (sl *slot) chooseIn(raw []byte, sc *Scope, g int) (i int, rewrite, ok bool) {
	i = -1
	for j, r := range sl.recs {
		if !sc.holds(g, r) {
			continue
		}
		ok = true
		if bytes.Equal(r.raw, raw) {
			if r.elem == nil {
				return j, false, true
			}
			if i < 0 {
				i = j
			}
		}
	}
	if i >= 0 || !ok {
		return i, false, ok
	}
	for _, orphans := range [2]bool{false, true} {
		for j, r := range sl.recs {
			if (r.elem != nil) != orphans || !sc.holds(g, r) {
				continue
			}
			if i < 0 {
				i = j
			} else if !bytes.Equal(r.raw, sl.recs[i].raw) {
				return -1, false, true
			}
		}
		if i >= 0 {
			return i, true, true
		}
	}
	return -1, false, true // unreachable: the group holds a record
}

// TransportTable returns the Table behind an *httpid.Transport, given as
// transport (typed any: httpid imports this package, not the reverse), or
// nil for any other value. Package httpid sets it when it is initialised, so
// that rpcid proxy can set the Table's OnRestore and OnUnmatched for -v
// before the Transport's first use, without widening httpid's API.
var TransportTable func(transport any) *Table
