package main

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"strings"
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
	rc io.ReadCloser
	fn func(value []byte) []byte

	buf     []byte   // chunk read from rc
	block   []byte   // the current block (lines up to a blank line), held
	lines   [][2]int // start and end of each complete line's content in block
	line    int      // start of the current line in block
	scanned int      // bytes of block looked at
	crEnded bool     // the last line ended with CR: a LF next belongs to it
	start   bool     // at the start of the stream: a BOM may come
	pass    bool     // done examining: bytes pass through
	out     []byte   // bytes ready for the caller, from out[off]
	off     int
	err     error
}

func newEndpointBody(rc io.ReadCloser, fn func([]byte) []byte) *endpointBody {
	return &endpointBody{rc: rc, fn: fn, start: true}
}

// Read implements io.Reader. It returns what is ready as soon as any is.
func (b *endpointBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for b.off == len(b.out) {
		b.out, b.off = b.out[:0], 0
		if b.err != nil {
			return 0, b.err
		}
		if b.pass {
			return b.rc.Read(p)
		}
		if b.buf == nil {
			b.buf = make([]byte, 4<<10)
		}
		n, err := b.rc.Read(b.buf)
		b.feed(b.buf[:n], err != nil)
		if err != nil {
			b.err = err
		}
	}
	n := copy(p, b.out[b.off:])
	b.off += n
	return n, nil
}

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
			b.out = append(b.out, b.block...)
			b.block = nil
			b.pass = true
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
			if b.pass {
				b.out = append(b.out, b.block...)
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
		b.out = append(b.out, b.block...)
		b.block = nil
		b.pass = true
	}
}

// endBlock passes on block[:end], one block of lines ending with a blank
// line, and keeps what follows as the start of the next block. If the block
// has a data line it is the first event: it is rewritten if it is an
// endpoint event, and examining stops.
func (b *endpointBody) endBlock(end int) {
	var event, value []byte
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
			data++
			value, vstart, vend = val, off, ln[1]
		}
	}
	out := b.block[:end]
	if data > 0 {
		b.pass = true
		if string(event) == "endpoint" && data == 1 {
			if repl := b.fn(value); repl != nil {
				b.out = append(b.out, b.block[:vstart]...)
				b.out = append(b.out, repl...)
				out = b.block[vend:end]
			}
		}
	}
	b.out = append(b.out, out...)
	b.block = append(b.block[:0], b.block[end:]...)
	b.lines = b.lines[:0]
	b.line, b.scanned, b.crEnded = 0, 0, false
}

// rewriteEndpoint returns the endpoint URL value rewritten to name this
// proxy, which the client reached as host, when value is an absolute (or
// scheme-relative) URL whose host and port are the upstream target's; else
// nil. Only the scheme and authority change: "https://gw.example/messages?s=1"
// becomes "http://127.0.0.1:8939/messages?s=1". Relative URLs work as they
// are: the client resolves them against the proxy's address.
func rewriteEndpoint(value []byte, target *url.URL, host string) []byte {
	if host == "" || !endpointAt(value, target) {
		return nil
	}
	s := string(value)
	rest := s[strings.Index(s, "//")+2:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	return []byte("http://" + host + rest)
}

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

// endpointElsewhere reports whether value is an absolute or scheme-relative
// URL naming a host other than target's: the client would send its requests
// there, around the proxy.
func endpointElsewhere(value []byte, target *url.URL) bool {
	u, err := url.Parse(string(value))
	return err == nil && u.Host != "" && !endpointAt(value, target)
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
