package check

import (
	"fmt"
	"strings"

	"github.com/rpcid/rpcid"
)

// A line, body, event or frame that could hold a response but cannot be
// read (it is not JSON, it is cut short at the end of the input, or it is
// too long to examine) may hold the answer to a request that otherwise
// looks unanswered. Such a request is then reported as having no response
// in the capture, naming the text that may hold it, never as "never
// answered". Which requests it may answer:
//
//   - what the readable start of the text shows decides first (see
//     visibleIDs): a text that does not start with "{" or "[" answers
//     none, nor does one with a top-level "method" member (a request or
//     notification); one whose top-level "id" members were
//     read whole may answer only requests with Equal ids; any other text
//     may answer any request;
//   - in a JSON Lines capture, an MCP host's log or a WebSocket connection
//     (messages in the order sent), only requests pending when the text
//     came, of the side it answers: a text marked as the server's (<, a
//     "Message from server:" line, a received frame) answers the client's
//     requests, one marked as the client's the server's, an unmarked one
//     either;
//   - in a HAR, the response body of a POST that carried requests answers
//     those requests; any other response body (a GET event stream) may
//     answer the client requests of its session whose own HTTP response
//     carried no answer (202 Accepted, 204 No Content, a 2xx without it);
//     a request body may hold the client's answers to the server requests
//     of its session; and a HAR file cut short may hold any of these in the
//     entries it lacks.
//
// In the same way, a response that matches no request may answer one in
// such a text, sent by the side it answers (before it, in a capture in
// the order sent), unless the text's readable start shows it is a response
// ("result" or "error"), an object read whole without "method" or "id",
// or a request with another id: the response then matches no request "in
// the capture", naming that text (see lostRequests).

// lostAny is a text that may answer any request of a side sent before
// seqAt (see capture.seq).
type lostAny struct {
	seqAt uint32
	why   string // "line 7, which may hold it, is not JSON"
}

// lostIDsMax bounds the ids a capture remembers from texts that could not
// be read (see side.lostIDs and side.lostReqIDs), in all its sessions;
// beyond it, further ones are not remembered, and the requests and
// responses they may be read as unanswered and unmatched.
const lostIDsMax = 4096

// visible is what the readable start of a text that could not be read
// shows: none says it answers no request (a request or notification, or a
// whole object without an id); ids, when not nil, are the only ids it may
// answer; otherwise it may answer any.
type visible struct {
	none bool
	ids  []rpcid.ID
}

// shown is what the readable start of a text shows (see visibleIDs).
type shown struct {
	opaque    bool       // it does not start with "{" or "[": no message
	object    bool       // it starts with "{" (else "[", a batch: anything)
	complete  bool       // the whole object was read
	sawID     bool       // it has a top-level "id" member read whole
	ids       []rpcid.ID // the values of those the rule takes
	sawMethod bool       // it has a top-level "method" member (its value read or not)
	sawAnswer bool       // it has a top-level "result" or "error" member (the same)
}

// answers is what the text may answer: none for a request or
// notification ("method"), an object read whole without an id, or a text
// that is no message; else the requests with its ids, if it shows any;
// else any.
func (sh shown) answers() visible {
	switch {
	case sh.opaque || sh.object && sh.sawMethod:
		return visible{none: true}
	case !sh.object:
		return visible{}
	case sh.sawID:
		if len(sh.ids) == 0 {
			return visible{none: true} // only ids the rule refuses
		}
		return visible{ids: sh.ids}
	case sh.complete:
		return visible{none: true}
	}
	return visible{}
}

// requests is what requests the text may hold: none for a response
// ("result" or "error"), an object read whole without a method or an id,
// or a text that is no message; else a request with one of its ids, if it
// shows any; else any.
func (sh shown) requests() visible {
	switch {
	case sh.opaque || sh.object && sh.sawAnswer:
		return visible{none: true}
	case !sh.object:
		return visible{}
	case sh.complete && (!sh.sawMethod || !sh.sawID):
		return visible{none: true}
	case sh.sawID:
		if len(sh.ids) == 0 {
			return visible{none: true}
		}
		return visible{ids: sh.ids}
	}
	return visible{}
}

// visibleIDs reads the start of data, of which the first n bytes are
// valid JSON so far (the scanner's error offset), as far as it can: the
// top-level members of an object, each member read only when its value
// ends within those n bytes. Member names are compared as encoding/json
// does too: a case variant of "id" ("ID") counts as an id, since clients
// built on encoding/json read it so. Every message is an object, alone or
// in a batch: a text that starts otherwise (a log line, "hello") is none.
func visibleIDs(data []byte, n int) shown {
	if i := skipSpace(data, 0); i == len(data) || data[i] != '{' && data[i] != '[' {
		return shown{opaque: true}
	} else if data[i] == '[' {
		return shown{}
	}
	n = min(n, len(data))
	b := data[:n]
	sh := shown{object: true}
	i := skipSpace(b, 0)
	if i == len(b) {
		return sh
	}
	i++
	for {
		i = skipSpace(b, i)
		if i == len(b) || b[i] != '"' {
			if i < len(b) && b[i] == '}' {
				sh.complete = true // {}
			}
			return sh
		}
		end := stringEnd(b, i)
		if end < 0 {
			return sh
		}
		name, ok := jsonString(b[i:end])
		if !ok {
			return sh
		}
		i = skipSpace(b, end)
		if i == len(b) || b[i] != ':' {
			return sh
		}
		i = skipSpace(b, i+1)
		// The member is there, whatever its value: a "method" makes a
		// request or notification, a "result" or "error" a response.
		switch name {
		case "method":
			sh.sawMethod = true
		case "result", "error":
			sh.sawAnswer = true
		}
		vstart := i
		switch {
		case i == len(b):
			end = -1
		case b[i] == '"':
			end = stringEnd(b, i)
		case b[i] == '{' || b[i] == '[':
			end = i + jsonExtent(b[i:])
			if !closes(b[i:end]) {
				end = -1
			}
		default:
			end = i
			for end < len(b) && !isJSONSpace(b[end]) && b[end] != ',' && b[end] != '}' {
				end++
			}
			if end == len(b) {
				end = -1 // a number or literal may go on past the cut
			}
		}
		if end < 0 {
			return sh
		}
		switch {
		case strings.EqualFold(name, "id"):
			sh.sawID = true
			if id, err := rpcid.Parse(b[vstart:end]); err == nil {
				sh.ids = append(sh.ids, id)
			}
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == '}' {
			sh.complete = true
		}
		return sh
	}
}

// closes reports whether b, an object or array found by jsonExtent, ends
// at its own closing bracket (jsonExtent returns len(b) also when none
// comes).
func closes(b []byte) bool {
	end, ok := bracketEnd(b)
	return ok && end == len(b)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the offset just past the string starting at b[i], or
// -1 when it does not end in b.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// answers reports whether a text with what v shows may answer request x.
func (v visible) answers(t *table, x ref) bool {
	if v.none {
		return false
	}
	if v.ids == nil {
		return true
	}
	id := t.at(x).id()
	for _, w := range v.ids {
		if rpcid.Equal(w, id) {
			return true
		}
	}
	return false
}

// lostText records a text at pos that could not be read and may hold
// responses: data is its bytes, of which the first valid are valid JSON so
// far, dir who sent it, and where and what say which text it is and why it
// could not be read ("line 7" and "is not JSON"). See the comment at the
// top of this file.
func (s *capture) lostText(pos position, dir direction, data []byte, valid int, what string) {
	sh := visibleIDs(data, valid)
	// Where the text is: a line, a WebSocket message, or part of a HAR body.
	where := pos.String()
	sub := ""
	switch {
	case s.inWebSocket:
		where = fmt.Sprintf("websocket message %d at %s", s.frame, pos)
	case s.har && s.event > 0:
		sub = fmt.Sprintf("event %d of ", s.event)
	case s.har && s.bodyLine > 0:
		sub = fmt.Sprintf("line %d of ", s.bodyLine)
	}
	if s.har && !s.inWebSocket {
		where = fmt.Sprintf("%sthe %s body at %s", sub, s.bodyName, pos)
	}
	s.lostRequests(dir, sh.requests(), where+", which may hold the request it answers, "+what)
	v := sh.answers()
	if v.none {
		return
	}
	why := where + ", which may hold it, " + what
	sides := []int{0, 1}
	switch dir {
	case fromServer:
		sides = []int{0} // it answers the client's requests
	case fromClient:
		sides = []int{1}
	}
	if s.har && !s.inWebSocket {
		if s.bodyName == "response" && s.entryClientRequests() {
			// The answer to the requests of its own POST (see exchangeEnd).
			s.entryLost = append(s.entryLost, entryLost{v, sub, what})
			return
		}
		for _, si := range sides {
			sd := &s.t.sides[si]
			if v.ids == nil {
				if sd.lost.why == "" {
					sd.lost = lostAny{^uint32(0), why}
				}
				continue
			}
			for _, id := range v.ids {
				k := keyOf(id)
				if _, ok := sd.lostIDs[k]; ok || s.lostIDs >= lostIDsMax {
					continue
				}
				if sd.lostIDs == nil {
					sd.lostIDs = map[idKey]string{}
				}
				sd.lostIDs[k] = why
				s.lostIDs++
			}
		}
		return
	}
	// Messages in the order sent: only requests pending now.
	for _, si := range sides {
		sd := &s.t.sides[si]
		if v.ids == nil {
			sd.lost = lostAny{s.seq, why}
			continue
		}
		for _, id := range v.ids {
			x, ok := sd.get(keyOf(id))
			if !ok || s.t.at(x).flags&fAnswered != 0 {
				continue
			}
			for ; x != none; x = s.t.at(x).dupNext {
				s.t.markLost(x, why)
			}
		}
	}
}

// entryLost is a text of a HAR response body that could not be read, for
// the requests of its own POST.
type entryLost struct {
	v         visible
	sub, what string // "event 2 of " or "line 2 of " or "", and why it could not be read
}

// entryClientRequests reports whether the HAR entry being read carried
// client requests in its request body.
func (s *capture) entryClientRequests() bool {
	for _, x := range s.entryRequests {
		if s.t.at(x).flags&fServer == 0 {
			return true
		}
	}
	return false
}

// markLost notes that request x may be answered by the text why names.
func (t *table) markLost(x ref, why string) {
	r := t.at(x)
	if r.flags&fLost != 0 {
		return // the first such text after it
	}
	r.flags |= fLost
	if t.lost == nil {
		t.lost = map[ref]string{}
	}
	t.lost[x] = why
}

// lostFor returns why the unanswered request x may have an answer the
// capture could not read, or "".
func (s *capture) lostFor(x ref) string {
	r := s.t.at(x)
	if r.flags&fLost != 0 {
		return s.t.lost[x]
	}
	si := sideOf(r.flags&fServer != 0)
	sd := &s.t.sides[si]
	// In a HAR, a client request whose own HTTP response carried its
	// answer, or said why not, is not waiting for another stream.
	awaits := !s.har || s.inWebSocketSession() || si == 1 || r.flags&fNullNote == 0 && r.note > 0 &&
		(r.note == s.accepted || r.note == s.noContent || s.noAnswer[r.note])
	if !awaits {
		return ""
	}
	if sd.lost.why != "" && sd.lost.seqAt >= r.seq {
		return sd.lost.why
	}
	if why, ok := sd.lostIDs[keyOf(r.id())]; ok {
		return why
	}
	if s.lostAll.why != "" && s.lostAll.seqAt >= r.seq {
		return s.lostAll.why
	}
	return ""
}

// inWebSocketSession reports whether the MCP session in use is a WebSocket
// connection of a HAR.
func (s *capture) inWebSocketSession() bool {
	return s.p != nil && strings.HasPrefix(s.p.key, "websocket ")
}

// lostRequests records a text that could not be read and may hold requests
// (those v allows) sent by dir, for the responses that then match no
// request (see lostRequest): a text the client sent may hold the client's
// requests, one the server sent the server's, an unmarked one either.
func (s *capture) lostRequests(dir direction, v visible, why string) {
	if v.none {
		return
	}
	sides := []int{0, 1}
	switch dir {
	case fromClient:
		sides = []int{0}
	case fromServer:
		sides = []int{1}
	}
	for _, si := range sides {
		sd := &s.t.sides[si]
		if v.ids == nil {
			sd.lostReq = why // the latest
			continue
		}
		for _, id := range v.ids {
			k := keyOf(id)
			if _, ok := sd.lostReqIDs[k]; ok || s.lostIDs >= lostIDsMax {
				continue
			}
			if sd.lostReqIDs == nil {
				sd.lostReqIDs = map[idKey]string{}
			}
			sd.lostReqIDs[k] = why
			s.lostIDs++
		}
	}
}

// lostRequest returns why a response with id, answering side si's
// requests, that matches none may answer a request in a text that could
// not be read, or "". In a capture in the order sent, only texts before
// the response count; in a HAR, any of its session's, and the rest of
// the file from where it stops being valid.
func (s *capture) lostRequest(si int, id rpcid.ID) string {
	sd := &s.t.sides[si]
	if why, ok := sd.lostReqIDs[keyOf(id)]; ok {
		return why
	}
	if sd.lostReq == "" && s.har && s.lostAll.why != "" {
		// A HAR file that stops being valid: the entries it lacks, and
		// the one it breaks in, may hold any request.
		return s.lostAll.why
	}
	return sd.lostReq
}
