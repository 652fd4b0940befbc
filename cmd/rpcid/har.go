package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rpcid/rpcid/internal/scan"
)

// HAR 1.2 shapes, as far as check reads them.
type harEntry struct {
	Request struct {
		Method   string      `json:"method"`
		PostData *harContent `json:"postData"`
	} `json:"request"`
	Response struct {
		Status     int        `json:"status"`
		StatusText string     `json:"statusText"`
		Content    harContent `json:"content"`
	} `json:"response"`
}

// harContent is a request's postData or a response's content.
type harContent struct {
	Size     int64   `json:"size"`
	MimeType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Encoding string  `json:"encoding"`
}

// recorded reports whether c holds a body's text: tools that write HAR
// files often leave out the text of event-stream responses, which they
// cannot hold whole, leaving content.text absent or empty.
func (c *harContent) recorded() bool {
	return c.Text != nil && strings.TrimSpace(*c.Text) != ""
}

// readHAR reads a HAR capture one entry at a time with a streaming decoder.
func (s *session) readHAR(r io.Reader) error {
	dec := json.NewDecoder(r)
	entry := 0
	decoding := false // inside an entry
	bad := func(err error) error {
		var se *json.SyntaxError
		// io.EOF too: the decoder returns it where a member name or value
		// should start, and a capture detected as HAR that ends there is
		// truncated, not unreadable.
		if errors.As(err, &se) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errMalformedHAR) {
			msg := fmt.Sprintf("not a valid HAR file (near byte %d): %v", dec.InputOffset(), err)
			if !decoding && entry == 0 {
				// Broken before any entry: there is no entry to name, and
				// the one finding is that nothing could be checked.
				s.harBroken = msg
				return nil
			}
			s.invalid(position{entry: entry + 1}, "", msg)
			return nil
		}
		return err
	}
	if err := expectDelim(dec, '{'); err != nil {
		return bad(err)
	}
	sawEntries := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		if key != "log" {
			if err := skipValue(dec); err != nil {
				return bad(err)
			}
			continue
		}
		if err := expectDelim(dec, '{'); err != nil {
			return bad(err)
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return bad(err)
			}
			if key != "entries" {
				if err := skipValue(dec); err != nil {
					return bad(err)
				}
				continue
			}
			sawEntries = true
			if err := expectDelim(dec, '['); err != nil {
				return bad(err)
			}
			for dec.More() {
				var e harEntry
				decoding = true
				err := dec.Decode(&e)
				decoding = false
				entry++
				var te *json.UnmarshalTypeError
				if errors.As(err, &te) {
					s.invalid(position{entry: entry}, "", fmt.Sprintf("not a HAR entry: %v", err))
					continue
				}
				if err != nil {
					entry--
					decoding = true // the entry being read is the broken one
					return bad(err)
				}
				s.entries++
				s.harEntry(entry, &e)
			}
			if err := expectDelim(dec, ']'); err != nil {
				return bad(err)
			}
		}
		if err := expectDelim(dec, '}'); err != nil {
			return bad(err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return bad(err)
	}
	if !sawEntries {
		s.harBroken = "not a valid HAR file: it has no log.entries"
	}
	return nil
}

var errMalformedHAR = errors.New("unexpected JSON structure")

// expectDelim reads the next token and checks that it is d.
func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if t != d {
		return fmt.Errorf("%w: expected %v, found %v", errMalformedHAR, d, t)
	}
	return nil
}

// skipValue reads and discards the next JSON value.
func skipValue(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}

// harEntry handles one HAR entry: the request body's messages are the
// client's, the response body's the server's.
func (s *session) harEntry(n int, e *harEntry) {
	pos := position{entry: n}
	s.entryRequests = s.entryRequests[:0]
	if e.Request.PostData != nil {
		s.bodyName = "request"
		s.body(pos, "request body: ", fromClient, e.Request.PostData)
	}
	s.bodyName = "response"
	s.body(pos, "response body: ", fromServer, &e.Response.Content)
	s.bodyName = ""
	st := e.Response.Status
	if st >= 200 && st <= 299 && s.lostStream == 0 && strings.EqualFold(e.Request.Method, "GET") &&
		!e.Response.Content.recorded() && mediaType(e.Response.Content.MimeType) == "text/event-stream" {
		// A GET event stream whose body the capture lacks, as tools that
		// write HAR files leave out streams that had not ended: in the
		// 2024-11-05 HTTP+SSE transport it carries the answers to requests
		// accepted with 202.
		s.lostStream = n
	}
	switch {
	case st == 202:
		// Its answers go on an event stream; finish words the finding by
		// whether the capture holds every such stream.
		if s.accepted == 0 {
			s.accepted = s.note("its HTTP response was 202 Accepted")
		}
		for _, x := range s.entryRequests {
			if r := s.t.at(x); r.flags&fNullNote == 0 && r.note == 0 {
				r.note = s.accepted
			}
		}
	case st >= 200 && st <= 299 && st != 204 && !e.Response.Content.recorded():
		// A success whose body the capture lacks: its answers may be in
		// that body, so the requests are not said to be unanswered (202
		// Accepted and 204 No Content carry no body).
		c := &e.Response.Content
		what := fmt.Sprintf("status %d", st)
		if mt := strings.TrimSpace(c.MimeType); mt != "" {
			what += ", " + showString(mt)
		}
		note := "the body of its HTTP response (" + what + ") is empty or was left out of the capture"
		if c.Size > 0 {
			note = fmt.Sprintf("the body of its HTTP response (%s, %s) was left out of the capture", what, plural(int(min(c.Size, math.MaxInt32)), "byte"))
		}
		i := s.note(note)
		if i > 0 {
			s.noBody[i] = true
		}
		for _, x := range s.entryRequests {
			if r := s.t.at(x); r.flags&fNullNote == 0 && r.note == 0 {
				r.note = i
			}
		}
	case st < 200 || st > 299:
		note := "its HTTP exchange got no response"
		if st > 0 {
			note = fmt.Sprintf("its HTTP response had status %d", st)
			if e.Response.StatusText != "" {
				note += " " + showString(e.Response.StatusText)
			}
		}
		i := s.note(note)
		for _, x := range s.entryRequests {
			if r := s.t.at(x); r.flags&fNullNote == 0 {
				r.note = i
			}
		}
	}
}

// body handles a HAR request or response body.
func (s *session) body(pos position, loc string, dir direction, c *harContent) {
	if c.Text == nil {
		return
	}
	text := []byte(*c.Text)
	if strings.EqualFold(c.Encoding, "base64") {
		dec, err := decodeBase64(*c.Text)
		if err != nil {
			s.invalid(pos, loc, fmt.Sprintf("encoding is base64 but the text is not: %v", err))
			return
		}
		text = dec
	}
	trimmed := bytes.TrimSpace(text)
	if len(trimmed) == 0 {
		return
	}
	mt := mediaType(c.MimeType)
	switch {
	case mt == "text/event-stream":
		s.sse(pos, loc, dir, text)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		s.payload(pos, loc, dir, text, 0)
	case mt == "" && (trimmed[0] == '{' || trimmed[0] == '['):
		s.payload(pos, loc, dir, text, 0)
	case mt == "" && looksLikeSSE(trimmed):
		s.sse(pos, loc, dir, text)
	case isJSONRPC(trimmed):
		// JSON-RPC under another media type: browsers send a string body
		// as text/plain;charset=UTF-8 unless told otherwise, and some
		// servers and gateways label JSON text/plain or octet-stream.
		s.payload(pos, loc, dir, text, 0)
	default:
		if mt == "" {
			mt = "untyped"
		}
		if s.skipped == nil {
			s.skipped = map[string]int{}
		}
		s.skipped[showString(mt)]++
	}
}

// mediaType returns the media type of a HAR mimeType, lower case, without
// parameters.
func mediaType(mimeType string) string {
	mt := strings.ToLower(strings.TrimSpace(mimeType))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	return mt
}

// isJSONRPC reports whether b is a JSON text holding at least one JSON-RPC
// 2.0 message: an object, or a batch element, with "jsonrpc":"2.0".
func isJSONRPC(b []byte) bool {
	if len(b) == 0 || b[0] != '{' && b[0] != '[' {
		return false
	}
	var buf [8]scan.Message
	msgs, _, err := scan.Scan(buf[:0], b)
	if err != nil {
		return false
	}
	for i := range msgs {
		if msgs[i].IsJSONRPC20(b) {
			return true
		}
	}
	return false
}

// looksLikeSSE reports whether an untyped body starts like an event stream.
func looksLikeSSE(b []byte) bool {
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

// sse handles a text/event-stream body: each event's data lines, joined
// with newlines, are one message. Events without data (such as the priming
// events of MCP's resumable streams) and comments are skipped. Lines end in
// CRLF, LF or CR. An event not followed by a blank line at the end of the
// body is still read: capture tools often trim trailing newlines.
func (s *session) sse(pos position, loc string, dir direction, body []byte) {
	var data, typ []byte
	hasData := false
	event := 0
	dispatch := func() {
		if hasData {
			event++
			switch {
			case len(typ) > 0 && string(typ) != "message":
				// Not a message (such as the HTTP+SSE "endpoint" event), as
				// the SSE standard dispatches it and httpid reads it.
				t := showString(string(typ))
				if s.otherEvents == nil {
					s.otherEvents = map[string]int{}
				}
				s.otherEvents[t]++
				s.c.otherEvents[t]++
			case len(bytes.TrimSpace(data)) > 0:
				s.event = event
				s.payload(pos, fmt.Sprintf("%sevent %d: ", loc, event), dir, data, 0)
				s.event = 0
			}
		}
		data, typ, hasData = data[:0], typ[:0], false
	}
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
		}
	}
	dispatch()
}

// decodeBase64 decodes HAR base64 text, with or without padding, ignoring
// line breaks.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}
