package check

import (
	"fmt"

	"github.com/rpcid/rpcid"
)

// go-sdk's mcp.LoggingTransport logs what its side's connection reads and
// writes, which is not always what passed between the peers:
//
//   - When go-sdk gives up on a request (its streamable HTTP client, when the
//     event stream of a POST ends without the answer it looks for, as after
//     it dropped a response whose id changed type), it hands its own
//     connection a made-up error response with the request's id, code 0 and
//     "request terminated without response", which the log shows as read.
//     It is go-sdk's verdict on the request, not a message of the peer.
//   - Reads and writes are logged from different goroutines, so the read of
//     a response may come before the write of its request (see
//     sdkReorderLines).

// sdkGaveUpMessage is the message of go-sdk's own error response.
const sdkGaveUpMessage = "request terminated without response"

// sdkReorderLines bounds how far, in lines, the write of a request may come
// after the read of its response in a go-sdk log for the two to be matched.
const sdkReorderLines = 16

// sdkGaveUp reports whether data, read on a line of a go-sdk log, is
// go-sdk's own error response for a request it gave up on, and if so
// handles it: the request it names, answered by a response whose id
// changed type or spelling (which go-sdk dropped) or never answered, is
// reported as failed in go-sdk, at its own line. Such a line is not a message and is
// not counted as one (nor as a line without one: it is examined).
func (s *capture) sdkGaveUp(pos position, dir direction, data []byte) bool {
	msgs, batch, err := scanText(s.msgs[:0], &s.scanned, data)
	s.msgs = msgs[:0]
	if err != nil || batch || len(msgs) != 1 {
		return false
	}
	m := &msgs[0]
	if !m.object || m.version == nil || m.method != nil || m.result != nil || m.errv == nil || m.id == nil || m.dup|m.fold != 0 {
		return false
	}
	if info := describeError(m.errv); info.code != "0" || info.message != sdkGaveUpMessage {
		return false
	}
	id, perr := rpcid.Parse(m.id)
	if perr != nil || id.Kind() == rpcid.KindNull {
		return false
	}
	sd := &s.t.sides[sideOf(dir == fromClient)]
	x, ok := sd.get(keyOf(id))
	if !ok {
		return false
	}
	r := s.t.at(x)
	// The finding is the request's, at its line, as every
	// unanswered-request finding is.
	own := fmt.Sprintf("line %d is not a message go-sdk read but its own error response (code 0, %q)", pos.line, sdkGaveUpMessage)
	f := &finding{ID: r.raw(), Method: s.t.method(x), Request: s.ref(x), Note: own}
	switch {
	case r.flags&fAnswered == 0:
		// Never answered: go-sdk stopped waiting.
		r.flags |= fCancelled // reported here, not again at the end
		s.report(s.posOf(r), levelError, kindUnanswered, fmt.Sprintf("%s %s (%s) was never answered, and go-sdk gave up on it: %s",
			reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), own), f)
	case s.respelled[x] != "":
		// Answered under the rule by a response go-sdk dropped.
		f.Note = fmt.Sprintf("go-sdk dropped the response at %s, whose id %s, and gave up on it: %s", s.answeredAt(x), s.respelled[x], own)
		s.report(s.posOf(r), levelError, kindUnanswered, fmt.Sprintf("%s %s (%s) failed in go-sdk: %s",
			reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note), f)
	default:
		return false
	}
	return true
}

// noteRespelled remembers, in a go-sdk log, that request x was answered by
// a response whose id changed (how: "changed type", "changed spelling"),
// which go-sdk drops or may drop (see sdkGaveUp).
func (s *capture) noteRespelled(x ref, how string) {
	if s.log != logSDK {
		return
	}
	if s.respelled == nil {
		s.respelled = map[ref]string{}
	}
	s.respelled[x] = how
}

// sdkInOrder reports whether the response deferred at pos may answer the
// request x written after it: in a go-sdk log, only within
// sdkReorderLines lines.
func (s *capture) sdkInOrder(pos position, x ref) bool {
	return s.log != logSDK || s.t.at(x).pos-pos.n() <= sdkReorderLines
}
