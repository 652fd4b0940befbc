package check

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
	"github.com/rpcid/rpcid/internal/mediatype"
	"github.com/rpcid/rpcid/internal/scan"
)

// websocket handles the frames of a WebSocket connection recorded in a HAR
// entry. Its frames are examined when at least one of them holds a
// JSON-RPC 2.0 message: a page's other sockets (Socket.IO, GraphQL) are
// counted as not examined. Text frames (opcode 1) and binary frames
// (opcode 2, base64 in the HAR) each hold one message or batch; control
// frames are skipped.
func (s *capture) websocket(pos position, frames []loose[harWSMessage]) {
	data := func(m *harWSMessage) ([]byte, bool) {
		switch m.Opcode {
		case 1:
			return []byte(m.Data), true
		case 2:
			b, err := decodeBase64(m.Data)
			return b, err == nil
		}
		return nil, false
	}
	rpc := false
	for i := range frames {
		if b, ok := data(&frames[i].v); ok && isJSONRPC(bytes.TrimSpace(b)) {
			rpc = true
			break
		}
	}
	if !rpc {
		s.skippedFrames += len(frames)
		return
	}
	s.bodyName = "websocket"
	s.strict = true
	defer func() { s.strict = false }()
	for i := range frames {
		loc := fmt.Sprintf("websocket message %d: ", i+1)
		if frames[i].bad {
			s.frame = i + 1
			s.invalid(pos, loc, "not a HAR WebSocket message: its type, opcode or data is not a string, number and string")
			s.frame = 0
			continue
		}
		m := &frames[i].v
		dir := fromUnknown
		switch strings.ToLower(m.Type) {
		case "send":
			dir = fromClient
		case "receive":
			dir = fromServer
		}
		b, ok := data(m)
		if !ok {
			if m.Opcode == 2 {
				s.frame = i + 1
				s.invalid(pos, loc, "a binary frame whose data is not base64")
				s.frame = 0
			}
			continue
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		s.frame = i + 1
		s.payload(pos, loc, dir, b, 0)
		s.frame = 0
	}
	s.bodyName = ""
}

// body handles a HAR request or response body. It reports whether the body
// holds a JSON-RPC 2.0 message.
func (s *capture) body(pos position, loc string, dir direction, c *harContent) bool {
	if c.Text == nil {
		return false
	}
	text := []byte(*c.Text)
	if strings.EqualFold(c.Encoding, "base64") {
		dec, err := decodeBase64(*c.Text)
		if err != nil {
			s.invalid(pos, loc, fmt.Sprintf("encoding is base64 but the text is not: %v", err))
			if dir == fromServer {
				s.unreadable = true // exchangeEnd cannot say what it held
			}
			return false
		}
		text = dec
	}
	if dir == fromServer && c.Size.v > int64(len(text)) {
		// Cut short by the tool that wrote the capture (a limit on the
		// size of bodies it keeps): what is missing may hold answers,
		// and the text's end is not the body's.
		s.cut = fmt.Sprintf("the capture holds %s of the %d its content.size gives", plural(len(text), "byte"), c.Size.v)
		loc = strings.TrimSuffix(loc, ": ") + " (" + s.cut + "): "
	}
	// A byte order mark before the body's text is not part of it (RFC 8259
	// section 8.1; the SSE standard skips it too): what follows is read,
	// with a warning when it holds a message (see markedBody).
	content, bom := mediatype.TrimBOM(text)
	start := len(text) - len(content)
	trimmed := bytes.TrimSpace(content)
	if len(trimmed) == 0 {
		return false
	}
	mt := mediaType(c.MimeType)
	s.examined, s.passed, s.hasRPC = false, false, false
	marked := false // a byte order mark starts a JSON text examined
	switch {
	case mediatype.IsEventStream(mt):
		s.sse(pos, loc, dir, text)
	case mediatype.IsLines(mt):
		s.lines(pos, loc, dir, text)
	case mediatype.IsJSON(mt):
		s.jsonTexts(pos, loc, dir, text, start)
		marked = bom
	case mt == "" && (trimmed[0] == '{' || trimmed[0] == '['):
		s.jsonTexts(pos, loc, dir, text, start)
		marked = bom
	case mt == "" && looksLikeSSE(trimmed):
		s.sse(pos, loc, dir, text)
	case isJSONRPC(trimmed):
		// JSON-RPC under another media type: browsers send a string body
		// as text/plain;charset=UTF-8 unless told otherwise, and some
		// servers and gateways label JSON text/plain or octet-stream.
		s.offsetBase = int64(start)
		s.payload(pos, loc, dir, content, 0)
		s.offsetBase = 0
		marked = bom
	case (trimmed[0] == '{' || trimmed[0] == '[') && textsHoldJSONRPC(trimmed):
		// The same for JSON texts back to back or one per line.
		s.jsonTexts(pos, loc, dir, text, start)
		marked = bom
	case looksLikeSSE(trimmed) && eventsHoldJSONRPC(trimmed):
		// And for an event stream.
		s.sse(pos, loc, dir, text)
	case trimmed[0] == 0x1e && textsHoldJSONRPC(bytes.TrimSpace(bytes.ReplaceAll(trimmed, []byte{0x1e}, []byte("\n")))):
		// And for a JSON text sequence (RFC 7464).
		s.lines(pos, loc, dir, text)
	default:
		s.passed = true
	}
	if marked && s.examined {
		s.markedBody(pos, loc)
	}
	if s.passed && !s.examined {
		// Nothing in it was examined: a body of another media type, or
		// JSON that is no JSON-RPC (a REST call, an OAuth document).
		if mt == "" {
			mt = "untyped"
		}
		if s.skipped == nil {
			s.skipped = map[string]int{}
		}
		s.skipped[base.ShowString(mt)]++
	}
	return s.hasRPC
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

// jsonTexts handles a JSON body: one JSON text, or several objects or
// arrays back to back, as a long-lived application/json stream sends them
// and httpid reads them, each a message or batch, from body[start:] (after
// a byte order mark, if one starts the body). Offsets in findings count
// from the start of the body.
func (s *capture) jsonTexts(pos position, loc string, dir direction, body []byte, start int) {
	defer func() { s.offsetBase = 0 }()
	for i := start; ; {
		for i < len(body) && isJSONSpace(body[i]) {
			i++
		}
		if i == len(body) {
			return
		}
		n := jsonExtent(body[i:])
		more := len(bytes.TrimLeft(body[i+n:], " \t\r\n")) > 0
		if !more {
			if i == 0 {
				s.payload(pos, loc, dir, body, 0) // one JSON text, as it is
			} else {
				s.offsetBase = int64(i)
				s.payload(pos, loc, dir, body[i:], 0)
			}
			return
		}
		s.offsetBase = int64(i)
		s.payload(pos, loc, dir, body[i:i+n], 0)
		i += n
	}
}

// lines handles a body of newline-delimited JSON texts (NDJSON, JSON
// Lines, stream+json, RFC 7464 json-seq, whose records start with an RS,
// 0x1E): each non-blank line (without a leading RS) holds a message or
// batch. A byte order mark at the start of a line, before or after its RS,
// is skipped, as httpid skips it: readers that give each line's bytes to
// Python's json.loads skip it too (see markedBody). Offsets in findings
// count from the start of the line.
func (s *capture) lines(pos position, loc string, dir direction, body []byte) {
	for n := 1; len(body) > 0; n++ {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		whole := len(line)
		line, bom := mediatype.TrimBOM(line)
		if rest := bytes.TrimLeft(line, "\x1e"); len(rest) < len(line) {
			var after bool // a mark after the record separator
			line, after = mediatype.TrimBOM(rest)
			bom = bom || after
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s.bodyLine = n
		loc := fmt.Sprintf("%sline %d: ", loc, n)
		examined := s.examined
		s.examined = false
		s.offsetBase = int64(whole - len(line))
		s.payload(pos, loc, dir, line, 0)
		s.offsetBase = 0
		if bom && s.examined {
			s.markedBody(pos, loc)
		}
		s.examined = s.examined || examined
		s.bodyLine = 0
	}
}

// markedBody warns that the body or line at loc starts with a byte order
// mark before the JSON-RPC it holds.
func (s *capture) markedBody(pos position, loc string) {
	s.report(pos, levelWarning, kindByteOrderMark, fmt.Sprintf("%sit starts with a UTF-8 byte order mark (EF BB BF), which JSON parsers may ignore (RFC 8259 section 8.1): fetch's json() (the TypeScript SDK's client), Python's json.loads of bytes and System.Text.Json's stream readers skip it and read the message after it; encoding/json (go-sdk, mcp-go) fails on it (\"invalid character 'ï' looking for beginning of value\")", loc), s.where())
}

// textsHoldJSONRPC reports whether b, JSON objects or arrays back to back
// (NDJSON among them), holds a JSON-RPC 2.0 message.
func textsHoldJSONRPC(b []byte) bool {
	for len(b) > 0 {
		n := jsonExtent(b)
		if isJSONRPC(b[:n]) {
			return true
		}
		b = bytes.TrimLeft(b[n:], " \t\r\n")
		if len(b) > 0 && b[0] != '{' && b[0] != '[' {
			return false
		}
	}
	return false
}

// eventsHoldJSONRPC reports whether the data line of an event in an event
// stream holds a JSON-RPC 2.0 message.
func eventsHoldJSONRPC(b []byte) bool {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok && isJSONRPC(bytes.TrimSpace(v)) {
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
