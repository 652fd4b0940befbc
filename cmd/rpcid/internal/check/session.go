package check

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
	"github.com/rpcid/rpcid/internal/scan"
)

// position is where a message is in a capture: a line of a JSON Lines
// capture or an entry of a HAR capture, both counted from 1. The zero
// position is the capture as a whole.
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

func (p position) n() int64 { return int64(p.line + p.entry) }

// direction is who sent a message.
type direction int

const (
	fromUnknown direction = iota // no marker: requests are the client's, responses the server's
	fromClient
	fromServer
)

// deferredResponse is a HAR response that matched no request when it was
// read: in the 2024-11-05 HTTP+SSE transport the GET stream, listed first,
// carries the answers to POSTs made later.
type deferredResponse struct {
	pos   position
	id    rpcid.ID
	raw   string
	side  int
	taken bool
	// note is the entry's reqNote: the body of its request is missing.
	note uint32
	// undelivered: a client answer sent in an HTTP exchange that failed,
	// by which the server request it matches is not answered; that
	// request gets the note why (0: none).
	undelivered bool
	why         uint32
	p           *part // the part it was read in
}

// part is the state of one MCP session in a HAR, or of one server's lines
// in an MCP host's log (see session.p), while another is in use.
type part struct {
	t           *table
	deferredIdx [2]map[rpcid.Key][]int
	lostStream  int
	key         string // its key in partIdx (see partKey and logPartKey)
	used        int    // the HAR entry or log line that last used it
	// In an MCP host's log: its server, the file its lines follow the tail
	// header of ("" before any), and the run of its server being read (see
	// session.run).
	server, file string
	run          logRunState
	// events are the SSE events with ids its streams carried (see
	// session.sse), as far as seenEvents remembers them.
	events map[seenEvent]struct{}
}

// idle reports whether p holds nothing a later message could need but its
// answered requests: no request pending, no response waiting for one, no
// event stream lost. It must not be the part in use, whose state is in the
// session.
func (p *part) idle() bool {
	return p.t.pending == 0 && len(p.deferredIdx[0]) == 0 && len(p.deferredIdx[1]) == 0 && p.lostStream == 0
}

// partFor returns the part in which the deferred response d is matched:
// its own, or, when no request there has its id, the first other part with
// a pending request that has it. An HTTP+SSE endpoint event may send the
// POSTs to another host than the GET stream that carries their answers.
func (s *session) partFor(d *deferredResponse) *part {
	key := keyOf(d.id)
	if _, ok := d.p.t.sides[d.side].get(key); ok || d.id.Kind() == rpcid.KindNull {
		return d.p // pending or answered there
	}
	for _, p := range s.parts {
		if x, ok := p.t.sides[d.side].get(key); ok && p != d.p && p.t.at(x).flags&fAnswered == 0 {
			return p
		}
	}
	return d.p
}

// request returns request x of part p (nil: the session's only table).
func (p *part) request(s *session, x ref) *request {
	if p == nil {
		return s.t.at(x)
	}
	return p.t.at(x)
}

// maxParts bounds the idle parts of a HAR (see part.idle). Parts with
// something pending are never forgotten, so their number is bounded by the
// requests and responses pending; when maxParts are reached, the idle ones
// least recently used are forgotten until half as many remain. A session
// forgotten this way starts afresh if the capture goes on with it, and a
// second answer to one of its requests then reads as an answer to no
// request.
const maxParts = 1024

// use makes the part named key the one in use, creating it when new; entry
// is the HAR entry or log line being read.
func (s *session) use(key string, entry int) {
	p, ok := s.partIdx[key]
	if !ok {
		if len(s.parts) >= max(maxParts, s.partLimit) {
			s.forgetIdle()
			// Forget again only when the parts have doubled: each part
			// is looked at a bounded number of times.
			s.partLimit = 2 * len(s.parts)
		}
		p = &part{t: newTable(s.t.ring), key: key}
		if s.partIdx == nil {
			s.partIdx = map[string]*part{}
		}
		s.partIdx[key] = p
		s.parts = append(s.parts, p)
	}
	p.used = entry
	s.usePart(p)
}

// forgetIdle forgets the idle parts least recently used, until at most
// maxParts/2 parts remain or no idle one does. Their answered requests stay
// in the ring until it drops them.
func (s *session) forgetIdle() {
	var idle []*part
	for _, p := range s.parts {
		if p != s.p && p != s.redirectNext && p != s.redirectFrom && p.idle() {
			idle = append(idle, p)
		}
	}
	slices.SortFunc(idle, func(a, b *part) int { return cmp.Compare(a.used, b.used) })
	n := min(len(idle), len(s.parts)-maxParts/2)
	if n <= 0 {
		return
	}
	gone := make(map[*part]bool, n)
	for _, p := range idle[:n] {
		gone[p] = true
		delete(s.partIdx, p.key)
	}
	s.parts = slices.DeleteFunc(s.parts, func(p *part) bool { return gone[p] })
}

// usePart makes p the part in use.
func (s *session) usePart(p *part) {
	if p == s.p {
		return
	}
	if q := s.p; q != nil {
		q.t, q.deferredIdx, q.lostStream = s.t, s.deferredIdx, s.lostStream
		q.run = s.run
	}
	s.p = p
	s.t, s.deferredIdx, s.lostStream = p.t, p.deferredIdx, p.lostStream
	s.run = p.run
}

// session checks one capture.
type session struct {
	c    *checker
	file string
	t    *table
	seq  uint32
	har  bool
	// harBroken says why a HAR file could not be read from some point on
	// (before its first entry, inside an entry or after one), for the
	// nothing-to-check finding; harBrokenAfterEntries, that the point is
	// after its entries array ended. harBase is where the HAR's text starts
	// in the file (after a UTF-8 byte order mark), for the offsets of
	// findings.
	harBroken             string
	harBrokenAfterEntries bool
	harBase               int64
	// final: the HAR has been read; deferred responses are matched now.
	final bool

	msgs []fields // reused by payload
	// Where the message being read is: HAR body ("request" or
	// "response") and SSE event, and batch element (0: none).
	bodyName              string
	event, element, frame int
	bodyLine              int            // the line of a newline-delimited HAR body
	offsetBase            int64          // where the JSON text being read starts in its HAR body
	scanned               []scan.Message // reused by scanText
	entryRequests         []ref          // HAR: requests of the current entry
	respelled             map[ref]string // go-sdk log: requests answered by a response whose id changed, and how (see noteRespelled)
	batchAnswered         map[idKey]bool // the ids of the responses of the batch being read
	// ownDups are the first client requests of the HAR entry being read
	// queued behind a pending request of an earlier entry with an Equal
	// id, by its key: a response in the entry's response body answers
	// them first (see own).
	ownDups map[idKey]ownDup
	// entryLost are the texts of the response body of the HAR entry being
	// read that could not be read, for the requests of its POST; lostAll
	// is a text that may answer any request of any part (a line of an MCP
	// host's log too long to examine, the entries a HAR file cut short
	// lacks); atEOF says the JSON Lines line being read ends the input
	// without a LF (see lostText).
	entryLost []entryLost
	lostAll   lostAny
	atEOF     bool
	lostIDs   int // entries made in the sides' lostIDs and lostReqIDs
	// failedExchange: the HAR entry being read has a response status
	// other than 2xx (and not a missing one), so a client answer in its
	// request body did not reach the server, or may not have; undelivered
	// are the server requests such answers were for, which stay pending
	// (exchangeEnd notes why), and undeliveredLater the indexes in
	// deferred of such answers to server requests not read yet (of another
	// session: a POST refused for want of a session id). refusal is the
	// error of a JSON-RPC error in its response body with a null id, no id
	// or an id of no request (with what the id was): the HTTP transport
	// refusing the HTTP request, as the TypeScript SDK's Streamable HTTP
	// server does with 400 "Bad Request: No valid session ID provided" and
	// 404 "Session not found" and a null id, the Python SDK's with the id
	// "server-error", and as MCP 2025-03-26 allows with no id ("The HTTP
	// response body MAY comprise a JSON-RPC error response that has no
	// id").
	failedExchange   bool
	undelivered      []ref
	undeliveredLater []int
	refusal          string
	notes            []string
	noteIndex        map[string]uint32
	noBody           map[uint32]bool // notes of HAR responses without a body
	noAnswer         map[uint32]bool // notes of HAR 2xx responses whose body held no answer
	accepted         uint32          // the note of requests answered 202 Accepted in a HAR, or 0
	noContent        uint32          // the note of requests answered 204 No Content in a HAR, or 0
	lostStream       int             // the first HAR entry with an event stream and no body, or 0
	firstLost        int             // the same, of all parts
	// reqNote is the note of the HAR entry being read when the body of its
	// request is missing, for the responses in it that match no request.
	reqNote uint32
	// inWebSocket: the messages being read are a HAR entry's WebSocket
	// frames.
	inWebSocket bool
	// resumed: the HAR entry being read is a GET with Last-Event-ID, a
	// client resuming an event stream (see redelivered).
	resumed bool
	// strict: the HAR body being read is the answer to a JSON-RPC request
	// (or a WebSocket connection carrying JSON-RPC), examined whatever it
	// holds; httpError: it is the body of a response with a status other
	// than 2xx. examined and passed say whether any of the body's JSON
	// texts was examined or passed over as no JSON-RPC (see notRPC), and
	// hasRPC whether it held a JSON-RPC 2.0 message.
	strict, httpError        bool
	examined, passed, hasRPC bool
	methods                  map[string]string // interned method names, by name: their display form
	rawMethods               map[string]string // method names, by JSON text

	deferred    []deferredResponse
	deferredIdx [2]map[rpcid.Key][]int // by id: indexes into deferred, in order

	// A HAR may hold several MCP sessions (a desktop host's traffic to
	// several servers, reconnections): each is a part with its own
	// requests, keyed by endpoint and session (see partKey; each WebSocket
	// connection is its own). So may an MCP host's log (Claude Desktop's
	// mcp.log, or per-server logs joined): each server named on its lines
	// is a part (see logPartKey). t, deferredIdx and lostStream, and
	// run, are those of the part in use, p.
	p         *part
	parts     []*part
	partIdx   map[string]*part
	partLimit int // the number of parts at which idle ones are forgotten, if above maxParts
	// seen remembers the SSE events with ids of all parts, for
	// redeliveries.
	seen seenEvents

	// encoding says why the capture could not be read as text, for the
	// nothing-to-check finding.
	encoding string
	// held are the tail headers before the first other non-blank line
	// (see heldLine), read when it says what the capture is.
	held []heldLine
	// loneBracket: the first non-blank line of a JSON Lines capture is
	// only firstByte, "{" or "[" (JSON printed over several lines).
	loneBracket bool
	firstByte   string
	// log: the capture is an MCP host's log (see logLine); logOther
	// counts its lines without a message.
	log      int
	logOther int
	// logMarked counts the lines of an MCP host's log that say they hold
	// a message.
	logMarked  int
	unreadable bool // the response body of the HAR entry being read could not be decoded
	// cut, if not "", says that the response body of the HAR entry being
	// read is shorter than its content.size: the capture tool kept only
	// part of it.
	cut string
	// redirectNext is the part of a HAR entry answered with a redirect
	// (3xx), and redirectFrom that of the entry before the one being read,
	// if it was one.
	redirectNext, redirectFrom *part
	// run is the run of the server in use (see part) that the lines of an
	// MCP host's log being read belong to.
	run logRunState
	// logNameFirst says where the server's name stood on the latest line
	// of an MCP host's log whose level word told it (see logServer): 1 in
	// the first bracketed field, 2 in the second, 0 before any such line.
	logNameFirst int
	// logFirst is the first server an MCP host's log named, and logMany
	// whether it has named another since: findings then say which server
	// they are about (see report).
	logFirst string
	logMany  bool
	// logFile is the file named by the latest tail header of an MCP host's
	// log ("==> mcp.log <=="), "" before any.
	logFile string
	// logSent is who sent the messages of a go-sdk log's "write: " lines.
	logSent direction

	// Direction markers (JSON Lines): whether any line had one, and the
	// first unmarked request with a method only servers send.
	marked bool
	// unmarkedLines counts the JSON Lines lines with a message and no
	// direction marker, firstUnmarked is the first of them.
	unmarkedLines, firstUnmarked int
	initialized                  bool

	// counts are the messages read, added to the checker's when the
	// capture has been read to its end.
	counts counts

	// What the capture held, for the nothing-to-check finding.
	messages int
	nonBlank int
	entries  int
	// HAR entries that are not HAR entries (an invalid-message each).
	badEntries int
	skipped    map[string]int // HAR bodies not examined, by media type
	// HAR WebSocket connections without frames in the capture, and frames
	// of connections without JSON-RPC, not examined.
	lostSockets, skippedFrames int
	otherEvents                map[string]int // SSE events of other types, by type
	findings                   int
	bytes                      int64
}

func newSession(c *checker, file string) *session {
	return &session{c: c, file: file, t: newTable(nil), noteIndex: map[string]uint32{}, noBody: map[uint32]bool{}, noAnswer: map[uint32]bool{}, methods: map[string]string{}}
}

// report emits a finding at pos.
func (s *session) report(pos position, level, kind, msg string, f *finding) {
	if f == nil {
		f = &finding{}
	}
	short := f.short
	if s.log == logHost && s.logMany && s.p != nil && pos.line > 0 {
		// The lines of several servers, each with ids of its own: a
		// finding holds for one server's, which it names.
		f.Server = base.ShowString(s.p.server)
		msg = "server [" + f.Server + "]: " + msg
		short = "server [" + f.Server + "]: " + short
	}
	if s.run.overlap != "" {
		switch kind {
		case kindDuplicate, kindAnsweredTwice, kindUnanswered, kindUnmatched:
			msg += "; " + s.run.overlap
			short += "; " + s.run.overlap
			if f.Note == "" {
				f.Note = s.run.overlap
			}
		}
	}
	if s.marked && s.unmarkedLines > 0 && f.Hint == "" {
		switch kind {
		case kindDuplicate, kindAnsweredTwice, kindUnanswered, kindUnmatched:
			// Which side sent an unmarked line is a guess in a capture
			// that marks the others.
			which := fmt.Sprintf("line %d has", s.firstUnmarked)
			if s.unmarkedLines > 1 {
				which = fmt.Sprintf("%d lines have (the first: line %d)", s.unmarkedLines, s.firstUnmarked)
			}
			f.Hint = "the capture marks lines with direction markers, > (client) and < (server), but " + which + " none: an unmarked request is read as the client's and an unmarked response as the server's"
			msg += "; " + f.Hint
			short += "; " + f.Hint
		}
	}
	if f.short != "" {
		f.short = short
	}
	f.File, f.Line, f.Entry = s.file, pos.line, pos.entry
	f.Level, f.Kind, f.Message = level, kind, msg
	s.findings++
	s.c.emit(f)
}

// invalid reports a line, body or element that is not a JSON-RPC message.
func (s *session) invalid(pos position, loc, msg string) {
	s.report(pos, levelError, kindInvalid, loc+msg, s.where())
}

// where returns a finding holding where in a line or entry the message
// being read is (the facts that loc prefixes give in the text).
func (s *session) where() *finding {
	return &finding{Body: s.bodyName, Event: s.event, Frame: s.frame, BodyLine: s.bodyLine, Element: s.element}
}

// message handles one JSON object that should be a JSON-RPC 2.0 message,
// given as the raw values of its members.
func (s *session) message(pos position, loc string, dir direction, m *fields) {
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
func (s *session) methodOf(raw []byte) (string, bool) {
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
func (s *session) notification(pos position, dir direction, method string, params json.RawMessage) {
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
func (s *session) noteMethod(method string, pos position) {
	if method == "initialize" {
		s.initialized = true
	}
}

func looksServerSent(method string, initialized bool) bool {
	return serverMethods[method] || method == "ping" && initialized
}

// withHint appends the marker hint to a finding's message when one of
// the requests it is about (refs) is unmarked and looks server-sent.
func (s *session) withHint(msg string, f *finding, refs ...ref) string {
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
func (s *session) explainWithHint(f *finding, refs ...ref) string {
	msg := s.withHint(f.short+"; "+f.why, f, refs...)
	if f.Hint != "" {
		f.short += "; " + f.Hint
	}
	return msg
}

// intern returns the display form of a method name, shared between
// requests.
func (s *session) intern(method string) string {
	if m, ok := s.methods[method]; ok {
		return m
	}
	m := base.ShowString(method)
	if len(s.methods) < 4096 && len(method) <= 256 {
		s.methods[strings.Clone(method)] = m
	}
	return m
}

// request handles a request with an id.
func (s *session) request(pos position, dir direction, id rpcid.ID, raw []byte, method string) {
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
		s.usePart(from)
		fsd := &s.t.sides[si]
		if y, ok := fsd.get(key); ok && s.t.at(y).flags&(fAnswered|fFailed) == fFailed && s.t.method(y) == t.method(x) {
			s.retire(fsd, key, y, true)
		}
		s.usePart(here)
	}
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

// retire takes the pending request y, whose HTTP exchange failed, out of
// the index of its side, so that a request sent later with an Equal id
// (key) is not called a duplicate and takes its responses. A request sent
// again with the same method (retried) is the same request: y is
// forgotten, and only the new attempt is checked. Otherwise y stays
// unanswered, and finish reports it with its HTTP status.
func (s *session) retire(sd *side, key idKey, y ref, retried bool) {
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
func (s *session) matchDeferred(si int, key rpcid.Key, x ref) {
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
func (s *session) response(pos position, toClient bool, id rpcid.ID, raw, errRaw []byte) {
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
func (s *session) refuse(errRaw []byte, idNote string) {
	if s.refusal == "" {
		s.refusal = describeError(errRaw).text + ", with " + idNote
	}
}

// deferResponse keeps a HAR response that matches no request yet.
func (s *session) deferResponse(pos position, si int, id rpcid.ID, raw []byte) {
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
func (s *session) own(pos position, sd *side, key idKey, head ref) ref {
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
func (s *session) answer(pos position, sd *side, x ref, id rpcid.ID, raw []byte) {
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
func (s *session) describe(x ref) string {
	r := s.t.at(x)
	return fmt.Sprintf("%s %s (%s, %s)", reqWord(r.flags&fServer != 0), show(r.raw()), s.posOf(r), s.t.method(x))
}

func (s *session) posOf(r *request) position {
	if s.har {
		return position{entry: int(r.pos)}
	}
	return position{line: int(r.pos)}
}

func (s *session) ref(x ref) *requestRef {
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

// errorInfo is what a finding says about a response's error member.
type errorInfo struct {
	code    json.Number // "" when absent or not a number
	message string
	text    string // "error -32700: Parse error"
}

// describeError summarizes a response's error member.
func describeError(raw []byte) errorInfo {
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message *string         `json:"message"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Message == nil {
		return errorInfo{text: "error " + show(raw)}
	}
	info := errorInfo{message: *e.Message}
	msg := base.ShowString(*e.Message)
	var n json.Number
	if len(e.Code) > 0 && json.Unmarshal(e.Code, &n) == nil {
		info.code = n
	}
	if len(e.Code) > 0 {
		info.text = fmt.Sprintf("error %s: %s", show(e.Code), msg)
	} else {
		info.text = "error: " + msg
	}
	return info
}

// nullResponse reports a response with a null id. JSON-RPC 2.0 section 5:
// the id is null only "if there was an error in detecting the id in the
// Request object (e.g. Parse error/Invalid Request)"; any other null-id
// response means the peer read a message and either dropped the id of a
// request or answered a notification, which section 4.1 forbids ("The
// Server MUST NOT reply to a Notification"). The second cause is offered
// only when the side the response answers sent a notification before it,
// and taken as the likely one when the error message names the
// notification's method (sharplens-mcp#6 answers notifications/initialized
// with "Method not found: notifications/initialized") or, in a HAR, when
// the notification came in the same HTTP exchange and no request did.
//
// nullReq, unless none, is a request sent with a null id that the response
// was taken to answer, although its error (parse error or invalid request)
// may as well reply to a message the peer could not read.
//
// Findings are printed as the capture is read, so the finding names the
// request pending when the response came (which may still get an answer
// of its own later) as a fact; whether the response is likely that
// request's answer is said at the end, in the finding of that request if
// it was never answered.
func (s *session) nullResponse(pos position, si int, raw, errRaw []byte, nullReq, again ref) {
	f := &finding{ID: clone(raw)}
	var msg string
	// second names the request sent with a null id and answered already,
	// which this response may answer again.
	second := ""
	if again != none {
		second = "a second answer to " + s.describe(again) + ", which was sent with a null id and answered at " + s.answeredAt(again).String()
	}
	read := true
	var info errorInfo
	if errRaw != nil {
		info = describeError(errRaw)
		if len(errRaw) <= 1024 {
			f.Error = clone(errRaw)
		}
		switch info.code {
		case "-32700", "-32600":
			read = false
			msg = "response with a null id: the peer could not read a request (" + info.text + ")"
			if nullReq != none {
				f.Request = s.ref(nullReq)
				msg += ", or it answers " + s.describe(nullReq) + ", which was sent with a null id"
			} else if second != "" {
				f.Request = s.ref(again)
				msg += ", or it is " + second
			}
		case "":
			msg = "response with a null id: its error has no numeric code, so whether the peer read a request is unknown (" + info.text + ")"
			read = false
		}
	}
	if !read {
		s.report(pos, levelError, kindNullResponse, msg, f)
		return
	}
	x, pending := s.likely(si)
	n, how, strong := s.noticeFor(si, pos, info.message, x)
	if n != nil && strong {
		// The response answers a notification, not a request: no request
		// is named as the one whose id was dropped.
		what := "response with a null id carries a result"
		if errRaw != nil {
			what = "response with a null id (" + info.text + ")"
		}
		msg = fmt.Sprintf("%s: likely an answer to notification %s (%s), %s; JSON-RPC forbids answering a notification, and only a parse error (-32700) or an invalid request (-32600) excuses a null id",
			what, methodName(n.display), s.posAt(n.pos), how)
		s.report(pos, levelError, kindNullResponse, msg, f)
		return
	}
	// causes are what the response may be, besides the answer to a request
	// whose id the peer dropped.
	var causes []string
	if second != "" {
		causes = append(causes, second)
	}
	if n != nil {
		causes = append(causes, fmt.Sprintf("an answer to a notification, which JSON-RPC forbids (the latest: %s at %s)", methodName(n.display), s.posAt(n.pos)))
	}
	lead := ""
	if len(causes) > 0 {
		lead = strings.Join(causes, ", ") + ", or "
	}
	switch {
	case errRaw == nil && lead == "":
		msg = "response with a null id carries a result: the peer read a request and answered it, but dropped its id"
	case errRaw == nil:
		msg = "response with a null id carries a result: " + lead + "the answer to a request whose id the peer dropped"
	case lead == "":
		msg = fmt.Sprintf("response with a null id (%s): only a parse error (-32700) or an invalid request (-32600) excuses a null id, so error %s shows the peer read the request and dropped its id", info.text, info.code)
	default:
		other := "a request"
		if second != "" {
			other = "another request"
		}
		msg = fmt.Sprintf("response with a null id (%s): %sthe peer read %s and dropped its id (only a parse error, -32700, or an invalid request, -32600, excuses a null id)", info.text, lead, other)
	}
	if again != none {
		f.Request = s.ref(again)
	}
	if x != none {
		f.Request = s.ref(x)
		msg += "; " + pending + s.describe(x)
		if n := pos.n(); n <= math.MaxUint32 && !s.failedExchange {
			// (In a refused HTTP exchange the request's finding says it
			// was refused; see exchangeEnd.)
			r := s.t.at(x)
			r.note, r.flags = uint32(n), r.flags|fNullNote
			if len(causes) > 0 {
				r.flags |= fNullMaybe
			}
		}
		s.t.pendUnlink(&s.t.sides[si], x) // a later null-id response points at another request
	}
	if s.failedExchange {
		f.Note = "it is the body of an HTTP response that refused the exchange (a status other than 2xx)"
		msg += "; " + f.Note
	}
	s.report(pos, levelError, kindNullResponse, msg, f)
}

// noticeFor returns the notification sent by side si that the null-id
// response at pos may answer, or nil: the latest whose method the error
// message names, else the latest. strong says the response is likely its
// answer (the message names its method, or in a HAR it came in the same
// HTTP exchange, from which no request is pending), and how says why.
// x is the pending request the response may answer instead (see likely):
// a message naming its method as well is no evidence.
func (s *session) noticeFor(si int, pos position, message string, x ref) (*notice, string, bool) {
	ns := s.t.sides[si].notices
	if len(ns) == 0 {
		return nil, "", false
	}
	if message != "" {
		for i := len(ns) - 1; i >= 0; i-- {
			if n := &ns[i]; n.name != "" && namesMethod(message, n.name) {
				if x != none && s.t.method(x) == n.display {
					break
				}
				return n, "whose method its error message names", true
			}
		}
	}
	n := &ns[len(ns)-1]
	if s.har && !s.inWebSocket && n.pos == pos.n() && x == none {
		return n, "sent in the same HTTP exchange", true
	}
	return n, "", false
}

// namesMethod reports whether text names the method name as a word of its
// own: not inside a longer name.
func namesMethod(text, name string) bool {
	part := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-'
	}
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		if (i == 0 || !part(text[i-1])) && (end == len(text) || !part(text[end])) {
			return true
		}
		from = i + 1
	}
}

// posAt returns the position of line or entry n.
func (s *session) posAt(n int64) position {
	if s.har {
		return position{entry: int(n)}
	}
	return position{line: int(n)}
}

// answeredAt returns where the answered request x got its answer.
func (s *session) answeredAt(x ref) position {
	if s.har {
		return position{entry: int(s.t.at(x).ans())}
	}
	return position{line: int(s.t.at(x).ans())}
}

// note returns the index+1 of a note in s.notes, adding it if new.
func (s *session) note(text string) uint32 {
	i, ok := s.noteIndex[text]
	if !ok {
		if len(s.notes) >= 4096 {
			return 0 // so many distinct HTTP statuses: no note, and bounded memory
		}
		s.notes = append(s.notes, text)
		i = uint32(len(s.notes))
		s.noteIndex[text] = i
	}
	return i
}

// likely returns the request a null-id response from side si's peer may
// answer, with the words that say which it is: in a HAR, a pending request
// of the same HTTP exchange (or WebSocket connection); else the oldest
// pending request of that side not already taken by a null-id response.
// It is the one pending when the response came: it may still get an answer
// of its own later.
func (s *session) likely(si int) (ref, string) {
	server := si == 1
	for _, x := range s.entryRequests {
		r := s.t.at(x)
		if r.flags&fInPend != 0 && (r.flags&fServer != 0) == server && !s.answeredInBatch(x) {
			if s.inWebSocket {
				return x, "pending on the same WebSocket connection: "
			}
			return x, "pending in the same HTTP exchange: "
		}
	}
	if s.har {
		return none, ""
	}
	for x := s.t.sides[si].pendHead; x != none; x = s.t.at(x).pendNext {
		if !s.answeredInBatch(x) { // not one another element of its batch answers
			return x, "the oldest request then pending and not already taken by a null-id response: "
		}
	}
	return none, ""
}

// finish reports the HAR responses that never found a request and the
// requests never answered, in the order they were sent.
func (s *session) finish() {
	// A capture of only tail headers is JSON Lines (s.log is logNone).
	s.replayHeld()
	s.c.logOther += s.logOther
	s.final = true
	for i := range s.deferred {
		if d := &s.deferred[i]; !d.taken {
			if d.p != nil {
				s.usePart(s.partFor(d))
			}
			if d.undelivered {
				sd := &s.t.sides[d.side]
				if x, ok := sd.get(keyOf(d.id)); ok && s.t.at(x).flags&(fAnswered|fNullNote) == 0 {
					s.t.at(x).note = d.why // pending still
					continue
				}
			}
			s.reqNote = d.note
			s.response(d.pos, d.side == 0, d.id, []byte(d.raw), nil)
			s.reqNote = 0
		}
	}
	s.reportOpen(s.parts)
	if s.messages == 0 {
		s.nothingToCheck()
	}
}

// reportOpen reports the requests of parts (none: of the session's only
// table) never answered, in the order they were sent.
func (s *session) reportOpen(parts []*part) {
	type openRequest struct {
		p *part
		x ref
	}
	var open []openRequest
	if len(parts) == 0 {
		parts = []*part{nil}
	}
	for _, p := range parts {
		if p != nil {
			s.usePart(p)
		}
		for i := range s.t.slab {
			if r := &s.t.slab[i]; r.flags&fLive != 0 && r.flags&fAnswered == 0 {
				open = append(open, openRequest{s.p, ref(i)})
			}
		}
	}
	slices.SortFunc(open, func(a, b openRequest) int {
		// seq counts the requests of the whole capture.
		ra, rb := a.p.request(s, a.x), b.p.request(s, b.x)
		if ra.pos != rb.pos {
			return cmp.Compare(ra.pos, rb.pos)
		}
		return cmp.Compare(ra.seq, rb.seq)
	})
	for _, o := range open {
		if o.p != nil {
			s.usePart(o.p)
		}
		x := o.x
		r := s.t.at(x)
		// The GET event stream without its body that may have carried the
		// answer: its session's, or else another's (an HTTP+SSE endpoint
		// event may send the POSTs to another host).
		lost := s.lostStream
		lostWhat := fmt.Sprintf("the event stream at entry %d", lost)
		if lost == 0 && s.firstLost > 0 {
			lost = s.firstLost
			lostWhat = fmt.Sprintf("the event stream at entry %d (which the capture does not tie to this session)", lost)
		}
		if r.flags&fCancelled != 0 {
			continue
		}
		f := &finding{ID: r.raw(), Method: s.t.method(x), Request: s.ref(x)}
		msg := fmt.Sprintf("%s %s (%s) was never answered", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x))
		nullNote := func() string {
			at := s.posAt(int64(r.note))
			if r.flags&fIdless != 0 {
				return fmt.Sprintf("the response without an \"id\" member at %s is likely its answer, which left its id out", at)
			}
			if r.flags&fNullMaybe != 0 {
				return fmt.Sprintf("the response with a null id at %s may be its answer", at)
			}
			return fmt.Sprintf("the response with a null id at %s is likely its answer", at)
		}
		lostWhy := ""
		if !(r.flags&fNullNote == 0 && s.noBody[r.note]) {
			lostWhy = s.lostFor(x)
		}
		switch {
		case r.flags&fNullNote == 0 && s.noBody[r.note]:
			// The capture cannot tell whether it was answered.
			f.Note = s.notes[r.note-1]
			msg = fmt.Sprintf("%s %s (%s) has no response in the capture: %s", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note)
		case lostWhy != "":
			// A text the capture holds but that could not be read may
			// answer it.
			f.Note = lostWhy
			switch {
			case r.flags&fNullNote != 0:
				f.Note += " (" + nullNote() + ")"
			case r.note > 0:
				f.Note += "; " + s.notes[r.note-1]
			}
			msg = fmt.Sprintf("%s %s (%s) has no response in the capture: %s", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note)
		case r.flags&fNullNote == 0 && r.note > 0 && (r.note == s.accepted || r.note == s.noContent) && lost > 0:
			// Its answer was due on an event stream, and one is missing.
			due := "its answer was due"
			if r.note == s.noContent {
				due = "an answer could come only"
			}
			f.Note = fmt.Sprintf("%s, so %s on an event stream, and the body of %s is empty or was left out of the capture", s.notes[r.note-1], due, lostWhat)
			msg = fmt.Sprintf("%s %s (%s) has no response in the capture: %s", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note)
		case r.flags&fNullNote == 0 && s.noAnswer[r.note] && lost > 0:
			// Its answer could have come on an event stream that is missing.
			f.Note = fmt.Sprintf("%s, and the body of %s, which may have carried it, is empty or was left out of the capture", s.notes[r.note-1], lostWhat)
			msg = fmt.Sprintf("%s %s (%s) has no response in the capture: %s", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note)
		case r.flags&fNullNote == 0 && r.note > 0 && r.note == s.accepted:
			// Every event stream is in the capture: it was never answered.
			f.Note = s.notes[r.note-1] + ", with no answer in its body, and no event stream in the capture carries its answer"
			msg += " (" + f.Note + ")"
		case r.flags&fNullNote != 0:
			f.Note = nullNote()
			msg += " (" + f.Note + ")"
		case r.flags&fTwin != 0 && r.note > 0:
			// Which of the requests with the id the one answer took, the
			// ids cannot tell.
			f.Note = s.notes[r.note-1]
			msg += ", or " + f.Note
		case r.note > 0:
			f.Note = s.notes[r.note-1]
			msg += " (" + f.Note + ")"
		}
		msg = s.withHint(msg, f, x)
		s.report(s.posOf(r), levelError, kindUnanswered, msg, f)
	}
}

// logRunState is where an MCP host's log is in the runs of one server
// (each a new process on new pipes, whose client starts its ids anew).
type logRunState struct {
	// at is the line where the run started ("Initializing server..."),
	// or 0 for the run the log starts in: the lines of the server before
	// its first start line, which a partial log (tail -n, an excerpt, a
	// rotated log) begins with.
	at int
	// from is the first line of the run the log starts in (at 0), as long
	// as no start line came.
	from int
	// ended: the log said the run ended ("... transport closed").
	ended bool
	// held: a message was read in the run.
	held bool
	// overlap, once two runs were open at once, is the sentence findings
	// about requests and answers end with.
	overlap string
}

// logRun handles a line of an MCP host's log that starts a run of the
// server in use (a new process on new pipes). The lines of the server
// before its first such line are a run of their own, one that started
// before the log did: a log need not start at a run's start (tail -n, an
// excerpt, a rotated log). The requests of the run before, if it ended,
// are reported and forgotten, so that ids used again are no duplicates and
// answers are not taken across runs. A run that had not ended (runs at
// once, as when Claude Desktop starts a server twice) cannot be told apart
// from the new one: findings about requests and answers then say so. When
// the host runs one connection to a server at a time (once: VS Code), a
// start line ends the run before whatever the log said, unless that run
// holds no message yet: VS Code writes "Starting server NAME" and
// "Connection state: Starting" for one start. Other servers' runs are their
// own.
func (s *session) logRun(pos position, once bool) {
	r := &s.run
	switch {
	case once && !r.held && r.at != 0:
		return // the same start
	case !r.held && (once || r.at == 0):
		// The log starts here for this server, or its lines before held
		// no message: nothing to keep apart.
	case r.ended || once:
		s.reportOpen([]*part{s.p})
		s.t = newTable(s.t.ring)
		s.initialized = false
	case r.overlap == "" && r.at == 0:
		r.overlap = fmt.Sprintf("the log shows a run of the server starting at %s while the run the log starts in had not ended, and does not say which run each message belongs to", pos)
	case r.overlap == "":
		r.overlap = fmt.Sprintf("the log shows a run of the server starting at %s while the one from %s had not ended, and does not say which run each message belongs to", pos, position{line: r.at})
	}
	r.at, r.ended, r.held = pos.line, false, false
}

// nothingToCheck reports a capture without a JSON-RPC message: an empty
// or truncated capture must not pass as clean.
func (s *session) nothingToCheck() {
	var what string
	// The file breaks off inside or between its entries: they are those
	// read before it does.
	brokenInEntries := s.harBroken != "" && !s.harBrokenAfterEntries
	switch {
	case s.encoding != "":
		what = s.encoding
	case s.har && s.entries+s.badEntries == 0 && s.harBroken != "" && s.harBrokenAfterEntries:
		what = s.harBroken + ", and it has no entries"
	case s.har && s.entries+s.badEntries == 0 && s.harBroken != "":
		what = s.harBroken + ", and no entry could be read"
	case s.har && s.entries == 0 && s.badEntries > 0:
		// Every entry, for none was read.
		what = "its 1 entry is not a HAR entry"
		if s.badEntries > 1 {
			what = fmt.Sprintf("none of its %d entries is a HAR entry", s.badEntries)
		}
		if brokenInEntries {
			what = "the 1 entry read before the file stops being valid is not a HAR entry"
			if s.badEntries > 1 {
				what = fmt.Sprintf("none of the %d entries read before the file stops being valid is a HAR entry", s.badEntries)
			}
		}
	case s.har && s.entries == 0:
		what = "the HAR file has no entries"
	case s.har:
		// Entries that are not HAR entries count: none of them was read.
		n := s.entries + s.badEntries
		what = fmt.Sprintf("none of its %s has a JSON-RPC 2.0 message", plural(n, "entry"))
		if n == 1 {
			what = "its 1 entry has no JSON-RPC 2.0 message"
		}
		if brokenInEntries {
			what = fmt.Sprintf("none of the %s read before the file stops being valid has a JSON-RPC 2.0 message", plural(n, "entry"))
			if n == 1 {
				what = "the 1 entry read before the file stops being valid has no JSON-RPC 2.0 message"
			}
		}
		var parts []string
		for _, k := range sortedKeys(s.skipped) {
			parts = append(parts, fmt.Sprintf("%d %s", s.skipped[k], k))
		}
		for _, k := range sortedKeys(s.otherEvents) {
			parts = append(parts, fmt.Sprintf("%s of type %s", plural(s.otherEvents[k], "event"), base.ShowString(k)))
		}
		if s.skippedFrames > 0 {
			parts = append(parts, plural(s.skippedFrames, "WebSocket message")+" without JSON-RPC")
		}
		if len(parts) > 0 {
			what += " (bodies not examined: " + strings.Join(parts, ", ") + ")"
		}
		if s.lostSockets > 0 {
			what += fmt.Sprintf("; the messages of its %s are not in the capture", plural(s.lostSockets, "WebSocket connection"))
		}
	case s.nonBlank == 0 && s.bytes == 0:
		what = "the file is empty"
	case s.nonBlank == 0:
		what = "the file has only blank lines"
	case s.log == logHost && s.logMarked > 0:
		what = fmt.Sprintf("it is an MCP host's log (timestamped lines), and none of its %s with \"Message from client:\" or \"Message from server:\" holds a JSON-RPC 2.0 message that could be read", plural(s.logMarked, "line"))
	case s.log == logHost:
		what = fmt.Sprintf("it is an MCP host's log (timestamped lines), and none of its %s holds a message (\"Message from client:\" or \"Message from server:\")", plural(s.nonBlank, "non-blank line"))
	case s.log == logVSCode && s.logMarked > 0:
		what = fmt.Sprintf("it is a log in VS Code's format (timestamped lines), and none of its %s with \"[editor -> server]\" or \"[server -> editor]\" (\"[Client Says]\" or \"[Server Says]\") holds a JSON-RPC 2.0 message that could be read", plural(s.logMarked, "line"))
	case s.log == logVSCode:
		what = fmt.Sprintf("it is a log in VS Code's format (timestamped lines, as VS Code's MCP server output and Cursor's MCP log write them), and none of its %s holds a message (\"[editor -> server]\" or \"[server -> editor]\", which VS Code writes at log level debug, info for a server in dev mode)", plural(s.nonBlank, "non-blank line"))
	default:
		what = fmt.Sprintf("none of its %s is a JSON-RPC 2.0 message", plural(s.nonBlank, "non-blank line"))
		if s.nonBlank == 1 {
			what = "its only non-blank line is not a JSON-RPC 2.0 message"
		}
		if s.loneBracket {
			what += fmt.Sprintf("; its first line is a lone %q, as in JSON printed over several lines (jq without -c): JSON Lines holds one message per line", s.firstByte)
		}
	}
	s.report(position{}, levelError, kindNothing, "nothing to check: "+what, nil)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// maxSafe is 2^53-1, the largest integer below which JavaScript numbers
// (IEEE 754 doubles) hold every integer exactly (RFC 8259 section 6).
const maxSafe = 1<<53 - 1

// numericWarnings warns about a numeric id beyond 2^53-1 in magnitude or
// with a fractional part, and reports whether it did. The reasons are
// those of the SDK survey and the peer results: the TypeScript SDK reads
// ids with JSON.parse, and its schema accepts the double only when it is a
// safe integer (zod 4's int()), whatever the spelling; JSON.parse and go-sdk
// read ids through float64, which rounds what it cannot hold (1e-400 to 0)
// and which go-sdk then converts to int64 (truncating a fraction,
// overflowing beyond int64); rmcp and the C# SDK read only integers within
// int64, spelled as integers; the Python SDK's ids are strict integers,
// which it keeps exactly, but a number spelled with a fraction or an
// exponent is a float to its JSON parser, which it refuses.
func (s *session) numericWarnings(pos position, what string, id rpcid.ID, raw []byte, method string) bool {
	facts, ok := numberFactsOf(id, raw)
	if !ok {
		return false
	}
	f := &finding{ID: clone(raw), Number: facts}
	f.Method = method
	if !facts.Integer {
		f.short = fmt.Sprintf("%s id %s is not an integer", what, show(raw))
		msg := f.short + ": JSON-RPC 2.0 says ids SHOULD NOT have fractional parts and MCP allows only strings and integers; "
		// A fraction is spelled with "." or an exponent, which rmcp's
		// serde_json, C#'s GetInt64 and the Python SDK's strict integers
		// refuse, and sourcegraph/jsonrpc2's uint64 too.
		rejecters := "the Python, Rust (rmcp) and C# SDKs reject it"
		n, tsReads := jsSafeInteger(raw)
		// why: which explanation, without the numbers it names.
		switch {
		case tsReads:
			f.why = "float64 rounds it to a safe integer"
			// The double nearest to it is a safe integer (1e-400 is 0,
			// 2.0000000000000001 is 2): JSON.parse reads that, the
			// TypeScript SDK's schema accepts it and _onresponse looks it
			// up, and go-sdk's conversion to int64 keeps it.
			msg += "go-sdk and the TypeScript SDK read it as " + n + " (float64, through which both read it, rounds it to that integer), which can match a request with that id"
			f.short += ": go-sdk and the TypeScript SDK read it as " + n
		case facts.GoSDK == goSDKRefuses:
			msg += goSDKRefusal
			f.why = goSDKRefusal
		case facts.GoSDK == "overflow":
			msg += "go-sdk's conversion to int64 overflows"
			f.why = "overflow"
		case facts.GoSDK == truncDecimal(raw):
			f.why = "go-sdk truncates it"
			msg += "go-sdk truncates it to " + facts.GoSDK + ", which can match a request with that id"
			f.short += ": go-sdk truncates it to " + facts.GoSDK
		default:
			// Beyond 2^53 the double nearest to it is an integer, which
			// go-sdk's conversion keeps (9007199254740993.5 is
			// 9007199254740994).
			msg += "go-sdk reads it as " + facts.GoSDK + " (float64 rounds it to that integer), which can match a request with that id"
			f.short += ": go-sdk reads it as " + facts.GoSDK
			f.why = "go-sdk rounds it"
		}
		if !tsReads {
			// The double is not an integer, or beyond 2^53-1: zod 4's
			// int() refuses it.
			rejecters = "the TypeScript, Python, Rust (rmcp) and C# SDKs reject it"
		}
		msg += ", " + rejecters + ", and sourcegraph/jsonrpc2 closes the connection"
		f.why += "; " + rejecters
		s.report(pos, levelWarning, kindFractional, msg, f)
		return true
	}
	var parts []string
	if !facts.Int64 {
		bound := "above 2^63-1"
		if raw[0] == '-' {
			bound = "below -2^63"
		}
		// Python's JSON parsers read an integer spelling as an exact int
		// and any other spelling as a float, which the Python SDK's
		// strict integer ids refuse (peer results: 1.0, 1e0).
		sdks := "rmcp and the C# SDK reject it, and the Python SDK keeps it exactly"
		if !isPlainInt(raw) {
			sdks = "and rmcp, the C# SDK and the Python SDK reject it (Python reads this spelling as a float)"
		}
		gosdk := "go-sdk's conversion to int64 overflows"
		if facts.GoSDK == goSDKRefuses {
			gosdk = goSDKRefusal
		}
		parts = append(parts, fmt.Sprintf("%s id %s is beyond int64 (%s): %s, %s", what, show(raw), bound, gosdk, sdks))
		f.short = fmt.Sprintf("%s id %s is beyond int64", what, show(raw))
		f.why = gosdk + ", " + sdks
		if facts.Float64Exact {
			parts = append(parts, "float64 holds it exactly")
			f.short += ", and float64 holds it exactly"
		} else {
			readers := "JavaScript's JSON.parse reads"
			if !isPlainInt(raw) {
				readers = "JavaScript's JSON.parse and Python read"
			}
			parts = append(parts, "it is not exactly representable as a float64 ("+readers+" it as "+facts.Float64+")")
			f.short += ", and float64 rounds it"
			f.why += "; " + readers
		}
	} else {
		bound := "above 2^53-1"
		if raw[0] == '-' {
			bound = "below -(2^53-1)"
		}
		if facts.Float64Exact {
			parts = append(parts, fmt.Sprintf("%s id %s is %s, but float64 holds it exactly, so JavaScript and go-sdk read this id as it is", what, show(raw), bound))
			f.short = parts[0]
			f.why = "exact"
		} else {
			readers := "JavaScript's JSON.parse and go-sdk read it as " + facts.Float64
			short := "JSON.parse and go-sdk read it as " + facts.Float64
			switch {
			case facts.GoSDK == "overflow":
				// float64 rounds it to 2^63, beyond int64.
				readers = "JavaScript's JSON.parse reads it as " + facts.Float64 + ", and go-sdk's conversion of that to int64 overflows"
				short = readers
			case facts.GoSDK != facts.Float64:
				// One double, in two spellings: JavaScript's shortest one
				// and its exact value, which go-sdk's int64 holds.
				readers = "JavaScript's JSON.parse and go-sdk read it as the same float64, " + facts.GoSDK + " (JavaScript spells it " + facts.Float64 + ")"
				short = readers
			}
			parts = append(parts, fmt.Sprintf("%s id %s is %s and not exactly representable as a float64: %s, which can match a different request",
				what, show(raw), bound, readers))
			f.short = fmt.Sprintf("%s id %s is %s: %s", what, show(raw), bound, short)
			f.why = "inexact"
		}
	}
	parts = append(parts, "the TypeScript SDK rejects ids beyond 2^53-1 (its schema accepts only safe integers)")
	s.report(pos, levelWarning, kindUnsafeInteger, strings.Join(parts, "; "), f)
	return true
}

// jsSafeInteger returns the integer that JavaScript's JSON.parse reads the
// JSON number raw as, in JavaScript's spelling, when it is a safe integer
// (Number.isSafeInteger: at most 2^53-1 in magnitude; -0 reads as 0).
func jsSafeInteger(raw []byte) (string, bool) {
	f := jsValue(raw)
	if math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > maxSafe {
		return "", false
	}
	return jsString(f), true
}

// truncDecimal returns the integer part of the JSON number raw, exactly, in
// decimal ("-2" for -2.75, "0" for -0.5 and 1e-400), or "" when raw has an
// exponent too large to tell.
func truncDecimal(raw []byte) string {
	d, e, ok := decimalParts(string(raw))
	if !ok {
		return ""
	}
	digits := int64(len(d)) + e // of the integer part
	if digits <= 0 {
		return "0"
	}
	if e >= 0 || digits > 400 {
		return "" // an integer, or too long to be go-sdk's int64
	}
	if raw[0] == '-' {
		return "-" + d[:digits]
	}
	return d[:digits]
}

// numberFacts are what a numeric id becomes in the SDKs that read ids
// through float64 or int64 ("-json": the number member).
type numberFacts struct {
	// Integer: the value is an integer. Int64: it is within int64.
	Integer bool `json:"integer"`
	Int64   bool `json:"int64"`
	// Float64Exact: a float64 holds the value exactly. Float64 is the
	// value JSON.parse gives, in JavaScript's spelling, when it does not.
	Float64Exact bool   `json:"float64Exact"`
	Float64      string `json:"float64,omitempty"`
	// Float64Value is the same double's exact value in decimal, when it is
	// an integer and JavaScript's spelling (Float64) rounds its digits:
	// one value, two spellings.
	Float64Value string `json:"float64Value,omitempty"`
	// GoSDK is what go-sdk's int64(float64) conversion makes of the id:
	// an integer in decimal, or "overflow"; or "refuse" (goSDKRefuses)
	// when float64 cannot hold the number at all, and go-sdk's decoder
	// refuses the message; omitted when it is exact.
	GoSDK string `json:"goSDK,omitempty"`
}

// goSDKRefuses is numberFacts.GoSDK for a number beyond float64's range
// (1e400): encoding/json will not read it into go-sdk's float64 id, so
// jsonrpc.DecodeMessage refuses the message, which ends the connection's
// read loop (conformance/RESULTS.md, go-sdk).
const goSDKRefuses = "refuse"

// goSDKRefusal is what the warnings say of such an id.
const goSDKRefusal = "go-sdk refuses the message (it reads ids as float64, which cannot hold this one), which ends its connection's read loop"

// numberFactsOf returns the facts of a numeric id worth a warning: an
// integer beyond 2^53-1 in magnitude or a fractional value.
func numberFactsOf(id rpcid.ID, raw []byte) (*numberFacts, bool) {
	var facts *numberFacts
	switch id.Kind() {
	case rpcid.KindInt:
		n, _ := id.Int64()
		if -maxSafe <= n && n <= maxSafe {
			return nil, false
		}
		facts = &numberFacts{Integer: true, Int64: true}
	case rpcid.KindNumber:
		text, _ := id.Number()
		facts = &numberFacts{Integer: numberIsIntegral(string(text))}
	default:
		return nil, false
	}
	f := jsValue(raw)
	facts.Float64Exact = float64Exact(raw, f)
	if !facts.Float64Exact {
		facts.Float64 = jsString(f)
		if !math.IsInf(f, 0) && f == math.Trunc(f) {
			if v := new(big.Float).SetFloat64(f).Text('f', 0); v != facts.Float64 {
				facts.Float64Value = v
			}
		}
	}
	if !facts.Float64Exact || !facts.Integer {
		switch t := math.Trunc(f); {
		case math.IsInf(f, 0):
			// encoding/json refuses a number beyond float64's range for a
			// float64 field, so go-sdk's DecodeMessage refuses the message.
			facts.GoSDK = goSDKRefuses
		case t >= -(1<<63) && t < 1<<63:
			facts.GoSDK = strconv.FormatInt(int64(t), 10)
		default:
			facts.GoSDK = "overflow"
		}
	}
	if !facts.Int64 && facts.Integer && facts.GoSDK != goSDKRefuses {
		facts.GoSDK = "overflow"
	}
	return facts, true
}

// float64Exact reports whether f, the double nearest to the JSON number
// raw, is exactly raw's value.
func float64Exact(raw []byte, f float64) bool {
	if math.IsInf(f, 0) {
		return false
	}
	d, e, ok := decimalParts(string(raw))
	if !ok {
		return false
	}
	if d == "" {
		return f == 0
	}
	// The value is d × 10^e. A double has at most 767 significant decimal
	// digits and is below 10^309; beyond that no comparison is needed. A
	// double is m × 2^k with m < 2^53, so for e > 0 the odd part of
	// d × 5^e × 2^e must be below 2^53, impossible for e > 22.
	if len(d) > 800 || e > 22 || int64(len(d))+e > 330 || e < -1100 {
		return false
	}
	want, ok := new(big.Rat).SetString(d + "e" + strconv.FormatInt(e, 10))
	if !ok {
		return false
	}
	got := new(big.Rat)
	got.SetFloat64(math.Abs(f))
	return got.Cmp(want) == 0
}

// decimalParts returns the significant digits d (no leading or trailing
// zeros, "" for zero) and exponent e of the JSON number text t, whose
// absolute value is d × 10^e.
func decimalParts(t string) (string, int64, bool) {
	t = strings.TrimPrefix(t, "-")
	mant, exp := t, int64(0)
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant = t[:i]
		x := t[i+1:]
		x = strings.TrimPrefix(x, "+")
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil || v > 1<<40 || v < -(1<<40) {
			return "", 0, false
		}
		exp = v
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	trimmed = strings.TrimLeft(trimmed, "0")
	return trimmed, exp, true
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
func (s *session) unmatched(pos position, si int, id rpcid.ID, raw []byte) {
	t := s.t
	sd := &t.sides[si]
	var lax []laxMatch
	var reqs []ref
	add := func(name, value string, x ref) {
		verdict := "different"
		if str, ok := id.StringValue(); ok {
			if v, ok := lenientNumber(str); ok && rpcid.Equal(v, t.at(x).id()) {
				verdict = "malformed"
			}
		}
		lax = append(lax, laxMatch{Normalizer: name, Value: value, Verdict: verdict, Request: *s.ref(x)})
		reqs = append(reqs, x)
	}
	numeric := func(r *request) bool { return r.flags&fNumber != 0 }
	if str, ok := id.StringValue(); ok {
		if f := jsNumber(str); !math.IsNaN(f) {
			if x := t.jsFind(sd, f); x != none {
				add("JavaScript Number()", jsString(f), x)
			}
		}
		if v, ok := pyInt(str); ok {
			if pid, err := rpcid.Parse([]byte(v)); err == nil {
				x := t.firstPending(sd, pid, func(r *request) bool {
					return numeric(r) && (r.flags&fInt != 0 || isPlainInt(r.raw()))
				})
				if x != none {
					add("Python int()", v, x)
				}
			}
		}
		if n, ok := rustI64(str); ok {
			x := t.firstPending(sd, rpcid.Int(n), func(r *request) bool { return numeric(r) && isPlainInt(r.raw()) })
			if x != none {
				add("Rust i64::from_str", strconv.FormatInt(n, 10), x)
			}
		}
	} else if isNumber(id) {
		// JSON.parse has already made the id a double; the TypeScript SDK
		// looks that double up among the numeric request ids.
		f := jsValue(raw)
		if x := t.jsFind(sd, f); x != none {
			add("JavaScript JSON.parse", jsString(f), x)
		}
	}
	msg := fmt.Sprintf("response id %s matches no pending request", show(raw))
	if si == 1 {
		msg = fmt.Sprintf("response id %s matches no pending server request", show(raw))
	}
	f := &finding{ID: clone(raw)}
	if lost := max(s.lostStream, s.firstLost); si == 1 && s.har && lost > 0 {
		// The server request it answers may be on an event stream whose
		// body the capture lacks.
		if s.lostStream > 0 {
			lost = s.lostStream
		}
		f.Note = fmt.Sprintf("the body of the event stream at entry %d, which may have carried the server request it answers, is empty or was left out of the capture", lost)
		msg = fmt.Sprintf("response id %s matches no pending server request in the capture: %s", show(raw), f.Note)
	}
	if s.reqNote > 0 {
		// The request it answers may be in a body the capture lacks.
		f.Note = s.notes[s.reqNote-1]
		msg = fmt.Sprintf("response id %s matches no pending request in the capture: %s, and may have held the request it answers", show(raw), f.Note)
	} else if why := s.lostRequest(si, id); why != "" {
		// Or in a text the capture holds but that could not be read.
		f.Note = why
		msg = fmt.Sprintf("response id %s matches no pending %s in the capture: %s", show(raw), reqWord(si == 1), why)
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
		msg += fmt.Sprintf("; %s %s it as %s and would deliver it to %s", joinAnd(names), verb, base.Truncate(lax[i].Value, 64), s.describe(reqs[i]))
		if lax[i].Verdict == "malformed" {
			msg += ", accepting a malformed spelling of that id"
		} else {
			msg += ", whose id is different"
		}
		i = j
	}
	if s.log == logHost || s.log == logVSCode {
		if r := s.run; r.at == 0 && r.from > 0 && f.Note == "" {
			// A partial log (tail -n, an excerpt) may have cut the
			// request off.
			f.Note = fmt.Sprintf("the log starts within a run of the server (its lines from %s come before any start of it), so the request it answers may be before the log's first line", position{line: r.from})
			msg += "; " + f.Note
		}
	}
	f.Lax = lax
	s.report(pos, levelError, kindUnmatched, msg, f)
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
	s := string(raw)
	if len(raw) > base.ShowMax+8 {
		s = base.Truncate(s, base.ShowMax) + fmt.Sprintf("... (%d bytes)", len(raw))
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
