package check

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

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
func (s *capture) nullResponse(pos position, si int, raw, errRaw []byte, nullReq, again ref) {
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
func (s *capture) noticeFor(si int, pos position, message string, x ref) (*notice, string, bool) {
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
	mcpSession := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-'
	}
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		if (i == 0 || !mcpSession(text[i-1])) && (end == len(text) || !mcpSession(text[end])) {
			return true
		}
		from = i + 1
	}
}

// likely returns the request a null-id response from side si's peer may
// answer, with the words that say which it is: in a HAR, a pending request
// of the same HTTP exchange (or WebSocket connection); else the oldest
// pending request of that side not already taken by a null-id response.
// It is the one pending when the response came: it may still get an answer
// of its own later.
func (s *capture) likely(si int) (ref, string) {
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
