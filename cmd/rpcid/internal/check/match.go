package check

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// request handles a request with an id.
func (s *capture) request(pos position, dir direction, id rpcid.ID, raw []byte, method string) {
	server := dir == fromServer
	if dir == fromUnknown {
		s.noteMethod(method, pos)
	}
	s.seq++
	if id.Kind() == rpcid.KindNull {
		// Warned of, and then pending like any request: a response with a
		// null id answers it before it is taken for a reply to an
		// unreadable request.
		s.report(pos, levelWarning, kindNullRequest,
			fmt.Sprintf("request %s has a null id: JSON-RPC 2.0 discourages it and MCP forbids it; its response cannot be told from a reply to an unreadable request", methodName(s.intern(method))),
			&finding{ID: clone(raw), Method: s.intern(method)})
	}
	t := s.t
	x := t.alloc()
	r := t.at(x)
	r.pos, r.seq = pos.n(), s.seq
	t.setMethod(x, s.intern(method))
	r.flags = fLive
	if server {
		r.flags |= fServer
	}
	if dir == fromUnknown {
		r.flags |= fUnmarked
		if looksServerSent(method, s.initialized) {
			r.flags |= fServerLike
		}
	}
	setID(r, id, raw)
	if s.numericWarnings(pos, "request", id, raw, t.method(x)) {
		r.flags |= fWarned
	}
	si := sideOf(server)
	sd := &t.sides[si]
	if pos.entry > 0 {
		s.entryRequests = append(s.entryRequests, x)
	}
	key := keyOf(id)
	s.retireFailed(sd, si, key, x, server)
	if y, ok := sd.get(key); ok && t.at(y).flags&(fAnswered|fCancelled) == fCancelled {
		// The id of a request its sender cancelled, sent again. The sender
		// has given up on the cancelled one ("The sender of the
		// cancellation notification SHOULD ignore any response to the
		// request that arrives afterward", MCP), so responses with the id
		// go to the new request; but MCP forbids reusing an id ("MUST NOT
		// have been previously used by the requestor within the same
		// session"), and a late answer to the cancelled request would be
		// taken for the new one's.
		f := &finding{ID: clone(raw), Method: t.method(x), Request: s.ref(y)}
		msg := fmt.Sprintf("%s id %s (%s) reuses the id of %s, which its sender cancelled: MCP forbids reusing a request id within a session, and a late answer to the cancelled request would be taken for this one's",
			reqWord(server), show(raw), t.method(x), s.describe(y))
		s.report(pos, levelError, kindDuplicate, s.withHint(msg, f, x, y), f)
		s.retire(sd, key, y, true) // cancelled: nothing more is checked of it
		// The server may still answer the cancelled request (MCP lets the
		// answer cross the notification): one response more than the new
		// request takes is that, not a second answer.
		r.flags |= fLate
	}
	if y, ok := sd.get(key); ok {
		head := t.at(y)
		if head.flags&fAnswered == 0 {
			s.queueDuplicate(pos, sd, key, x, y, raw, server)
			return
		}
		head.flags |= fDropped // an answered request whose id is sent again
	}
	r.dupNext, r.dupTail = none, none
	sd.set(key, x)
	t.pending++
	t.pendLink(sd, x)

	if needsJS(id) {
		t.jsLink(sd, x)
	}
	if s.har || s.log == logSDK {
		s.matchDeferred(si, id.Key(), x)
	}
}

// retireFailed retires the pending requests with x's id (key) on side si
// whose HTTP exchange failed, before x is recorded: x is no duplicate of
// them (see retire).
func (s *capture) retireFailed(sd *side, si int, key idKey, x ref, server bool) {
	t := s.t
	for {
		// A pending request whose HTTP exchange failed (a 401 before
		// authorization, a redirect, a 5xx, a connection reset) can no
		// longer be answered: sending its id again is no duplicate.
		y, ok := sd.get(key)
		if !ok || t.at(y).flags&(fAnswered|fFailed) != fFailed {
			break
		}
		s.retire(sd, key, y, t.method(y) == t.method(x))
	}
	if from := s.redirectFrom; from != nil && from != s.p && !server {
		// The entry before was redirected (307, 308) to another origin,
		// whose session this is: the request sent there again is the same
		// request, as one sent again to the same origin is.
		here := s.p
		s.useSession(from)
		fsd := &s.t.sides[si]
		if y, ok := fsd.get(key); ok && s.t.at(y).flags&(fAnswered|fFailed) == fFailed && s.t.method(y) == t.method(x) {
			s.retire(fsd, key, y, true)
		}
		s.useSession(here)
	}
}

// queueDuplicate queues request x behind the pending request y with an
// Equal id (key), and reports the duplicate.
func (s *capture) queueDuplicate(pos position, sd *side, key idKey, x, y ref, raw []byte, server bool) {
	t := s.t
	head, r := t.at(y), t.at(x)
	// A duplicate: queue it behind the pending request.
	prev := y
	if head.dupNext == none {
		head.dupNext = x
	} else {
		prev = head.dupTail
		t.at(prev).dupNext = x
	}
	head.dupTail = x
	r.dupNext, r.dupTail = none, prev
	if s.bodyName == "request" && !server && head.pos != r.pos {
		// Sent in a HAR entry's request body behind a request of an
		// earlier entry: a response in this entry's response body
		// answers it first (see own).
		if _, ok := s.ownDups[key]; !ok {
			if s.ownDups == nil {
				s.ownDups = map[idKey]ownDup{}
			}
			s.ownDups[key] = ownDup{x, r.seq}
		}
	}
	t.pending++
	t.pendLink(sd, x)
	f := &finding{ID: clone(raw), Method: t.method(x), Request: s.ref(y)}
	msg := fmt.Sprintf("%s id %s (%s) sent while %s is still pending: their responses cannot be told apart",
		reqWord(server), show(raw), t.method(x), s.describe(y))
	s.report(pos, levelError, kindDuplicate, s.withHint(msg, f, x, y), f)
}

// retire takes the pending request y, whose HTTP exchange failed, out of
// the index of its side, so that a request sent later with an Equal id
// (key) is not called a duplicate and takes its responses. A request sent
// again with the same method (retried) is the same request: y is
// forgotten, and only the new attempt is checked. Otherwise y stays
// unanswered, and finish reports it with its HTTP status.
func (s *capture) retire(sd *side, key idKey, y ref, retried bool) {
	t := s.t
	r := t.at(y)
	t.jsUnlink(sd, y)
	t.pendUnlink(sd, y)
	if !t.promoteDup(sd, key, y) {
		sd.del(key, y)
	}
	r.flags &^= fFailed
	if retried {
		t.pending--
		t.release(y)
	}
}

// setID records the id of request r compactly.
func setID(r *request, id rpcid.ID, raw []byte) {
	if n, ok := id.Int64(); ok {
		r.n = n
		r.flags |= fInt | fNumber
		if isCanonicalInt(raw, n) {
			r.flags |= fCanonInt
			return
		}
	} else if str, ok := id.StringValue(); ok {
		if base.IsCanonicalDigits(str) {
			if n, err := strconv.ParseInt(str, 10, 64); err == nil && len(raw) == len(str)+2 {
				r.n = n
				r.flags |= fQuotedInt
				return
			}
		}
		if len(raw) == len(str)+2 && string(raw[1:len(raw)-1]) == str {
			r.text = str // shares the id's copy
			r.flags |= fPlainStr
			return
		}
	} else if id.Kind() == rpcid.KindNumber {
		r.flags |= fNumber
	}
	r.text = string(raw)
}

// isCanonicalInt reports whether raw is the canonical decimal spelling of n.
func isCanonicalInt(raw []byte, n int64) bool {
	var buf [20]byte
	return string(strconv.AppendInt(buf[:0], n, 10)) == string(raw)
}

// matchDeferred answers the new request x with a HAR response read
// before it, if one has an Equal id.
func (s *capture) matchDeferred(si int, key rpcid.Key, x ref) {
	m := s.deferredIdx[si]
	list := m[key]
	if len(list) == 0 {
		return
	}
	d := &s.deferred[list[0]]
	if !s.sdkInOrder(d.pos, x) {
		return
	}
	if len(list) == 1 {
		delete(m, key)
	} else {
		m[key] = list[1:]
	}
	d.taken = true
	if d.undelivered {
		s.t.at(x).note = d.why // pending still
		d.id, d.raw = rpcid.ID{}, ""
		return
	}
	s.answer(d.pos, &s.t.sides[si], x, d.id, []byte(d.raw))
	d.id, d.raw = rpcid.ID{}, "" // keep only the small record
}

// response handles a response. toClient is true when it answers a request
// of the client.
func (s *capture) response(pos position, toClient bool, id rpcid.ID, raw, errRaw []byte) {
	si := sideOf(!toClient)
	t := s.t
	sd := &t.sides[si]
	if s.httpError && s.failedExchange && errRaw != nil && toClient {
		// The body of a non-2xx HTTP response: with a null id, or one
		// that no request has, the transport's refusal of the HTTP
		// request; the requests and answers of the exchange are reported
		// as refused (see exchangeEnd). The body is a JSON-RPC response
		// all the same, and its id is reported as in any other: a null id
		// that no parse error or invalid request excuses, answering an
		// exchange that sent a request, was dropped by a peer that read
		// the request (MCP's header checks answer so), and an id that no
		// request has matches none.
		if id.Kind() == rpcid.KindNull {
			s.refuse(errRaw, "a null id")
			x, _ := s.likely(si)
			if code := describeError(errRaw).code; x != none && code != "-32700" && code != "-32600" {
				// The exchange sent a request, whose id it left out.
				s.nullResponse(pos, si, raw, errRaw, none, none)
			}
			return
		}
		if _, ok := sd.get(keyOf(id)); !ok {
			s.refuse(errRaw, "the id "+show(raw)+", which matches no request sent before it in its session")
		}
	}
	if s.failedExchange && !toClient && s.bodyName == "request" && id.Kind() != rpcid.KindNull {
		x, ok := sd.get(keyOf(id))
		if ok && t.at(x).flags&fAnswered == 0 {
			// A client answer in a POST the server refused (or failed):
			// the server request is not answered by it.
			s.undelivered = append(s.undelivered, x)
			return
		}
		if !ok && !s.final {
			s.undeliveredLater = append(s.undeliveredLater, len(s.deferred))
			s.deferResponse(pos, si, id, raw)
			return
		}
	}
	if id.Kind() == rpcid.KindNull {
		x, ok := sd.get(keyOf(id))
		if ok && t.at(x).flags&fAnswered == 0 {
			x = s.own(pos, sd, keyOf(id), x)
			twins := s.nullTwins(x)
			// A request sent with a null id is pending: this answers it,
			// unless it is a parse error or an invalid request, which may
			// as well reply to a message the peer could not read.
			s.answer(pos, sd, x, id, raw)
			if twins != "" {
				f := &finding{ID: clone(raw), Request: s.ref(x)}
				if len(errRaw) > 0 && len(errRaw) <= 1024 {
					f.Error = clone(errRaw)
				}
				s.report(pos, levelError, kindNullResponse, "response with a null id: it may answer any of the requests pending with a null id, "+twins+", and the ids cannot tell which (check takes it for the first sent)", f)
			}
			if code := describeError(errRaw).code; errRaw != nil && (code == "-32700" || code == "-32600") {
				s.nullResponse(pos, si, raw, errRaw, x, none)
			}
			return
		}
		// A request sent with a null id and already answered: this may be
		// a second answer to it.
		again := none
		if ok {
			again = x
		}
		s.nullResponse(pos, si, raw, errRaw, none, again)
		return
	}
	x, ok := sd.get(keyOf(id))
	if ok && t.at(x).flags&(fAnswered|fLate) == fAnswered|fLate {
		// The late answer to the cancelled request whose id x reused (or
		// x's own, the first being the cancelled one's): the capture
		// cannot tell which, and neither is wrong.
		t.at(x).flags &^= fLate
		return
	}
	if ok && t.at(x).flags&fAnswered != 0 {
		f := &finding{ID: clone(raw), Method: t.method(x), Request: s.ref(x)}
		at := s.answeredAt(x)
		f.AnsweredLine, f.AnsweredEntry = at.line, at.entry
		msg := fmt.Sprintf("response id %s is a second answer: %s was already answered at %s", show(raw), s.describe(x), at)
		s.report(pos, levelError, kindAnsweredTwice, s.withHint(msg, f, x), f)
		return
	}
	if !ok {
		if (s.har || s.log == logSDK) && !s.final {
			// A HAR's responses may come before their requests; so may a
			// go-sdk log's (see sdkReorderLines).
			s.deferResponse(pos, si, id, raw)
			return
		}
		s.unmatched(pos, si, id, raw)
		s.numericWarnings(pos, "response", id, raw, "")
		return
	}
	s.answer(pos, sd, s.own(pos, sd, keyOf(id), x), id, raw)
}

// refuse records the error errRaw of a non-2xx HTTP response as the
// transport's refusal of the exchange (see session.refusal), idNote saying
// what its id was.
func (s *capture) refuse(errRaw []byte, idNote string) {
	if s.refusal == "" {
		s.refusal = describeError(errRaw).text + ", with " + idNote
	}
}

// deferResponse keeps a HAR response that matches no request yet.
func (s *capture) deferResponse(pos position, si int, id rpcid.ID, raw []byte) {
	if s.deferredIdx[si] == nil {
		s.deferredIdx[si] = map[rpcid.Key][]int{}
	}
	k := id.Key()
	s.deferredIdx[si][k] = append(s.deferredIdx[si][k], len(s.deferred))
	s.deferred = append(s.deferred, deferredResponse{pos: pos, id: id, raw: string(raw), side: si, note: s.reqNote, p: s.p})
}

// promoteDup puts the first duplicate queued behind request x, if any, in
// x's place in the table under key, and takes x out of the queue. It
// reports whether there was one.
func (t *table) promoteDup(sd *side, key idKey, x ref) bool {
	r := t.at(x)
	next, tail := r.dupNext, r.dupTail
	r.dupNext, r.dupTail = none, none
	if next == none {
		return false
	}
	n := t.at(next)
	n.dupTail = tail
	if n.dupTail == next {
		n.dupTail = none
	}
	sd.set(key, next) // the request after it already links back to it
	if needsJS(n.id()) {
		t.jsLink(sd, next)
	}
	return true
}

// unqueue takes request x out of the queue of requests with an Equal id
// behind head, where it may stand anywhere; head stays first.
func (t *table) unqueue(head, x ref) {
	r := t.at(x)
	prev, next := r.dupTail, r.dupNext
	r.dupNext, r.dupTail = none, none
	t.at(prev).dupNext = next
	switch {
	case next != none:
		t.at(next).dupTail = prev
	case prev == head:
		t.at(head).dupTail = none // the queue is empty
	default:
		t.at(head).dupTail = prev
	}
}

// own returns the pending request that a response with an id of key,
// read at pos, answers among those queued with the pending request head
// (the one sd's index holds for key): in a HAR response body, the first
// request of the entry's own HTTP exchange, as httpid answers a POST's
// requests on that POST's response before any other (see restore.Table);
// otherwise, and when the exchange sent no such request, head, the
// earliest sent.
func (s *capture) own(pos position, sd *side, key idKey, head ref) ref {
	t := s.t
	if s.bodyName != "response" || len(s.ownDups) == 0 || t.at(head).pos == pos.n() {
		return head
	}
	o, ok := s.ownDups[key]
	if !ok {
		return head
	}
	// o is the first request of the entry queued behind an earlier one
	// (see request); the requests after it in the queue are the entry's
	// too, and take its place when it is answered (see answer).
	r := t.at(o.x)
	if r.flags&(fLive|fAnswered|fServer) != fLive || r.seq != o.seq || r.dupTail == none || sd != &t.sides[0] {
		return head // no longer queued behind another entry's request
	}
	return o.x
}

// ownDup is a request of a HAR entry queued behind a request of an
// earlier entry (see session.ownDups): its record, and its seq, which
// tells it from a request that took the record after it was freed.
type ownDup struct {
	x   ref
	seq uint32
}

// answer matches the response at pos (id, raw) to the pending request x.
func (s *capture) answer(pos position, sd *side, x ref, id rpcid.ID, raw []byte) {
	t := s.t
	r := t.at(x)
	key := keyOf(id)
	t.jsUnlink(sd, x)
	t.pending--
	t.pendUnlink(sd, x)

	if head, ok := sd.get(key); ok && head != x && r.dupTail != none {
		// Queued behind head, and answered first (see own): it leaves the
		// queue, and the next request of its exchange takes its place.
		next := r.dupNext
		t.unqueue(head, x)
		r.flags |= fDropped
		if r.flags&fLate != 0 {
			// The late answer may still come: after the requests queued
			// with the id.
			t.at(head).flags |= fLate
			r.flags &^= fLate
		}
		if o, ok := s.ownDups[key]; ok && o.x == x {
			if next != none {
				s.ownDups[key] = ownDup{next, t.at(next).seq}
			} else {
				delete(s.ownDups, key)
			}
		}
	} else if t.promoteDup(sd, key, x) {
		r.flags |= fDropped
		if !s.har {
			s.twins(sd, key, x, pos)
		}
		if r.flags&fLate != 0 {
			// The late answer may still come: after the requests queued
			// with the id.
			if y, ok := sd.get(key); ok {
				t.at(y).flags |= fLate
			}
			r.flags &^= fLate
		}
	}
	r.flags |= fAnswered
	r.setAns(pos.n())
	newFinding := func() *finding { return &finding{ID: clone(raw), Method: t.method(x), Request: s.ref(x)} }
	sentString := r.flags&(fQuotedInt|fPlainStr) != 0 || (r.flags&fNumber == 0 && len(r.text) > 0 && r.text[0] == '"')
	gotString := id.Kind() == rpcid.KindString
	// Where the id changed: between the peers, unless the capture is the
	// log of the side that sent the response (a go-sdk server's own
	// LoggingTransport), which wrote it so.
	where := "in transit"
	if sender := fromServer; s.log == logSDK && s.logSent != fromUnknown {
		if r.flags&fServer != 0 {
			sender = fromClient
		}
		if sender == s.logSent {
			where = "in the server, whose log this is"
			if sender == fromClient {
				where = "in the client, whose log this is"
			}
		}
	}
	switch {
	case sentString != gotString:
		sentWord, gotWord := "number", "string"
		if sentString {
			sentWord, gotWord = "string", "number"
		}
		f := newFinding()
		f.short = fmt.Sprintf("response id %s matches %s only under the rule: the id's JSON type changed from %s to %s %s",
			show(raw), s.describe(x), sentWord, gotWord, where)
		f.why = "SDKs that compare type and value (go-sdk, mcp-go's stdio and SSE transports, C#) drop this response"
		s.report(pos, levelWarning, kindTypeChanged, s.explainWithHint(f, x), f)
		s.noteRespelled(x, fmt.Sprintf("changed type (%s for %s)", show(raw), show(r.raw())))
	case isNumber(id) && !r.spelled(raw):
		f := newFinding()
		f.short = fmt.Sprintf("response id %s equals the id of %s by value, but its spelling changed %s",
			show(raw), s.describe(x), where)
		f.why = spellingPeers(r.raw(), raw, id)
		s.report(pos, levelWarning, kindSpellingChanged, s.explainWithHint(f, x), f)
		s.noteRespelled(x, fmt.Sprintf("changed spelling (%s for %s)", show(raw), show(r.raw())))
	}
	if r.flags&fWarned == 0 {
		s.numericWarnings(pos, "response", id, raw, t.method(x))
	}
	t.remember(x)
}

// spellingPeers says which SDKs fail on a response whose numeric id, got,
// equals the request's, sent, by value but is spelled otherwise: what each
// does with the spellings involved (see the peer results in
// conformance/RESULTS.md and bench's TestPeerIDTable). go-sdk, mcp-go and
// the TypeScript SDK read numbers by value and match both.
func spellingPeers(sent, got []byte, id rpcid.ID) string {
	const bytewise = "SDKs that compare spellings byte for byte (creachadair/jrpc2) miss it"
	n, isInt := id.Int64()
	if !isInt {
		// Neither is an integer: most SDKs refuse fractional ids anyway.
		return bytewise
	}
	canon := strconv.FormatInt(n, 10)
	// odd says who refuses the spellings raws, all of one value and none
	// of them the plain integer.
	odd := func(raws ...[]byte) string {
		var fracs, others []string
		for _, raw := range raws {
			if bytes.ContainsAny(raw, ".eE") {
				fracs = append(fracs, show(raw)) // 1.0, 1e0: read as a float
			} else {
				others = append(others, show(raw)) // -0: a float to serde_json, and no uint64
			}
		}
		var says []string
		if len(fracs) > 0 {
			says = append(says, "rmcp, C# and the Python SDK refuse an id spelled "+strings.Join(fracs, " or ")+" (they take only integer spellings)")
		}
		if len(others) > 0 {
			says = append(says, "rmcp refuses an id spelled "+strings.Join(others, " or ")+" (serde_json reads it as a float)")
		}
		return strings.Join(says, ", ") + ", and sourcegraph/jsonrpc2 fails on it and closes the connection"
	}
	switch {
	case string(sent) == canon:
		// The response has the odd spelling.
		return bytewise + "; " + odd(got)
	case string(got) == canon:
		// The request had it, and the response is the plain integer.
		return fmt.Sprintf("the request spelled the id %s and the response as the plain integer %s: %s; %s, so a peer built on them refuses the request", show(sent), canon, bytewise, odd(sent))
	}
	return fmt.Sprintf("neither %s nor %s is the plain integer %s: %s; %s", show(sent), show(got), canon, bytewise, odd(sent, got))
}

func isNumber(id rpcid.ID) bool { return id.Kind() == rpcid.KindInt || id.Kind() == rpcid.KindNumber }

func reqWord(server bool) string {
	if server {
		return "server request"
	}
	return "request"
}

// describe names a request for other findings: request 2 (line 7, tools/call).
func (s *capture) describe(x ref) string {
	r := s.t.at(x)
	return fmt.Sprintf("%s %s (%s, %s)", reqWord(r.flags&fServer != 0), show(r.raw()), s.posOf(r), s.t.method(x))
}

func (s *capture) posOf(r *request) position {
	if s.har {
		return position{entry: int(r.pos)}
	}
	return position{line: int(r.pos)}
}

func (s *capture) ref(x ref) *requestRef {
	r := s.t.at(x)
	p := s.posOf(r)
	return &requestRef{Line: p.line, Entry: p.entry, ID: r.raw(), Method: s.t.method(x)}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func methodName(m string) string {
	if m == "" {
		return `""`
	}
	return m
}
