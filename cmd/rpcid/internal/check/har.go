package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// HAR 1.2 shapes, as far as check reads them.
type harEntry struct {
	Request struct {
		Method   string             `json:"method"`
		URL      loose[string]      `json:"url"`
		Headers  loose[[]harHeader] `json:"headers"`
		BodySize loose[int64]       `json:"bodySize"`
		PostData *harContent        `json:"postData"`
	} `json:"request"`
	// Response is nil when the entry has none (a HAR written with
	// requests only).
	Response *harResponse `json:"response"`
	// ResourceType is Chrome's kind of request ("websocket", "fetch").
	ResourceType loose[string] `json:"_resourceType"`
	// WebSocketMessages are the frames of a WebSocket connection, as
	// Chrome and mitmproxy record them.
	WebSocketMessages loose[[]loose[harWSMessage]] `json:"_webSocketMessages"`
}

// harResponse is the response of a HAR entry.
type harResponse struct {
	Status     int                `json:"status"`
	StatusText string             `json:"statusText"`
	Headers    loose[[]harHeader] `json:"headers"`
	Content    harContent         `json:"content"`
	// Error is why Chrome's exchange failed ("net::ERR_ABORTED"),
	// with status 0; without it, status 0 is also a request still
	// waiting for its response when the HAR was written.
	Error loose[string] `json:"_error"`
}

// loose is a member that tools write in shapes of their own (extensions
// such as _error, fields that HAR 1.2 types but some writers do not): a
// value of another type than T reads as absent, so that the entry is still
// read.
type loose[T any] struct {
	v   T
	bad bool // the member is there, in another shape
}

func (l *loose[T]) UnmarshalJSON(b []byte) error {
	var v T
	if json.Unmarshal(b, &v) == nil {
		l.v = v
	} else {
		l.bad = true
	}
	return nil
}

// harHeader is one HTTP header of a HAR request.
type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// sessionKey names the MCP session a HAR entry belongs to: its endpoint, the
// URL without query or fragment (scheme and host in lower case, and the
// path), and its session, the Mcp-Session-Id header of the request or, for
// a request without one (initialize), the Mcp-Session-Id its response
// assigns; or for a WebSocket connection the entry itself. Servers behind
// one origin on different paths (a gateway's /github/mcp and /slack/mcp)
// are different endpoints (MCP 2025-06-18, Streamable HTTP: "a single HTTP
// endpoint path"; Session Management).
func sessionKey(n int, e *harEntry) string {
	if len(e.WebSocketMessages.v) > 0 {
		return "websocket " + strconv.Itoa(n)
	}
	if id := sseSession(e); id != "" {
		// The 2024-11-05 HTTP+SSE transport: the GET stream's endpoint
		// event names the session, and its POSTs carry the name in their
		// URL, whatever the host (a reconnect starts a new one).
		return "sse " + id
	}
	endpoint := "" // a URL without a host: one endpoint for all of them
	if u, err := url.Parse(e.Request.URL.v); err == nil && u.Host != "" {
		path := u.EscapedPath()
		if path == "" {
			path = "/"
		}
		endpoint = strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + path
	}
	sid := headerValue(e.Request.Headers.v, "mcp-session-id")
	if sid == "" && e.Response != nil {
		// The server assigns the session in its answer to initialize,
		// which the client sends without one.
		sid = headerValue(e.Response.Headers.v, "mcp-session-id")
	}
	return endpoint + " " + sid
}

// headerValue returns the value of the last header named name (in any
// case), without the whitespace around it (RFC 9110 section 5.5), or "".
func headerValue(headers []harHeader, name string) string {
	v := ""
	for _, h := range headers {
		if strings.EqualFold(h.Name, name) {
			v = h.Value
		}
	}
	return strings.Trim(v, " \t")
}

// sseSession returns the session of an entry of the 2024-11-05 HTTP+SSE
// transport: the sessionId (TypeScript SDK) or session_id (Python SDK)
// query parameter of a POST's URL, or of the URL in the endpoint event
// that starts a GET event stream; "" for other entries.
func sseSession(e *harEntry) string {
	param := func(raw string) string {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			return ""
		}
		q := u.Query()
		if v := q.Get("sessionId"); v != "" {
			return v
		}
		return q.Get("session_id")
	}
	if strings.EqualFold(e.Request.Method, "POST") {
		return param(e.Request.URL.v)
	}
	if !strings.EqualFold(e.Request.Method, "GET") || e.Response == nil || e.Response.Content.Text == nil {
		return ""
	}
	// The first event, as the transport sends it: "event: endpoint" and
	// one data line.
	text := *e.Response.Content.Text
	if len(text) > 4096 {
		text = text[:4096]
	}
	lines := strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		if strings.TrimSpace(l) == "event: endpoint" || strings.TrimSpace(l) == "event:endpoint" {
			if i+1 < len(lines) {
				if d, ok := strings.CutPrefix(lines[i+1], "data:"); ok {
					return param(d)
				}
			}
			return ""
		}
	}
	return ""
}

// harWSMessage is one WebSocket frame: Type "send" (by the client) or
// "receive"; Opcode 1 for text, 2 for binary (Data in base64).
type harWSMessage struct {
	Type   string `json:"type"`
	Opcode int    `json:"opcode"`
	Data   string `json:"data"`
}

// harContent is a request's postData or a response's content.
type harContent struct {
	Size     loose[int64] `json:"size"`
	MimeType string       `json:"mimeType"`
	Text     *string      `json:"text"`
	Encoding string       `json:"encoding"`
	// File is where Playwright put the body instead (a HAR recorded with
	// content "attach", or inside a .zip): a file beside the HAR.
	File loose[string] `json:"_file"`
}

// elsewhere is what a note adds when the body is in a file of its own.
func (c *harContent) elsewhere() string {
	if f := strings.TrimSpace(c.File.v); f != "" {
		return " (the HAR names the file " + base.ShowString(f) + " for it, which check does not read)"
	}
	return ""
}

// recorded reports whether c holds a body's text: tools that write HAR
// files often leave out the text of event-stream responses, which they
// cannot hold whole, leaving content.text absent or empty.
func (c *harContent) recorded() bool {
	return c.Text != nil && strings.TrimSpace(*c.Text) != ""
}

// harFormat is a HAR capture.
type harFormat struct{ *capture }

// read reads a HAR capture one entry at a time with a streaming decoder.
func (s harFormat) read(br *bufio.Reader) error {
	h := &harReader{s: s.capture, dec: json.NewDecoder(br)}
	dec := h.dec
	if err := expectDelim(dec, '{'); err != nil {
		return h.bad(err)
	}
	sawEntries := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return h.bad(err)
		}
		if key != "log" {
			if err := skipValue(dec); err != nil {
				return h.badValue(err)
			}
			continue
		}
		if err := expectDelim(dec, '{'); err != nil {
			return h.bad(err)
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return h.bad(err)
			}
			if key != "entries" {
				if err := skipValue(dec); err != nil {
					return h.badValue(err)
				}
				continue
			}
			sawEntries = true
			if err := h.readEntries(); err != nil || h.stopped {
				return err
			}
		}
		if err := expectDelim(dec, '}'); err != nil {
			return h.bad(err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return h.bad(err)
	}
	if !sawEntries {
		s.harBroken = "not a valid HAR file: it has no log.entries"
	}
	// A HAR file is one JSON object: what follows it (another capture
	// joined with cat, say) is not read, and must not pass unseen.
	if _, err := dec.Token(); err != io.EOF {
		at := s.harBase + dec.InputOffset()
		if err != nil {
			var se *json.SyntaxError
			if !errors.As(err, &se) {
				return err // a read error
			}
		}
		s.report(position{}, levelError, kindInvalid, fmt.Sprintf("not a valid HAR file: more data follows the HAR object (near byte %d), and is not read", at), nil)
	}
	return nil
}

// harReader is where harFormat.read is in a HAR file, for the findings when the
// file cannot be read from some point on.
type harReader struct {
	s           *capture
	dec         *json.Decoder
	entry       int  // the entries read, HAR entries or not
	inEntry     bool // the text that could not be read is an entry's
	entriesDone bool // the entries array has ended
	value       bool // the error is a Decode's of a whole value
	stopped     bool // bad was called: the file is read no further
}

// readEntries reads the log.entries array, from its "[".
func (h *harReader) readEntries() error {
	s, dec := h.s, h.dec
	if err := expectDelim(dec, '['); err != nil {
		return h.bad(err)
	}
	for dec.More() {
		var e harEntry
		err := dec.Decode(&e)
		h.entry++
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			s.invalid(position{entry: h.entry}, "", "not a HAR entry: "+typeErrorText(te))
			s.badEntries++
			continue
		}
		if err != nil {
			h.entry--
			// The entry being read is the broken one, unless the
			// input ends before it starts (after a comma) or no
			// comma comes before it.
			var se *json.SyntaxError
			h.inEntry = err != io.EOF && !(errors.As(err, &se) && strings.HasPrefix(se.Error(), "expected comma"))
			return h.badValue(err)
		}
		s.entries++
		s.harEntry(h.entry, &e)
	}
	if err := expectDelim(dec, ']'); err != nil {
		return h.bad(err)
	}
	h.entriesDone = true
	return nil
}

// typeErrorText says what te found in a HAR entry, in the terms of JSON and
// HAR: the member by its path in the entry and the JSON types, never the Go
// types the entry is decoded into.
func typeErrorText(te *json.UnmarshalTypeError) string {
	want := "another type"
	switch te.Type.Kind() {
	case reflect.Struct, reflect.Map:
		want = "an object"
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.String:
		want = "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		want = "a number"
	case reflect.Bool:
		want = "true or false"
	}
	what := "the entry"
	if te.Field != "" {
		what = te.Field
	}
	found := "a JSON " + te.Value
	if te.Value == "bool" {
		found = "true or false"
	}
	return fmt.Sprintf("%s is %s, where HAR has %s", what, found, want)
}

// badValue is bad for an error of a Decode of a whole value.
func (h *harReader) badValue(err error) error {
	h.value = true
	return h.bad(err)
}

// bad handles err, which stopped the reading of a HAR file: a read error
// is returned; a file cut short or not JSON from there on is reported (a
// nothing-to-check finding before any entry, an invalid-message after),
// and what the rest may hold is noted for the requests left unanswered.
func (h *harReader) bad(err error) error {
	h.stopped = true
	s, entry := h.s, h.entry
	var se *json.SyntaxError
	// io.EOF too: the decoder returns it where a member name or value
	// should start, and a capture detected as HAR that ends there is
	// truncated, not unreadable.
	if !errors.As(err, &se) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errMalformedHAR) {
		return err
	}
	where := ""
	switch {
	case h.inEntry:
		where = fmt.Sprintf(" inside entry %d", entry+1)
	case entry > 0:
		where = fmt.Sprintf(" after entry %d", entry)
	}
	detail, cut := harFault(h.dec, err, h.value, s.harBase)
	msg := "not a valid HAR file" + where + ": " + detail
	if cut {
		msg = fmt.Sprintf("not a valid HAR file: it is cut short%s (%s)", where, detail)
	}
	s.harBroken, s.harBrokenAfterEntries = msg, h.entriesDone
	if entry == 0 {
		// Broken before any entry could be read, or inside the first:
		// there is no entry to name, and the one finding is that
		// nothing could be checked.
		return nil
	}
	pos := position{} // between entries, or after them: the file's
	if h.inEntry {
		pos = position{entry: entry + 1}
	}
	s.invalid(pos, "", msg)
	// The entries the file lacks, and the one it breaks in, may hold
	// answers.
	why := fmt.Sprintf("the HAR file, which may hold it after entry %d, is not valid from there on (%s), and the rest is not read", entry, detail)
	if cut {
		why = fmt.Sprintf("the HAR file, which may hold it after entry %d, is not valid from there on (it is cut short%s: %s)", entry, where, detail)
	}
	s.lostAll = lostAny{^uint32(0), why}
	return nil
}

var errMalformedHAR = errors.New("unexpected JSON structure")

// harFault says where and why dec could not read a HAR file, after err, for
// a finding: for a file cut short, where the input ends (cut is true); for
// a syntax error, the byte at fault. Offsets count from the start of the
// file's text (base: the byte order mark check skipped). value says err
// is that of a Decode of a whole value (an entry, a member skipped), not
// of a Token.
//
// The decoder's own offsets do not serve: after a failed Decode its
// InputOffset is where the value started, and the Offset of a SyntaxError
// from Decode counts only the bytes of the values it scanned. But the
// decoder keeps the text from where the value started to where it stopped
// reading, so the value is scanned again, as Unmarshal scans, to find the
// byte. The errors of the decoder's own checks between values (a Token it
// would not take, Decode's "expected colon after object key") are at
// InputOffset, the byte it stopped at; a Token error in a member name,
// which Token reads with Decode, is found by scanning again.
func harFault(dec *json.Decoder, err error, value bool, base int64) (detail string, cut bool) {
	start := dec.InputOffset()
	buf, _ := io.ReadAll(dec.Buffered())
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The decoder read to the end of the input.
		return fmt.Sprintf("the input ends at byte offset %d", base+start+int64(len(buf))), true
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		// errMalformedHAR: a token read whole, of the wrong kind.
		return fmt.Sprintf("%v, near byte offset %d", err, base+start), false
	}
	var again *json.SyntaxError
	found := errors.As(json.Unmarshal(buf, new(json.RawMessage)), &again) && again.Error() == se.Error()
	// A token that Token failed to read whole (value false): a string,
	// literal or number, whose error the same text reproduces in place
	// when read as a value by itself.
	var first byte
	if t := bytes.TrimLeft(buf, " \t\r\n"); len(t) > 0 {
		first = t[0]
	}
	inString := first == '"' && (strings.Contains(se.Error(), " in string ") || strings.Contains(se.Error(), " hexadecimal character escape"))
	inScalar := strings.IndexByte("tfn-0123456789", first) >= 0 && strings.Contains(se.Error(), " literal")
	if found && (value || inString || inScalar) {
		// Offset counts the byte at fault.
		return fmt.Sprintf("%v at byte offset %d", err, base+start+again.Offset-1), false
	}
	return fmt.Sprintf("%v at byte offset %d", err, base+start), false
}

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

// isHAR reports whether the capture is a HAR file: its first JSON value is
// an object with a "log" member (wherever it is) whose value is an object,
// and no member of a JSON-RPC message (jsonrpc, id, method, result, error,
// params): an object with such a member is a message, and the capture JSON
// Lines. It reads no more than it needs to decide, and at most 1 MiB: a
// first object longer than that is decided on its first 1 MiB.
func isHAR(br *bufio.Reader) bool {
	// Each undecided look asks for twice as many bytes, so that input
	// arriving a byte at a time costs O(n log n), not O(n^2).
	for n := 1; ; n = min(2*br.Buffered(), br.Size()) {
		_, err := br.Peek(n)
		more := err == nil && n < br.Size() // else end of input or a full buffer: decide on what there is
		b, _ := br.Peek(br.Buffered())
		verdict, decided := harVerdict(b)
		if decided || !more {
			return verdict
		}
	}
}

// harVerdict decides isHAR on the first bytes of a capture: decided is
// false when more bytes are needed; verdict is then the best guess.
func harVerdict(b []byte) (verdict, decided bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil {
		return false, !truncated(err)
	} else if t != json.Delim('{') {
		return false, true
	}
	harLog := false // a "log" member whose value is an object
	for {
		t, err := dec.Token()
		if err != nil {
			return harLog, !truncated(err)
		}
		name, ok := t.(string)
		if !ok { // the end of the object
			return harLog, true
		}
		switch name {
		case "jsonrpc", "id", "method", "result", "error", "params":
			return false, true
		case "log":
			t, err := dec.Token()
			if err != nil {
				return false, !truncated(err)
			}
			if t != json.Delim('{') {
				if err := skipRest(dec, t); err != nil {
					return false, !truncated(err)
				}
				continue
			}
			harLog = true
			if err := skipRest(dec, t); err != nil {
				return true, !truncated(err)
			}
		default:
			t, err := dec.Token()
			if err == nil {
				err = skipRest(dec, t)
			}
			if err != nil {
				return harLog, !truncated(err)
			}
		}
	}
}

// truncated reports whether a decoding error is the end of the bytes seen.
func truncated(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// skipRest skips the rest of a value whose first token was t.
func skipRest(dec *json.Decoder, t json.Token) error {
	if t != json.Delim('{') && t != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
