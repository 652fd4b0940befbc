package check

import (
	"math"
	"strconv"
	"strings"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// The requests of a session are kept in a slab of small fixed-size records
// (request) linked by index, and found through maps from the rpcid.Key of
// their id: about 140 bytes per pending request on 64-bit systems, and every
// operation O(1) amortized, however many ids share a float64.

// ref is the index of a request record in a table's slab; none is -1.
type ref int32

const none ref = -1

// Request flags.
const (
	fServer     uint32 = 1 << iota // sent by the server (answered by the client)
	fCancelled                     // MCP notifications/cancelled named it
	fWarned                        // its id already drew a numeric warning
	fAnswered                      // answered (kept for duplicate answers)
	fDropped                       // answered and no longer in the index; freed by the ring
	fCanonInt                      // text is "": the id is the integer n spelled canonically
	fQuotedInt                     // text is "": the id is the string spelling n canonically
	fPlainStr                      // text is the string's contents, the id their quoted form
	fNumber                        // the id is a JSON number (KindInt or KindNumber)
	fJS                            // linked in its side's js index
	fServerLike                    // unmarked, with a method only servers send
	fUnmarked                      // its line had no direction marker
	fInt                           // the id is KindInt (n is its value)
	fLive                          // the record is in use
	fInPend                        // linked in its side's pending list (unclaimed by a null-id response)
	fNullNote                      // note is the line or entry of the null-id response likely answering it
	fNullMaybe                     // with fNullNote: that response may instead answer a request sent with a null id again
	fFailed                        // HAR: its HTTP exchange failed (no 2xx status) without answering it
	fLate                          // sent with the id of a cancelled request: one response more is the late answer to that one
	fLost                          // a text that could not be read may answer it: table.lost says which
	fIdless                        // with fNullNote: that response has no "id" member at all
	fTwin                          // note says which request, pending with an Equal id, may have taken its answer
)

// A request is one request of the capture: pending, or answered and kept a
// while to recognize a second answer.
type request struct {
	pos    int64  // line or entry
	n      int64  // for an integer id, its value
	text   string // the id's JSON text as received, or see fCanonInt, fQuotedInt, fPlainStr
	method uint32 // index into the session's method names
	seq    uint32 // order of arrival within a line or entry
	note   uint32 // index+1 into the session's notes: why it may have gone unanswered
	// dupNext links the later requests with an Equal id, sent while this
	// one was pending. dupTail is, in the first request (the one the side's
	// index holds), the last of them; in a request queued behind it, the
	// request before it, so that a request can leave the queue from its
	// middle (see unqueue).
	dupNext, dupTail ref
	// jsPrev and jsNext link the requests that share a float64 in the
	// side's js index. Once answered, they hold the line or entry of the
	// answer (see setAns).
	jsPrev, jsNext ref
	// pendPrev and pendNext link the pending requests of a side in the
	// order sent.
	pendPrev, pendNext ref
	flags              uint32
}

// setAns records where an answered request (no longer linked in a js
// index) got its answer.
func (r *request) setAns(pos int64) {
	r.jsPrev, r.jsNext = ref(uint32(uint64(pos)>>32)), ref(uint32(pos))
}

// ans returns where an answered request got its answer.
func (r *request) ans() int64 {
	return int64(uint64(uint32(r.jsPrev))<<32 | uint64(uint32(r.jsNext)))
}

// raw returns the request's id as JSON text.
func (r *request) raw() []byte {
	switch {
	case r.flags&fCanonInt != 0:
		return strconv.AppendInt(nil, r.n, 10)
	case r.flags&fQuotedInt != 0:
		b := append([]byte{'"'}, strconv.AppendInt(nil, r.n, 10)...)
		return append(b, '"')
	case r.flags&fPlainStr != 0:
		return []byte(`"` + r.text + `"`)
	}
	return []byte(r.text)
}

// spelled reports whether raw is the request's id as received, byte for
// byte.
func (r *request) spelled(raw []byte) bool {
	switch {
	case r.flags&fCanonInt != 0:
		return isCanonicalInt(raw, r.n)
	case r.flags&(fQuotedInt|fPlainStr) != 0:
		return string(raw) == string(r.raw())
	}
	return string(raw) == r.text
}

// id parses the request's id again (its text was valid when recorded).
func (r *request) id() rpcid.ID {
	if r.flags&fCanonInt != 0 {
		return rpcid.Int(r.n)
	}
	if r.flags&fPlainStr != 0 {
		return rpcid.String(r.text)
	}
	id, _ := rpcid.Parse(r.raw())
	return id
}

// jsBucket is the first and last request of one float64 in a js index.
type jsBucket struct{ head, tail ref }

// idKey is an id's key under the rule, split so that integer ids (and
// strings spelling them) and other strings take the small maps.
type idKey struct {
	kind uint8 // keyInt, keyString or keyOther
	n    int64
	s    string
	k    rpcid.Key
}

const (
	keyInt uint8 = iota
	keyString
	keyOther
)

func keyOf(id rpcid.ID) idKey {
	if n, ok := id.Int64(); ok {
		return idKey{kind: keyInt, n: n}
	}
	if str, ok := id.StringValue(); ok {
		if base.IsCanonicalDigits(str) {
			if n, err := strconv.ParseInt(str, 10, 64); err == nil {
				return idKey{kind: keyInt, n: n}
			}
		}
		return idKey{kind: keyString, s: str}
	}
	return idKey{kind: keyOther, k: id.Key()}
}

func (sd *side) get(k idKey) (ref, bool) {
	var x ref
	var ok bool
	switch k.kind {
	case keyInt:
		x, ok = sd.ints[k.n]
	case keyString:
		x, ok = sd.strs[k.s]
	default:
		x, ok = sd.index[k.k]
	}
	return x, ok
}

func (sd *side) set(k idKey, x ref) {
	switch k.kind {
	case keyInt:
		sd.ints[k.n] = x
	case keyString:
		sd.strs[k.s] = x
	default:
		sd.index[k.k] = x
	}
}

// del removes k's entry if it is x.
func (sd *side) del(k idKey, x ref) {
	if y, ok := sd.get(k); ok && y == x {
		switch k.kind {
		case keyInt:
			delete(sd.ints, k.n)
		case keyString:
			delete(sd.strs, k.s)
		default:
			delete(sd.index, k.k)
		}
	}
}

func (sd *side) len() int { return len(sd.ints) + len(sd.strs) + len(sd.index) }

// side holds the requests one peer has sent.
type side struct {
	// ints, strs and index hold the pending (and recently answered)
	// requests by id: integers and canonical integer strings in ints,
	// other strings by contents in strs, other numbers in index.
	ints  map[int64]ref
	strs  map[string]ref
	index map[rpcid.Key]ref
	// pendHead and pendTail are the oldest and newest pending requests.
	pendHead, pendTail ref
	// js indexes the numeric requests whose double (as JSON.parse reads
	// them) could be shared with another id: fractional ids and integers
	// beyond 2^53-1. Integers within 2^53-1 are found through index.
	js map[uint64]jsBucket
	// notices are the latest notifications the peer sent, one per method
	// (at most noticesMax, oldest first), for the causes of a null-id
	// response: a peer may answer a notification, which JSON-RPC forbids.
	notices []notice
	// lost is the latest text that could not be read and may answer any
	// request of the side sent before it, and lostIDs, in a HAR, those
	// that may answer only the requests with ids of these keys (see
	// lostText).
	lost    lostAny
	lostIDs map[idKey]string
	// lostReq is the latest text that could not be read and may hold any
	// request of the side, and lostReqIDs those that may hold only
	// requests with ids of these keys (see lostRequests).
	lostReq    string
	lostReqIDs map[idKey]string
}

// notice is a notification a peer sent: its method name (name, "" when
// too long to compare; display, as findings show it) and line or entry.
type notice struct {
	name, display string
	pos           int64
}

// noticesMax bounds the notifications a side remembers.
const noticesMax = 16

// notified records a notification of method name (display: its display
// form) at pos.
func (sd *side) notified(name, display string, pos int64) {
	if len(name) > 256 {
		name = ""
	}
	for i, n := range sd.notices {
		if n.display == display && n.name == name {
			// The latest of its method: moved to the end, its name kept.
			copy(sd.notices[i:], sd.notices[i+1:])
			n.pos = pos
			sd.notices[len(sd.notices)-1] = n
			return
		}
	}
	if len(sd.notices) >= noticesMax {
		sd.notices = append(sd.notices[:0], sd.notices[1:]...)
	}
	sd.notices = append(sd.notices, notice{name: strings.Clone(name), display: display, pos: pos})
}

// table is a session's requests.
type table struct {
	slab  []request
	free  ref // free list, linked by dupNext
	sides [2]side
	// ring holds the answered requests, oldest first, so that a second
	// answer to one of the last answeredMax is recognized. The tables of
	// one capture (a HAR's sessions) share it.
	ring    *answeredRing
	pending int // requests pending, duplicates included
	// methods are the method names of requests, for display; a request
	// holds an index. Beyond methodsMax names, a request's name is kept in
	// extra until its record is freed.
	methods   []string
	methodIdx map[string]uint32
	extra     map[ref]string
	// lost says, for the requests flagged fLost, which text that could
	// not be read may answer it.
	lost map[ref]string
}

const methodsMax = 4096

// noMethod is the method index of a request whose name is in extra.
const noMethod = ^uint32(0)

func (t *table) setMethod(x ref, display string) {
	i, ok := t.methodIdx[display]
	if !ok {
		if len(t.methods) >= methodsMax {
			if t.extra == nil {
				t.extra = map[ref]string{}
			}
			t.extra[x] = display
			t.slab[x].method = noMethod
			return
		}
		i = uint32(len(t.methods))
		t.methods = append(t.methods, display)
		t.methodIdx[display] = i
	}
	t.slab[x].method = i
}

// method returns the display form of request x's method name.
func (t *table) method(x ref) string {
	if i := t.slab[x].method; i != noMethod {
		return t.methods[i]
	}
	return t.extra[x]
}

// answeredMax is how many answered requests a session remembers.
const answeredMax = 1 << 16

// newTable returns an empty table sharing ring (nil: a ring of its own).
func newTable(ring *answeredRing) *table {
	if ring == nil {
		ring = &answeredRing{}
	}
	t := &table{free: none, methodIdx: map[string]uint32{}, ring: ring}
	for i := range t.sides {
		t.sides[i] = side{ints: map[int64]ref{}, strs: map[string]ref{}, index: map[rpcid.Key]ref{}, js: map[uint64]jsBucket{}, pendHead: none, pendTail: none}
	}
	return t
}

func (t *table) at(x ref) *request { return &t.slab[x] }

// alloc returns a fresh record.
func (t *table) alloc() ref {
	if t.free != none {
		x := t.free
		t.free = t.slab[x].dupNext
		t.slab[x] = request{}
		return x
	}
	t.slab = append(t.slab, request{})
	return ref(len(t.slab) - 1)
}

func (t *table) release(x ref) {
	if t.slab[x].method == noMethod {
		delete(t.extra, x)
	}
	if t.slab[x].flags&fLost != 0 {
		delete(t.lost, x)
	}
	t.slab[x] = request{dupNext: t.free}
	t.free = x
}

// jsValueOf is the double a JavaScript peer holds for a numeric request id.
func (r *request) jsValue() float64 {
	if r.flags&(fCanonInt|fQuotedInt) != 0 {
		return float64(r.n) // correctly rounded, as JSON.parse rounds
	}
	return jsValue(r.raw())
}

// needsJS reports whether a numeric request goes into the js index.
func needsJS(id rpcid.ID) bool {
	if n, ok := id.Int64(); ok {
		return n < -maxSafe || n > maxSafe
	}
	return id.Kind() == rpcid.KindNumber
}

// pendLink appends the new pending request x to its side's list.
func (t *table) pendLink(sd *side, x ref) {
	r := t.at(x)
	r.pendPrev, r.pendNext = sd.pendTail, none
	if sd.pendTail != none {
		t.at(sd.pendTail).pendNext = x
	} else {
		sd.pendHead = x
	}
	sd.pendTail = x
	r.flags |= fInPend
}

// pendUnlink removes request x from its side's list: answered, or claimed
// by a null-id response.
func (t *table) pendUnlink(sd *side, x ref) {
	r := t.at(x)
	if r.flags&fInPend == 0 {
		return
	}
	r.flags &^= fInPend
	if r.pendPrev != none {
		t.at(r.pendPrev).pendNext = r.pendNext
	} else {
		sd.pendHead = r.pendNext
	}
	if r.pendNext != none {
		t.at(r.pendNext).pendPrev = r.pendPrev
	} else {
		sd.pendTail = r.pendPrev
	}
	r.pendPrev, r.pendNext = none, none
}

func (t *table) jsLink(sd *side, x ref) {
	r := t.at(x)
	k := jsKey(r.jsValue())
	b, ok := sd.js[k]
	r.jsPrev, r.jsNext = none, none
	if !ok {
		sd.js[k] = jsBucket{x, x}
	} else {
		r.jsPrev = b.tail
		t.at(b.tail).jsNext = x
		sd.js[k] = jsBucket{b.head, x}
	}
	r.flags |= fJS
}

func (t *table) jsUnlink(sd *side, x ref) {
	r := t.at(x)
	if r.flags&fJS == 0 {
		return
	}
	r.flags &^= fJS
	k := jsKey(r.jsValue())
	b := sd.js[k]
	if r.jsPrev != none {
		t.at(r.jsPrev).jsNext = r.jsNext
	} else {
		b.head = r.jsNext
	}
	if r.jsNext != none {
		t.at(r.jsNext).jsPrev = r.jsPrev
	} else {
		b.tail = r.jsPrev
	}
	if b.head == none {
		delete(sd.js, k)
	} else {
		sd.js[k] = b
	}
}

// jsFind returns the earliest pending numeric request whose double is f.
func (t *table) jsFind(sd *side, f float64) ref {
	best := none
	if b, ok := sd.js[jsKey(f)]; ok {
		best = b.head
	}
	if f == math.Trunc(f) && -maxSafe <= f && f <= maxSafe {
		if x := t.firstPending(sd, rpcid.Int(int64(f)), func(r *request) bool { return r.flags&fNumber != 0 }); x != none {
			if best == none || t.before(x, best) {
				best = x
			}
		}
	}
	return best
}

// before reports whether request a arrived before request b.
func (t *table) before(a, b ref) bool {
	ra, rb := t.at(a), t.at(b)
	if ra.pos != rb.pos {
		return ra.pos < rb.pos
	}
	return ra.seq < rb.seq
}

// firstPending returns the first pending request with an id Equal to id
// that satisfies ok (walking the requests queued behind it), or none.
func (t *table) firstPending(sd *side, id rpcid.ID, ok func(*request) bool) ref {
	x, found := sd.get(keyOf(id))
	if !found || t.at(x).flags&fAnswered != 0 {
		return none
	}
	for ; x != none; x = t.at(x).dupNext {
		if ok(t.at(x)) {
			return x
		}
	}
	return none
}

// answeredRing holds the last answeredMax answered requests of a capture,
// oldest first from at, n of them, whose ids and method names (beyond
// methodsMax) take at most answeredBytesMax bytes in all.
type answeredRing struct {
	reqs  []answered // grows to answeredMax, then wraps around
	at, n int
	bytes int // of the requests' id texts and extra method names
}

type answered struct {
	t    *table
	x    ref
	size int // t.size(x) when remembered
}

// answeredBytesMax bounds the bytes of the text the answered requests hold:
// 65536 answered requests with ids of a megabyte each must not take 64 GB.
const answeredBytesMax = 64 << 20

// size returns the bytes of text request x holds beyond its record.
func (t *table) size(x ref) int {
	n := len(t.slab[x].text)
	if t.slab[x].method == noMethod {
		n += len(t.extra[x])
	}
	return n
}

// remember records an answered request for duplicate answers, forgetting
// the capture's oldest beyond answeredMax or answeredBytesMax.
func (t *table) remember(x ref) {
	g := t.ring
	size := t.size(x)
	for g.n > 0 && (g.n == answeredMax || g.bytes+size > answeredBytesMax) {
		old := g.reqs[g.at]
		g.reqs[g.at] = answered{}
		g.at = (g.at + 1) % len(g.reqs)
		g.n--
		g.bytes -= old.size
		old.t.forget(old.x)
	}
	if g.n == len(g.reqs) { // full: grow, oldest first again
		reqs := make([]answered, min(max(2*len(g.reqs), 64), answeredMax))
		copy(reqs, g.reqs[g.at:])
		copy(reqs[len(g.reqs)-g.at:], g.reqs[:g.at])
		g.reqs, g.at = reqs, 0
	}
	g.reqs[(g.at+g.n)%len(g.reqs)] = answered{t, x, size}
	g.n++
	g.bytes += size
}

// forget frees an answered request.
func (t *table) forget(x ref) {
	r := t.at(x)
	if r.flags&fDropped == 0 {
		sd := &t.sides[0]
		if r.flags&fServer != 0 {
			sd = &t.sides[1]
		}
		sd.del(keyOf(r.id()), x)
	}
	t.release(x)
}
