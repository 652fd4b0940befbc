package check

import (
	"fmt"
	"math"
	"strings"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// harEntry handles one HAR entry: the request body's messages are the
// client's, the response body's the server's, and a WebSocket
// connection's frames are each the sender's.
func (s *capture) harEntry(n int, e *harEntry) {
	pos := position{entry: n}
	s.use(sessionKey(n, e), n)
	s.redirectFrom, s.redirectNext = s.redirectNext, nil
	s.entryRequests = s.entryRequests[:0]
	clear(s.ownDups)
	s.entryLost = s.entryLost[:0]
	s.unreadable, s.cut = false, ""
	s.inWebSocket = false
	s.resumed = strings.EqualFold(e.Request.Method, "GET") && headerValue(e.Request.Headers.v, "last-event-id") != ""
	s.reqNote = 0
	if m := strings.ToUpper(e.Request.Method); (m == "POST" || m == "PUT" || m == "PATCH") &&
		(e.Request.PostData == nil || !e.Request.PostData.recorded()) {
		// The responses of this exchange may answer requests in a body the
		// capture lacks.
		what := base.ShowString(m)
		if e.Request.PostData != nil {
			if mt := strings.TrimSpace(e.Request.PostData.MimeType); mt != "" {
				what += ", " + base.ShowString(mt)
			}
		}
		note := "the body of the HTTP request of its exchange (" + what + ") is empty or was left out of the capture"
		if n := e.Request.BodySize.v; n > 0 {
			note = fmt.Sprintf("the body of the HTTP request of its exchange (%s, %s) was left out of the capture", what, plural(int(min(n, math.MaxInt32)), "byte"))
		}
		if e.Request.PostData != nil {
			note += e.Request.PostData.elsewhere()
		}
		s.reqNote = s.note(note)
		// The body may hold the client's answers to server requests.
		if sd := &s.t.sides[1]; sd.lost.why == "" {
			what := "is empty or was left out of the capture"
			if e.Request.BodySize.v > 0 {
				what = "was left out of the capture"
			}
			sd.lost = lostAny{^uint32(0), fmt.Sprintf("the request body at %s, which may hold it, %s", pos, what)}
		}
	}
	rpc := false // the request body holds a JSON-RPC 2.0 message
	s.failedExchange, s.undelivered, s.undeliveredLater, s.refusal = failed(e), s.undelivered[:0], s.undeliveredLater[:0], ""
	if e.Request.PostData != nil {
		s.bodyName = "request"
		rpc = s.body(pos, "request body: ", fromClient, e.Request.PostData)
	}
	resp := e.Response
	if resp != nil {
		s.bodyName = "response"
		// The answer to a JSON-RPC request is examined whatever it holds;
		// other bodies only when they look like JSON-RPC (see payload).
		s.strict = rpc && resp.Status >= 200 && resp.Status <= 299
		s.httpError = resp.Status < 200 || resp.Status > 299
		s.body(pos, "response body: ", fromServer, &resp.Content)
		s.strict, s.httpError = false, false
	}
	s.bodyName = ""
	s.exchangeEnd(n, e)
	s.failedExchange, s.undelivered, s.undeliveredLater, s.refusal = false, s.undelivered[:0], s.undeliveredLater[:0], ""
	s.reqNote = 0
	switch {
	case len(e.WebSocketMessages.v) > 0:
		s.entryRequests = s.entryRequests[:0]
		s.inWebSocket = true
		s.websocket(pos, e.WebSocketMessages.v)
		s.inWebSocket = false
	case strings.EqualFold(e.ResourceType.v, "websocket") || resp != nil && resp.Status == 101:
		// A WebSocket connection whose frames the capture lacks: not every
		// HAR writer records them.
		s.lostSockets++
	}
}

// failed reports whether a HAR entry's HTTP exchange failed: a status
// other than 2xx, or status 0 with Chrome's _error. A status of 0 or less
// without _error says nothing (the exchange may not have ended).
func failed(e *harEntry) bool {
	resp := e.Response
	if resp == nil {
		return false
	}
	st := resp.Status
	if st <= 0 {
		return strings.TrimSpace(resp.Error.v) != ""
	}
	return st < 200 || st > 299
}

// exchangeEnd notes, for the requests of a HAR entry's HTTP exchange that
// its response body did not answer, why they may have gone unanswered:
// finish words their findings by it.
func (s *capture) exchangeEnd(n int, e *harEntry) {
	resp := e.Response
	if resp == nil {
		s.entryLacks("the HAR entry has no HTTP response")
		return
	}
	st := resp.Status
	c := &resp.Content
	if st >= 200 && st <= 299 && len(s.entryLost) > 0 {
		// Texts of the body that could not be read may answer the
		// requests of this exchange.
		for _, x := range s.entryRequests {
			if s.t.at(x).flags&(fAnswered|fServer) != 0 {
				continue
			}
			for _, l := range s.entryLost {
				if l.v.answers(s.t, x) {
					s.t.markLost(x, l.sub+"the body of its HTTP response ("+statusAndType(st, c)+"), which may hold it, "+l.what)
					break
				}
			}
		}
	}
	if st >= 200 && st <= 299 && s.lostStream == 0 && strings.EqualFold(e.Request.Method, "GET") &&
		!c.recorded() && mediaType(c.MimeType) == "text/event-stream" {
		// A GET event stream whose body the capture lacks, as tools that
		// write HAR files leave out streams that had not ended: in the
		// 2024-11-05 HTTP+SSE transport it carries the answers to requests
		// accepted with 202.
		s.lostStream = n
		if s.firstLost == 0 {
			s.firstLost = n
		}
	}
	switch {
	case st <= 0 && strings.TrimSpace(resp.Error.v) == "":
		// 0 (Chrome, mitmproxy) or -1 (unknown, as HAR writes sizes).
		s.entryLacks(fmt.Sprintf("the HAR entry records no HTTP status (%d): its exchange failed, had not ended when the capture was written, or was not recorded", st))
	case st == 202:
		// Its answers go on an event stream; finish words the finding by
		// whether the capture holds every such stream.
		if s.accepted == 0 {
			s.accepted = s.note("its HTTP response was 202 Accepted")
		}
		s.markEntry(s.accepted, false, true)
	case st == 204:
		// No answer in this exchange: one may have gone on an event stream.
		if s.noContent == 0 {
			s.noContent = s.note("its HTTP response was 204 No Content")
		}
		s.markEntry(s.noContent, false, true)
	case st >= 200 && st <= 299 && s.unreadable:
		s.entryLacks(fmt.Sprintf("the body of its HTTP response (status %d) could not be read", st))
	case st >= 200 && st <= 299 && s.cut != "":
		s.entryLacks(fmt.Sprintf("the body of its HTTP response (status %d) is cut short: %s", st, s.cut))
	case st >= 200 && st <= 299 && !c.recorded():
		// A success whose body the capture lacks: its answers may be in
		// that body, so the requests are not said to be unanswered (202
		// Accepted and 204 No Content carry no body).
		what := statusAndType(st, c)
		note := "the body of its HTTP response (" + what + ") is empty or was left out of the capture"
		if c.Size.v > 0 {
			note = fmt.Sprintf("the body of its HTTP response (%s, %s) was left out of the capture", what, plural(int(min(c.Size.v, math.MaxInt32)), "byte"))
		}
		s.entryLacks(note + c.elsewhere())
	case st >= 200 && st <= 299:
		// A success whose body holds no answer to them (an HTML page, a
		// plain "Accepted"): an answer could still come on an event stream.
		i := s.note("its HTTP response (" + statusAndType(st, c) + ") held no response with its id")
		if i > 0 {
			s.noAnswer[i] = true
		}
		s.markEntry(i, false, true)
		for _, x := range s.entryRequests {
			if r := s.t.at(x); r.flags&fLost != 0 && r.note == i {
				r.note = 0 // its body may hold it (see lostText)
			}
		}
	default:
		s.exchangeFailed(n, resp)
	}
}

// statusAndType says what a HAR response was: its status and the media
// type of its body.
func statusAndType(st int, c *harContent) string {
	what := fmt.Sprintf("status %d", st)
	if mt := strings.TrimSpace(c.MimeType); mt != "" {
		what += ", " + base.ShowString(mt)
	}
	return what
}

// markEntry gives each request of the HAR entry being read the note i
// (keep: unless it has one); failed marks them as ended by their HTTP
// exchange (see retire).
func (s *capture) markEntry(i uint32, failed, keep bool) {
	for _, x := range s.entryRequests {
		r := s.t.at(x)
		if r.flags&(fAnswered|fServer) != 0 {
			// Answered, or a request of the server in the response
			// body, whose answer the client sends in another exchange.
			continue
		}
		if failed {
			r.flags |= fFailed
		}
		if r.flags&fNullNote == 0 && (!keep || r.note == 0) {
			r.note = i
		}
	}
}

// entryLacks notes that the capture cannot tell whether the requests of
// the HAR entry being read were answered, and why.
func (s *capture) entryLacks(note string) {
	i := s.note(note)
	if i > 0 {
		s.noBody[i] = true
	}
	s.markEntry(i, false, true)
}

// exchangeFailed ends the HAR entry being read, n, whose response resp has
// a status other than 2xx: its requests were ended by the failed exchange,
// and client answers it carried answer nothing.
func (s *capture) exchangeFailed(n int, resp *harResponse) {
	st := resp.Status
	if st >= 300 && st <= 399 {
		s.redirectNext = s.p // its requests may be sent again elsewhere
	}
	var note, status string
	if st > 0 {
		status = fmt.Sprintf("status %d", st)
		if resp.StatusText != "" {
			status += " " + base.ShowString(resp.StatusText)
		}
	}
	// delivered says what became of a client answer in the request
	// body: it did not reach the server when the server refused the
	// exchange (3xx, 4xx, a JSON-RPC error with a null id); when the
	// exchange failed otherwise (5xx, a connection fault) the capture
	// cannot tell whether the server read it first.
	delivered := "went in an HTTP exchange that failed"
	switch {
	case st <= 0:
		note = "its HTTP exchange failed: " + base.ShowString(strings.TrimSpace(resp.Error.v))
	case s.refusal != "":
		note = "its HTTP exchange was refused with " + status + " and " + s.refusal
		delivered = "was not delivered"
	default:
		note = "its HTTP response had " + status
		if st < 500 {
			delivered = "was not delivered"
		}
	}
	s.markEntry(s.note(note), true, false)
	if len(s.undelivered)+len(s.undeliveredLater) == 0 {
		return
	}
	why := s.note(fmt.Sprintf("the answer sent at entry %d %s: %s", n, delivered, note))
	for _, x := range s.undelivered {
		// A server request whose answer the client sent in this
		// exchange: still pending, since the answer did not count.
		if r := s.t.at(x); r.flags&(fAnswered|fNullNote) == 0 {
			r.note = why
		}
	}
	for _, i := range s.undeliveredLater {
		s.deferred[i].undelivered, s.deferred[i].why = true, why
	}
}
