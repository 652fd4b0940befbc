package httpid

import (
	"bytes"
	"io"
	"slices"

	"github.com/rpcid/rpcid/internal/restore"
)

// eventBody is the body of a text/event-stream response. It passes the
// stream on as it arrives, holding back only the event being read from its
// first data line to the blank line that dispatches it, and restores the
// response ids in each event's data (see Transport).
//
// Parsing follows the WHATWG HTML standard, section 9.2.6 "Interpreting an
// event stream": lines end with CRLF, LF or CR; a line starting with a colon
// is a comment; "name: value" loses one space after the colon; the values of
// an event's data lines are joined with LF; a blank line dispatches the event;
// a byte order mark may start the stream.
type eventBody struct {
	restore.Filter // reads rc through Feed; End at its end
	t              *Transport
	rc             io.ReadCloser
	ex             *restore.Exchange
	sc             restore.Scope // ex's, and its request's session
	failed         bool
	max            int

	line     []byte     // the current line so far, without its terminator
	held     []byte     // the current event from its first data line
	data     []dataLine // the data values of the current event, in held
	event    []byte     // the current event's type
	join     []byte     // scratch: the data of a multi-line event
	holding  bool       // the current event has a data line: bytes go to held
	skipping bool       // the current event outgrew max: pass it on unexamined
	skipLine bool       // while skipping: the current line is not blank
	cr       bool       // the last byte fed was CR: a LF next belongs to it
	first    bool       // no line has ended yet
	// endpoint is set while the stream, opened in no session, may still
	// name one in its first event (see endpointSession).
	endpoint bool

	heldp    *[]byte     // the pooled buffer behind held (restore.GetBuf)
	hold     hold        // held and line, charged to the budget
	dataBuf  [4]dataLine // data's first elements, without an allocation
	eventBuf [16]byte    // event's first bytes, without an allocation
}

// A dataLine locates the value of one data line in eventBody.held.
type dataLine struct{ start, n int }

// heldLimit is the capacity above which eventBody's buffers are freed after
// each event, so one large event does not pin its memory for the stream's
// lifetime.
const heldLimit = 64 << 10

func newEventBody(t *Transport, rc io.ReadCloser, ex *restore.Exchange, session string, failed bool) *eventBody {
	b := &eventBody{t: t, rc: rc, ex: ex, sc: t.ids().Scope(ex, session), failed: failed, max: t.maxMessageSize(), first: true}
	b.endpoint = ex == nil && session == ""
	b.hold.budget = t.ids().Budget
	b.Src, b.F = rc, b
	b.data, b.event = b.dataBuf[:0], b.eventBuf[:0]
	return b
}

// Close closes the underlying body and ends the exchange. It may be called
// concurrently with Read, as for any response body.
func (b *eventBody) Close() error {
	err := b.rc.Close()
	b.t.ids().Release(b.ex, b.failed)
	b.hold.end()
	return err
}

// End passes on an event left incomplete when the stream ended (clients
// discard it: only a blank line dispatches an event) and ends the exchange.
func (b *eventBody) End() {
	if !b.skipping {
		// The last line, if the stream ends without its line end, and the
		// event the stream ends in, if no blank line ended it: the SSE
		// standard discards such an event, but go-sdk and mcp-go read the
		// last line and deliver the event (openai-node did not, until
		// gateways that close the stream right after the last data line
		// made it: openai/openai-node#2725), so its ids are restored too.
		// A client that discards it reads no id.
		if len(b.line) > 0 {
			b.endLine(b.line, nil)
		}
		if b.holding {
			b.dispatch()
		}
	}
	b.Out = append(b.Out, b.held...)
	b.Out = append(b.Out, b.line...)
	b.reset()
	b.line = b.line[:0]
	if b.heldp != nil {
		// Read calls End once, and Feed never after it.
		restore.PutBuf(b.heldp, b.held)
		b.heldp, b.held = nil, nil
	}
	b.hold.end()
	b.t.ids().Release(b.ex, b.failed)
}

// Feed processes bytes read from the stream.
func (b *eventBody) Feed(p []byte) {
	for len(p) > 0 {
		if b.cr {
			b.cr = false
			if p[0] == '\n' { // the rest of a CRLF
				b.put(p[:1])
				p = p[1:]
				continue
			}
		}
		i := lineEnd(p)
		if i < 0 {
			b.partial(p)
			return
		}
		if len(b.line) == 0 && !b.skipping && len(b.held)+i <= b.max {
			// The whole line is in p: examine it there, without a copy.
			b.cr = p[i] == '\r'
			b.endLine(p[:i], p[i:i+1])
		} else {
			b.partial(p[:i])
			b.cr = p[i] == '\r'
			b.endLine(b.line, p[i:i+1])
		}
		p = p[i+1:]
	}
}

// lineEnd returns the index of the first CR or LF in p, or -1. Two
// bytes.IndexByte scans are much faster than one bytes.IndexAny.
func lineEnd(p []byte) int {
	i := bytes.IndexByte(p, '\n')
	q := p
	if i >= 0 {
		q = p[:i]
	}
	if j := bytes.IndexByte(q, '\r'); j >= 0 {
		return j
	}
	return i
}

// put passes bytes of the current event on, or holds them.
func (b *eventBody) put(p []byte) {
	if b.holding {
		if cap(b.held) == 0 {
			// The first event held, or the first since one that outgrew
			// heldLimit: the pooled buffer is free (held grew out of it,
			// if it ever did).
			if b.heldp == nil {
				b.heldp = restore.GetBuf(len(p))
			}
			b.held = (*b.heldp)[:0]
		}
		b.held = append(b.held, p...)
		if !b.hold.set(cap(b.held) + cap(b.line)) {
			// No room in the budget: pass the event on unexamined, as one
			// too long to examine. p is a whole line, or its end: the
			// next byte starts a line.
			b.Out = append(b.Out, b.held...)
			b.skipLine = false
			b.skipHeld()
		}
	} else {
		b.Out = append(b.Out, p...)
	}
}

// skipEvent passes on what is held of the current event and the current
// line unexamined, and passes the rest of the event as it arrives.
func (b *eventBody) skipEvent() {
	b.Out = append(b.Out, b.held...)
	b.Out = append(b.Out, b.line...)
	b.skipLine = len(b.line) > 0
	b.skipHeld()
}

// skipHeld forgets the current event, whose bytes have been passed on, and
// lets go of its buffers (the skipped rest does not use them), so that the
// budget has room for the next event.
func (b *eventBody) skipHeld() {
	b.reset()
	b.held, b.line = nil, nil
	b.hold.set(0)
	b.skipping = true
}

// partial adds p to the current line.
func (b *eventBody) partial(p []byte) {
	if b.skipping {
		if len(p) > 0 {
			b.skipLine = true
			b.Out = append(b.Out, p...)
		}
		return
	}
	b.line = append(b.line, p...)
	if len(b.held)+len(b.line) > b.max || !b.hold.set(cap(b.held)+cap(b.line)) {
		// Too long to examine, or no room in the budget: pass the event
		// on as it is.
		b.skipEvent()
	}
}

var bom = []byte("\xef\xbb\xbf")

// endLine processes the current line l (b.line, or all of it in the bytes
// fed), ended by term.
func (b *eventBody) endLine(l, term []byte) {
	if b.skipping {
		b.Out = append(b.Out, term...)
		if !b.skipLine { // a blank line ends the event
			b.skipping = false
		}
		b.skipLine = false
		b.first = false
		return
	}
	content := l
	if b.first {
		b.first = false
		content = bytes.TrimPrefix(l, bom)
	}
	switch {
	case len(content) == 0:
		b.dispatch()
		b.Out = append(b.Out, l...)
		b.Out = append(b.Out, term...)
	case content[0] == ':': // a comment
		b.put(l)
		b.put(term)
	default:
		name, value, _ := bytes.Cut(content, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "data":
			b.holding = true
			b.data = append(b.data, dataLine{len(b.held) + len(l) - len(value), len(value)})
		case "event":
			b.event = append(b.event[:0], value...)
		}
		b.put(l)
		b.put(term)
	}
	b.line = b.line[:0]
}

// dispatch passes the current event on with its ids restored, and starts the
// next event.
func (b *eventBody) dispatch() {
	if b.holding {
		if b.endpoint {
			b.endpointSession()
		}
		b.Out = b.restoreEvent(b.Out)
	}
	b.reset()
}

// endpointSession looks at the stream's first event, which the 2024-11-05
// HTTP+SSE transport requires to be "endpoint", naming the URL that the
// client POSTs its messages to; when the session is in that URL (see
// urlSession), the responses of this stream answer the requests of that
// session first, as the POSTs' responses do: the transport sends each
// session's responses on its own stream, so two clients whose requests
// have Equal ids each get their own spelling back.
func (b *eventBody) endpointSession() {
	b.endpoint = false
	if string(bytes.TrimSpace(b.event)) != "endpoint" || len(b.data) != 1 {
		return
	}
	d := b.data[0]
	u := b.held[d.start : d.start+d.n]
	if i := bytes.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	if i := bytes.IndexByte(u, '?'); i >= 0 {
		if s := urlSession(string(u[i+1:])); s != "" {
			b.sc = b.t.ids().Scope(b.ex, s)
		}
	}
}

// reset forgets the current event.
func (b *eventBody) reset() {
	b.held, b.data, b.event = b.held[:0], b.data[:0], b.event[:0]
	b.holding = false
	if cap(b.held) > heldLimit {
		b.held = nil
	}
	if cap(b.join) > heldLimit {
		b.join = nil
	}
	if cap(b.line) > heldLimit {
		b.line = nil
	}
	b.hold.set(cap(b.held) + cap(b.line)) // never more than before: fits
}

// restoreEvent appends the held event to dst with its ids restored.
func (b *eventBody) restoreEvent(dst []byte) []byte {
	held := b.held
	// The type as go-sdk and mcp-go compare it, without surrounding
	// spaces: "message " is a message to them (not to the SSE standard, by
	// which clients that ignore the event read no id to restore).
	if typ := bytes.TrimSpace(b.event); len(typ) > 0 && string(typ) != "message" || b.t.ids().Idle() {
		return append(dst, held...)
	}
	dst = slices.Grow(dst, len(held)+8) // one allocation, with room for an id restored longer
	var data []byte
	if len(b.data) == 1 {
		d := b.data[0]
		data = held[d.start : d.start+d.n]
	} else {
		b.join = b.join[:0]
		for i, d := range b.data {
			if i > 0 {
				b.join = append(b.join, '\n')
			}
			b.join = append(b.join, held[d.start:d.start+d.n]...)
		}
		data = b.join
	}
	// Map each id's span from data to held. A JSON token cannot contain the
	// LF that joins two lines, so each id lies within one data line.
	last := 0
	j, at := 0, 0 // data line j starts at offset at in data
	b.sc.Restore(data, func(start, end int, sent []byte) {
		for j < len(b.data) && start >= at+b.data[j].n+1 {
			at += b.data[j].n + 1
			j++
		}
		if j == len(b.data) || end > at+b.data[j].n {
			return // unreachable for valid JSON
		}
		shift := b.data[j].start - at
		dst = append(dst, held[last:start+shift]...)
		dst = append(dst, sent...)
		last = end + shift
	})
	return append(dst, held[last:]...)
}
