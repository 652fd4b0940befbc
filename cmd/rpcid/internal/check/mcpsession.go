package check

import (
	"cmp"
	"slices"

	"github.com/rpcid/rpcid"
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
	p           *mcpSession // the MCP session it was read in
}

// mcpSession is the state of one MCP session in a HAR, or of one server's lines
// in an MCP host's log (see capture.p), while another is in use.
type mcpSession struct {
	t           *table
	deferredIdx [2]map[rpcid.Key][]int
	lostStream  int
	key         string // its key in partIdx (see sessionKey and logSessionKey)
	used        int    // the HAR entry or log line that last used it
	// In an MCP host's log: its server, the file its lines follow the tail
	// header of ("" before any), and the run of its server being read (see
	// capture.run).
	server, file string
	run          logRunState
	// events are the SSE events with ids its streams carried (see
	// capture.sse), as far as seenEvents remembers them.
	events map[seenEvent]struct{}
}

// idle reports whether p holds nothing a later message could need but its
// answered requests: no request pending, no response waiting for one, no
// event stream lost. It must not be the MCP session in use, whose state is in the
// capture.
func (p *mcpSession) idle() bool {
	return p.t.pending == 0 && len(p.deferredIdx[0]) == 0 && len(p.deferredIdx[1]) == 0 && p.lostStream == 0
}

// sessionFor returns the MCP session in which the deferred response d is matched:
// its own, or, when no request there has its id, the first other MCP session with
// a pending request that has it. An HTTP+SSE endpoint event may send the
// POSTs to another host than the GET stream that carries their answers.
func (s *capture) sessionFor(d *deferredResponse) *mcpSession {
	key := keyOf(d.id)
	if _, ok := s.table(d.p).sides[d.side].get(key); ok || d.id.Kind() == rpcid.KindNull {
		return d.p // pending or answered there
	}
	for _, p := range s.sessions {
		t := s.table(p)
		if x, ok := t.sides[d.side].get(key); ok && p != d.p && t.at(x).flags&fAnswered == 0 {
			return p
		}
	}
	return d.p
}

// table returns the table of MCP session p (nil: the capture's only
// table). The session in use keeps its live table in s.t; p.t is brought up
// to date only when another session is put in use (see useSession).
func (s *capture) table(p *mcpSession) *table {
	if p == nil || p == s.p {
		return s.t
	}
	return p.t
}

// request returns request x of MCP session p (nil: the capture's only table).
func (p *mcpSession) request(s *capture, x ref) *request {
	return s.table(p).at(x)
}

// maxSessions bounds the idle MCP sessions of a HAR (see mcpSession.idle). Parts with
// something pending are never forgotten, so their number is bounded by the
// requests and responses pending; when maxSessions are reached, the idle ones
// least recently used are forgotten until half as many remain. A session
// forgotten this way starts afresh if the capture goes on with it, and a
// second answer to one of its requests then reads as an answer to no
// request.
const maxSessions = 1024

// use makes the MCP session named key the one in use, creating it when new; entry
// is the HAR entry or log line being read.
func (s *capture) use(key string, entry int) {
	p, ok := s.sessionIdx[key]
	if !ok {
		if len(s.sessions) >= max(maxSessions, s.sessionLimit) {
			s.forgetIdle()
			// Forget again only when the MCP sessions have doubled: each one
			// is looked at a bounded number of times.
			s.sessionLimit = 2 * len(s.sessions)
		}
		p = &mcpSession{t: newTable(s.t.ring), key: key}
		if s.sessionIdx == nil {
			s.sessionIdx = map[string]*mcpSession{}
		}
		s.sessionIdx[key] = p
		s.sessions = append(s.sessions, p)
	}
	p.used = entry
	s.useSession(p)
}

// forgetIdle forgets the idle MCP sessions least recently used, until at most
// maxSessions/2 remain or no idle one does. Their answered requests stay
// in the ring until it drops them.
func (s *capture) forgetIdle() {
	var idle []*mcpSession
	for _, p := range s.sessions {
		if p != s.p && p != s.redirectNext && p != s.redirectFrom && p.idle() {
			idle = append(idle, p)
		}
	}
	slices.SortFunc(idle, func(a, b *mcpSession) int { return cmp.Compare(a.used, b.used) })
	n := min(len(idle), len(s.sessions)-maxSessions/2)
	if n <= 0 {
		return
	}
	gone := make(map[*mcpSession]bool, n)
	for _, p := range idle[:n] {
		gone[p] = true
		delete(s.sessionIdx, p.key)
	}
	s.sessions = slices.DeleteFunc(s.sessions, func(p *mcpSession) bool { return gone[p] })
}

// useSession makes p the MCP session in use.
func (s *capture) useSession(p *mcpSession) {
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
