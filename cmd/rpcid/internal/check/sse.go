package check

import (
	"bytes"
	"fmt"
	"hash/maphash"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// sse handles a text/event-stream body: each event's data lines, joined
// with newlines, are one message. Events without data (such as the priming
// events of MCP's resumable streams) and comments are skipped. Lines end in
// CRLF, LF or CR. An event not followed by a blank line at the end of the
// body is still read: capture tools often trim trailing newlines.
//
// A byte order mark before the first line is skipped, as the SSE standard
// says.
//
// An event on a resumed stream (see redelivered) with an id field that
// repeats the id and the data (the same bytes; see seenEvent) of an event
// read before
// in the same MCP session (see sessionKey) is a redelivery of that event, not
// a new message: a client resuming a stream with a GET carrying
// Last-Event-ID gets the events after it replayed with their ids, which are
// unique across all streams of a session (MCP 2025-06-18, Streamable HTTP,
// "Resumability and Redelivery"). It is counted in the summary. An event
// that repeats an id with other data is not a redelivery of the event that
// had it, and is checked as a message of its own. Only an id field of the
// event itself counts (not the last event id an earlier event left), and
// ids are remembered as seenEvents bounds them.
func (s *capture) sse(pos position, loc string, dir direction, body []byte) {
	var data, typ, eid []byte
	hasData, hasID := false, false
	event := 0
	dispatch := func() {
		if hasData {
			event++
			// go-sdk and mcp-go compare the type without spaces around
			// it; the SSE standard (browsers, the TypeScript SDK) does not.
			spaced := len(typ) > 0 && string(typ) != "message" && string(bytes.TrimSpace(typ)) == "message"
			switch {
			case len(typ) > 0 && string(typ) != "message" && !spaced:
				// Not a message (such as the HTTP+SSE "endpoint" event), as
				// the SSE standard dispatches it and httpid reads it.
				t := base.ShowString(string(typ))
				if s.otherEvents == nil {
					s.otherEvents = map[string]int{}
				}
				s.otherEvents[t]++
				s.c.otherEvents[t]++
			case len(bytes.TrimSpace(data)) > 0:
				if hasID && len(eid) > 0 && s.redelivered(eid, data) {
					s.counts.redelivered++
					break
				}
				s.event = event
				if spaced && (s.strict || isJSONRPC(bytes.TrimSpace(data))) {
					s.report(pos, levelWarning, kindAmbiguousEvent, fmt.Sprintf("%sevent %d: its type is %q, \"message\" with spaces around it: go-sdk and mcp-go read it as a message (they trim the type), and clients that follow the SSE standard (browsers, the TypeScript SDK) ignore it", loc, event, base.ShowString(string(typ))), s.where())
				}
				s.payload(pos, fmt.Sprintf("%sevent %d: ", loc, event), dir, data, 0)
				s.event = 0
			}
		}
		data, typ, eid, hasData, hasID = data[:0], typ[:0], eid[:0], false, false
	}
	// A byte order mark at the start of the stream is not part of its
	// first line (the SSE standard's parsing rules; httpid skips it too).
	body = bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
	for len(body) > 0 {
		i := bytes.IndexAny(body, "\r\n")
		var line []byte
		if i < 0 {
			line, body = body, nil
		} else {
			line = body[:i]
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		if len(line) == 0 {
			dispatch()
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "event":
			typ = append(typ[:0], value...)
		case "id":
			// The SSE standard ignores an id holding U+0000.
			if bytes.IndexByte(value, 0) < 0 {
				eid = append(eid[:0], value...)
				hasID = true
			}
		}
	}
	if hasData && (len(typ) == 0 || string(bytes.TrimSpace(typ)) == "message") && len(bytes.TrimSpace(data)) > 0 && s.cut == "" &&
		(s.strict || isJSONRPC(bytes.TrimSpace(data))) {
		// "If the file ends in the middle of an event, before the final
		// empty line, the incomplete event is not dispatched" (WHATWG
		// HTML, section 9.2.6), as browsers and the TypeScript SDK do (its
		// eventsource-parser stream has no flush); go-sdk and mcp-go
		// deliver it. Whether the stream ended there or the capture was
		// written while it was open (or a tool trimmed the text), the bytes
		// do not tell: the event is read as a message, with a warning. (A
		// body cut short says so already; see body. A page's own stream,
		// which holds no JSON-RPC, is passed over.)
		s.event = event + 1
		s.report(pos, levelWarning, kindAmbiguousEvent, fmt.Sprintf("%sevent %d: the body ends before the blank line that ends this event: if the stream ended here, clients that follow the SSE standard discard the event (WHATWG HTML, section 9.2.6; browsers, the TypeScript SDK), and go-sdk and mcp-go deliver it", loc, event+1), s.where())
		s.event = 0
	}
	dispatch()
}

// seenEvent is an SSE event read in a HAR: its id and a hash of its data.
// The data must be the same bytes: a server replays what it stored (the
// TypeScript SDK's example event store keeps each message and serializes it
// again as the first time), and a hash of the bytes costs nothing next to
// decoding each event's JSON to compare values (5 us and 48 allocations).
type seenEvent struct {
	id   string
	data uint64
}

// seenEvents remembers the SSE events with ids read in a HAR's sessions,
// for redeliveries: the last seenEventsMax of the capture, whose ids take
// at most seenEventBytesMax bytes in all; older ones are forgotten, and an
// event replayed after them is checked as a new message.
type seenEvents struct {
	seed  maphash.Seed
	ring  []seenRef // grows to seenEventsMax, then wraps around
	at, n int
	bytes int
}

// seenRef is a remembered event and the session that read it.
type seenRef struct {
	p *mcpSession
	e seenEvent
}

const (
	seenEventsMax     = 1 << 16
	seenEventBytesMax = 16 << 20 // 65536 ids of 256 bytes
)

// redelivered reports whether the SSE event with id and data, on a stream
// the client resumed (a GET with Last-Event-ID), was read before in the
// session in use, and remembers it if not. Only a resumed stream replays:
// on others, a repeated id and data is a new event (a server that numbers
// the events of each stream from 1, as MCP's 2025-03-26 text allowed, or
// two requests with the same id answered alike).
func (s *capture) redelivered(id, data []byte) bool {
	g := &s.seen
	if g.n == 0 && len(g.ring) == 0 {
		g.seed = maphash.MakeSeed()
	}
	p := s.p
	e := seenEvent{data: maphash.Bytes(g.seed, data)}
	if _, ok := p.events[seenEvent{string(id), e.data}]; ok {
		if s.resumed {
			return true
		}
		return false // remembered already
	}
	if len(id) > seenEventBytesMax {
		return false // not remembered
	}
	e.id = string(id)
	for g.n > 0 && (g.n == seenEventsMax || g.bytes+len(e.id) > seenEventBytesMax) {
		old := g.ring[g.at]
		g.ring[g.at] = seenRef{}
		g.at = (g.at + 1) % len(g.ring)
		g.n--
		g.bytes -= len(old.e.id)
		delete(old.p.events, old.e)
	}
	if g.n == len(g.ring) { // full: grow, oldest first again
		ring := make([]seenRef, min(max(2*len(g.ring), 64), seenEventsMax))
		copy(ring, g.ring[g.at:])
		copy(ring[len(g.ring)-g.at:], g.ring[:g.at])
		g.ring, g.at = ring, 0
	}
	g.ring[(g.at+g.n)%len(g.ring)] = seenRef{p, e}
	g.n++
	g.bytes += len(e.id)
	if p.events == nil {
		p.events = map[seenEvent]struct{}{}
	}
	p.events[e] = struct{}{}
	return false
}
