package proxy

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/rpcid/rpcid/internal/restore"
)

// maxEndpointEvent is the size in bytes of the largest event an endpointBody
// holds back to examine. An endpoint event holds one URL; a stream whose
// first event is longer passes unexamined.
const maxEndpointEvent = 64 << 10

// endpointBody is the body of an event stream opened with GET. It passes the
// stream on as it arrives, except that it holds back the first event (the
// first one with a data line, which the 2024-11-05 HTTP+SSE transport
// requires to be "endpoint") until the blank line that ends it. If that event
// has type "endpoint" and one data line, fn is called with the data value and,
// if it returns non-nil, the value is replaced by what it returns; every other
// byte of the event is kept. From then on the stream passes unexamined.
//
// Lines end with CRLF, LF or CR, a line starting with a colon is a comment,
// and "name: value" loses one space after the colon, as the WHATWG HTML
// standard section 9.2.6 says; a byte order mark may start the stream.
// Comments and blocks without data before the first event pass on unchanged.
type endpointBody struct {
	restore.Filter // reads rc through Feed
	rc             io.ReadCloser
	fn             func(value []byte) []byte
	// multi, if set, is called instead of fn for an endpoint event with
	// more than one data line, with the value a client reads (the lines'
	// values joined by LF); such an event passes unchanged.
	multi func(value []byte)

	block   []byte   // the current block (lines up to a blank line), held
	lines   [][2]int // start and end of each complete line's content in block
	line    int      // start of the current line in block
	scanned int      // bytes of block looked at
	crEnded bool     // the last line ended with CR: a LF next belongs to it
	start   bool     // at the start of the stream: a BOM may come
}

func newEndpointBody(rc io.ReadCloser, fn func([]byte) []byte) *endpointBody {
	b := &endpointBody{rc: rc, fn: fn, start: true}
	b.Src, b.F = rc, b
	return b
}

// Feed takes bytes read from the stream (restore.Feeder).
func (b *endpointBody) Feed(p []byte) { b.feed(p, false) }

// End takes the end of the stream (restore.Feeder).
func (b *endpointBody) End() { b.feed(nil, true) }

// Close closes the underlying body.
func (b *endpointBody) Close() error { return b.rc.Close() }

// feed takes bytes read from the stream; eof is true when no more follow.
func (b *endpointBody) feed(p []byte, eof bool) {
	b.block = append(b.block, p...)
	if b.start {
		bom := []byte("\uFEFF")
		if len(b.block) < len(bom) && bytes.HasPrefix(bom, b.block) && !eof {
			return // too short to tell
		}
		b.start = false
		if bytes.HasPrefix(b.block, bom) {
			b.line, b.scanned = len(bom), len(bom)
		}
	}
	for i := b.scanned; i < len(b.block); i++ {
		if i >= maxEndpointEvent {
			// Too long for an endpoint event: stop examining.
			b.Out = append(b.Out, b.block...)
			b.block = nil
			b.Pass = true
			return
		}
		c := b.block[i]
		if c != '\r' && c != '\n' {
			continue
		}
		if c == '\n' && b.line == i && i > 0 && b.block[i-1] == '\r' && b.crEnded {
			// The LF of a CRLF whose CR ended the line before.
			b.line, b.crEnded = i+1, false
			continue
		}
		if c == '\r' && i+1 == len(b.block) && !eof {
			// A LF may follow in the next read: look again then.
			b.scanned = i
			return
		}
		if b.line == i {
			// A blank line: the block ends after its terminator.
			end := i + 1
			if c == '\r' && end < len(b.block) && b.block[end] == '\n' {
				end++
			}
			b.endBlock(end)
			if b.Pass {
				b.Out = append(b.Out, b.block...)
				b.block = nil
				return
			}
			i = -1 // the next block starts at 0
			continue
		}
		b.lines = append(b.lines, [2]int{b.line, i})
		b.line, b.crEnded = i+1, c == '\r'
	}
	b.scanned = len(b.block)
	if eof {
		b.Out = append(b.Out, b.block...)
		b.block = nil
		b.Pass = true
	}
}

// endBlock passes on block[:end], one block of lines ending with a blank
// line, and keeps what follows as the start of the next block. If the block
// has a data line it is the first event: it is rewritten if it is an
// endpoint event, and examining stops.
func (b *endpointBody) endBlock(end int) {
	var event, value, joined []byte
	data, vstart, vend := 0, 0, 0
	for _, ln := range b.lines {
		text := b.block[ln[0]:ln[1]]
		if len(text) > 0 && text[0] == ':' {
			continue // a comment
		}
		name, val, colon := bytes.Cut(text, []byte(":"))
		off := ln[0] + len(name)
		if colon {
			off++
			if len(val) > 0 && val[0] == ' ' {
				val = val[1:]
				off++
			}
		}
		switch string(name) {
		case "event":
			event = val
		case "data":
			if data > 0 {
				joined = append(joined, '\n')
			}
			joined = append(joined, val...)
			data++
			value, vstart, vend = val, off, ln[1]
		}
	}
	out := b.block[:end]
	if data > 0 {
		b.Pass = true
		if string(event) == "endpoint" && data > 1 && b.multi != nil {
			b.multi(joined)
		}
		if string(event) == "endpoint" && data == 1 {
			if repl := b.fn(value); repl != nil {
				b.Out = append(b.Out, b.block[:vstart]...)
				b.Out = append(b.Out, repl...)
				out = b.block[vend:end]
			}
		}
	}
	b.Out = append(b.Out, out...)
	b.block = append(b.block[:0], b.block[end:]...)
	b.lines = b.lines[:0]
	b.line, b.scanned, b.crEnded = 0, 0, false
}

// rewriteEndpoint returns the endpoint URL value rewritten to name this
// proxy, which the client reached as host, when value is an absolute (or
// scheme-relative) URL whose host and port are the upstream target's; else
// nil. Only the scheme and authority change: "https://gw.example/messages?s=1"
// becomes "http://127.0.0.1:8939/messages?s=1". Relative URLs work as they
// are: the client resolves them against the proxy's address. Leading and
// trailing spaces and C0 controls are ignored in deciding, as the WHATWG URL
// standard's parser ignores them; leading ones go with the scheme.
func rewriteEndpoint(value []byte, target *url.URL, host string) []byte {
	s := strings.TrimLeftFunc(string(value), isC0OrSpace)
	if host == "" || !endpointAt([]byte(strings.TrimRightFunc(s, isC0OrSpace)), target) {
		return nil
	}
	rest := s[strings.Index(s, "//")+2:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	return []byte("http://" + host + rest)
}

// isC0OrSpace reports whether r is a C0 control or space, which the WHATWG
// URL parser strips from both ends of a URL.
func isC0OrSpace(r rune) bool { return r <= ' ' }

// endpointAt reports whether value is an absolute or scheme-relative URL
// naming target's host and port (the scheme's default port when none is
// written).
func endpointAt(value []byte, target *url.URL) bool {
	u, err := url.Parse(string(value))
	if err != nil || u.Host == "" || u.Opaque != "" {
		return false
	}
	scheme := u.Scheme
	if scheme == "" {
		scheme = target.Scheme
	}
	return hostPort(u.Host, scheme) == hostPort(target.Host, target.Scheme)
}

// endpointRelative reports whether value is a relative reference that names
// no host, read as the WHATWG URL parser (browsers, Node, the TypeScript SDK)
// reads it: without leading and trailing spaces and C0 controls and without
// tabs and line breaks, with no scheme, and not starting with two slashes,
// where "\" counts as "/" (a client resolves "\\host/m" against an http
// base as "//host/m"). The client resolves such a value against the
// proxy's own URL, so its POSTs come through the proxy.
func endpointRelative(value []byte) bool {
	s := strings.TrimFunc(string(value), isC0OrSpace)
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	slash := func(c byte) bool { return c == '/' || c == '\\' }
	if len(s) >= 2 && slash(s[0]) && slash(s[1]) {
		return false
	}
	// A scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" (RFC 3986
	// section 3.1).
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			continue
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
			continue
		case i > 0 && c == ':':
			return false
		}
		break
	}
	return true
}

// endpointElsewhere reports whether value is an absolute or scheme-relative
// URL that Go's url.Parse reads as naming a host other than target's (spaces
// and C0 controls at either end ignored): the client would send its
// requests there, around the proxy.
func endpointElsewhere(value []byte, target *url.URL) bool {
	v := []byte(strings.TrimFunc(string(value), isC0OrSpace))
	u, err := url.Parse(string(v))
	return err == nil && u.Host != "" && !endpointAt(v, target)
}

// hostPort returns host (a URL's authority without user information) in
// lower case with an explicit port, the default port of scheme when it has
// none.
func hostPort(host, scheme string) string {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		h = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		port = "80"
		if strings.EqualFold(scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(h), port)
}
