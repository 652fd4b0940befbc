package httpid

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rpcid/rpcid/internal/mediatype"
	"github.com/rpcid/rpcid/internal/restore"
)

// DefaultMaxPending is the number of request ids a Transport remembers at
// most when its MaxPending field is zero or negative.
const DefaultMaxPending = 4096

// DefaultMaxMessageSize is the size in bytes of the largest request body,
// JSON response body or event-stream event a Transport examines
// when its MaxMessageSize field is zero or negative. It is the default event
// size limit of the MCP Go SDK's client (16 MiB).
const DefaultMaxMessageSize = 16 << 20

// ErrTooManyPending is returned, wrapped, by Transport.RoundTrip when sending
// the request would make the Transport remember more than MaxPending request
// ids. The request is not sent. Use errors.Is to test for it; through an
// http.Client it arrives inside a *url.Error. Its text is "too many request
// ids pending".
var ErrTooManyPending = restore.ErrTooManyPending

// Transport is an http.RoundTripper that restores JSON-RPC response ids
// changed in transit. It remembers the id of each JSON-RPC request it sends
// and, in the responses it receives, rewrites each response id that is Equal
// under the rpcid rule to a remembered id but spelled differently back to the
// exact bytes that were sent. A gateway that turns "id":1 into "id":"1" (or
// "id":"1" into "id":1) is thereby invisible to the client above it.
//
// Media types. JSON types are application/json (RFC 8259), +json types
// (RFC 6839) and the two others that JSON-RPC over HTTP uses,
// application/json-rpc and application/jsonrequest: the JSON-RPC over HTTP
// draft (2008-01-15) says a request's Content-Type "SHOULD be
// application/json-rpc but MAY be application/json or
// application/jsonrequest", and the Zabbix API and Cisco NX-API take
// requests so labelled. Parameters (charset) and the case of the type do
// not matter. Bodies of other types (text/plain, forms) are not JSON-RPC
// here, even when their bytes are.
//
// Byte order marks. A UTF-8 byte order mark (EF BB BF) at the start of a
// request body, of a response body of a JSON type or of each line of a
// newline-delimited body is skipped, as RFC 8259 section 8.1 lets parsers
// do, and passed on with the rest: the JSON text after it is examined.
// Many readers skip it and read the message (fetch's Response.json(), which
// the TypeScript SDK uses; Python's json.loads of bytes, line by line too;
// System.Text.Json's stream readers); encoding/json, and so go-sdk and
// mcp-go, fail on it. A second mark, or one elsewhere, is not skipped. In a
// streamed application/json body a mark is among the bytes between texts,
// which pass at once. Within an event-stream event's data a mark is not
// skipped (only the one that starts the stream is, as the SSE standard
// says): clients hand the data to JSON.parse or encoding/json, which fail
// on it.
//
// Requests. The body of a POST whose Content-Type is a JSON type or
// absent, and that has no Content-Encoding, is read (at most
// MaxMessageSize bytes, into a buffer that grows as the bytes arrive, never
// ahead of them to a declared Content-Length; RoundTrip waits for its end, so a full-duplex
// request, whose body is written while its response is read, must not use a
// Transport) and sent on byte for byte; the id of each JSON-RPC 2.0
// request in it (an object with "jsonrpc":"2.0" and a "method" member, or
// each such element of a batch array) is remembered. Notifications (no
// "id"), null ids and ids that are not valid (see rpcid.Parse) are not
// remembered. Bodies of other requests, and bodies longer than
// MaxMessageSize, are sent unexamined.
//
// Responses. Every response is examined, whichever exchange it belongs to, so
// a response that arrives on another request's stream (such as the MCP
// standalone event stream opened with GET) is restored too (see Matching for
// which request a response answers):
//   - a JSON type (application/json, +json, application/json-rpc,
//     application/jsonrequest) with a Content-Length of at most
//     MaxMessageSize: the body is read in full before RoundTrip returns
//     (unless its request recorded no id and no id is remembered at all,
//     when it cannot hold one to restore and passes unread). If it is a
//     JSON-RPC response or a batch of them, the ids are restored, and
//     ContentLength and the Content-Length header are set to the new
//     length if it changed. A longer body passes unexamined, at once.
//   - a JSON type without a Content-Length: the body is
//     streamed, since it may be a long-lived stream of JSON texts. Each JSON
//     object or array at the top level is held from its first byte until its
//     closing bracket arrives (never more than MaxMessageSize bytes; a longer
//     one passes through unchanged), then restored like a whole body and
//     passed on; bytes between them (strings, brackets and all, included)
//     pass at once.
//   - newline-delimited JSON (application/x-ndjson, application/ndjson,
//     application/jsonl, application/jsonlines, application/x-jsonlines,
//     application/stream+json, and RFC 7464 application/json-seq or a
//     +json-seq type): the body is streamed line by line. Each line of at
//     most MaxMessageSize bytes is examined as one JSON text (after the
//     record separator of a json-seq record) as soon as its LF arrives;
//     longer lines pass through unchanged.
//   - text/event-stream: the body is streamed. Each event is held from its
//     first data line until the blank line that ends it (never more than
//     MaxMessageSize bytes; a longer event passes through unchanged) and then
//     passed on. The data of an event whose type is empty or "message" (the
//     lines joined with LF, as the SSE standard says; the type compared
//     without spaces around it, as go-sdk and mcp-go compare it) is examined
//     like a JSON body; an id on any of its lines is restored in place. So is
//     an event the stream ends in without the blank line that ends it (and
//     its last line without a line end): the SSE standard discards it, but
//     go-sdk and mcp-go deliver it. Comments, other fields, other event
//     types and data that is not JSON-RPC pass unchanged. LF, CR and CRLF
//     line endings and a leading byte order mark are understood.
//   - anything else, including bodies with a Content-Encoding other than
//     identity, passes unexamined. http.Transport removes the gzip encoding it
//     asked for itself (Response.Uncompressed), so such bodies are examined;
//     bodies encoded because the caller set Accept-Encoding are not, and
//     their ids are not restored.
//
// Because a rewrite can change the length, a streamed response's
// ContentLength is set to -1 and its Content-Length header is removed.
//
// Only JSON-RPC 2.0 response messages are examined: objects with
// "jsonrpc":"2.0", an "id" member, a "result" or "error" member and no
// "method" member. Any other JSON (a REST API's {"id":"5","result":...}
// fetched through the same client) passes unchanged and answers no request.
// Requests the server sends to the client carry ids from the server's own
// sequence and are never changed. Within a message only the bytes of the
// top-level "id" member's value may change; every other byte is passed on as
// received. A message whose "id", "method", "result" or "error" member is
// named twice, or by a case variant such as "ID" or "Id" (encoding/json
// matches member names case-insensitively, so a client built on it would
// read that one), is left alone, in requests and responses alike. An id that
// was never sent, a null id, and a form that the rule does not equate with
// the sent id (the string "02" or the string "1.0" for a sent 2 or 1; any
// string for a sent 1.5) pass unchanged. Forms the rule does equate are all
// restored: the number 1.0 or 1e0 for a sent 1 becomes 1, the string
// "a\u0062" for a sent "ab" becomes "ab". An id already spelled as sent
// passes unchanged but counts as the answer. JSON is checked as package rpcid checks an
// id (RFC 8259; invalid UTF-8 and lone surrogate escapes are not JSON-RPC):
// a text that is not valid passes unchanged.
//
// Matching. A response answers the requests of its own exchange first: a
// response id in the body of a POST is matched against the ids that POST's
// body sent (JSON-RPC 2.0 section 5: the response id MUST be the same as the
// request's; MCP Streamable HTTP: the server answers the requests of a POST on
// that POST's response, JSON or event stream), so that two clients' requests
// 1 and "1" in flight at once through a gateway that spells every id "1" each
// read their own. Only when that POST sent no Equal id (and for a body whose
// request sent none, such as an event stream opened with GET) is it matched
// against the requests sent with the same Mcp-Session-Id header (an MCP
// session's standalone stream, or its resumption with Last-Event-ID) or, for
// the 2024-11-05 HTTP+SSE transport, in the same session named in the URL
// (a sessionId or session_id query parameter of the POST's URL; the event
// stream opened with GET is in the session its first event, "endpoint",
// names in the URL it gives), and
// only when they have none, against all requests remembered, in flight
// first, then those whose exchange ended without the response. Within the
// first of these groups that holds an Equal id, an id spelled as received is
// chosen first, then the one spelling among requests in flight, then among
// ended ones; if the group holds Equal ids of different spellings and none of
// these picks one (a batch sent 1 and 1.0, "1" received; two requests in
// flight elsewhere, 1 and "1", and 1.0 received on a GET stream), the
// response is ambiguous: it passes unchanged and answers nothing.
//
// Memory. A remembered id is forgotten when a response with an Equal id
// passes through any body of the Transport, and when its exchange fails: the
// base RoundTripper returns an error, or the response status is not 2xx and
// its body has ended. When a successful exchange ends without the response
// (202 Accepted with no body, as for requests whose responses arrive on another
// stream; an event stream that ends or is closed early; a JSON body without
// it), the id is kept for a response arriving on another stream, but such ids
// are the first to be dropped, oldest first, when room is needed. At most
// MaxPending ids are remembered; a request that cannot be recorded within that
// limit fails with ErrTooManyPending before it is sent. As with http.Transport,
// callers must close response bodies.
//
// An application/json body read in full before RoundTrip returns is held in
// a buffer that serves a later response once the body's last byte has been
// read (by Read or WriteTo): from then on its Read returns 0 and io.EOF, and
// after Close it returns 0 and an error, as http.Transport's bodies do, so
// it never yields another exchange's bytes. A body closed before its end
// keeps its buffer for itself.
//
// A Transport is safe for concurrent use by multiple goroutines, and shares
// one table of ids among all of its requests, whatever their host: give each
// JSON-RPC server a client talks to a Transport of its own, or a response of
// one can answer an Equal id pending at another. Its zero value is ready to use.
// It must not be copied after first use. Set its fields before first use.
type Transport struct {
	// Base carries the requests. If nil, http.DefaultTransport is used.
	Base http.RoundTripper

	// MaxPending is the largest number of request ids remembered at once.
	// If zero or negative, DefaultMaxPending is used.
	MaxPending int

	// MaxMessageSize is the size in bytes of the largest request body,
	// JSON response body or event-stream event examined. Larger
	// ones pass unexamined: their request ids are not remembered and their
	// response ids are not restored. If zero or negative,
	// DefaultMaxMessageSize is used; values above math.MaxInt32 (2 GiB) are
	// treated as math.MaxInt32.
	MaxMessageSize int

	once  sync.Once
	table restore.Table // the ids sent and their restoring, shared with rpcid proxy
}

func init() {
	restore.TransportTable = func(x any) *restore.Table {
		if t, ok := x.(*Transport); ok {
			return t.ids()
		}
		return nil
	}
}

// ids returns t's table, setting its limit on first use.
func (t *Transport) ids() *restore.Table {
	t.once.Do(func() { t.table.MaxPending = t.MaxPending })
	return &t.table
}

// RoundTrip implements http.RoundTripper. It records the request ids in req's
// body (see Transport), sends req with Base, and returns Base's response with
// its body wrapped so that response ids are restored as they are read.
//
// It returns an error, and does not send the request, if reading the request
// body fails, or if the request's ids cannot be recorded within MaxPending
// (wrapping ErrTooManyPending). It returns Base's error as it is. In every
// case the request body is closed, as http.RoundTripper requires. RoundTrip
// does not modify req; it sends a shallow copy with a new body when it has
// read the body, and sets the response's Request to req if Base set it to
// the copy.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	var ex *restore.Exchange
	var c *requestCopy
	orig := req
	taken := 0 // bytes of the Budget the request body holds
	if examineRequest(req) {
		var body []byte
		var err error
		if c, body, taken, err = t.readRequest(req); err != nil {
			return nil, err
		}
		if body != nil && t.ids().Remap {
			if ex, err = t.remap(c, body); err != nil {
				t.ids().Budget.Give(taken)
				if f := t.ids().OnRefused; f != nil {
					f(err)
				}
				return refusal(req, body, err), nil
			}
		} else if body != nil {
			// A byte order mark before the text is not part of it (RFC
			// 8259 section 8.1); it is sent on with the rest.
			text, _ := mediatype.TrimBOM(body)
			if ex, err = t.ids().RecordSession(text, requestSession(req)); err != nil {
				t.ids().Budget.Give(taken)
				return nil, fmt.Errorf("httpid: %w", err)
			}
		}
		if c != nil {
			req = &c.Request
		}
	}
	resp, err := base.RoundTrip(req)
	t.ids().Budget.Give(taken)
	if err != nil {
		t.ids().Release(ex, true)
		return nil, err
	}
	if req.Method == http.MethodDelete && t.ids().Remap {
		endSession(t.ids(), req, resp)
	}
	t.wrap(req, resp, ex, c)
	if c != nil && resp.Request == &c.Request {
		// The caller's request, as without httpid: the copy is this
		// package's own.
		resp.Request = orig
	}
	return resp, nil
}

// CloseIdleConnections calls CloseIdleConnections on Base (or on
// http.DefaultTransport if Base is nil) if it has such a method, so that
// http.Client.CloseIdleConnections reaches the underlying transport.
func (t *Transport) CloseIdleConnections() {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if c, ok := base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// Len returns the number of request ids the Transport remembers now:
// requests in flight, plus requests whose exchange ended without their
// response and that have not been dropped yet.
func (t *Transport) Len() int { return t.ids().Len() }

func (t *Transport) maxMessageSize() int {
	switch {
	case t.MaxMessageSize <= 0:
		return DefaultMaxMessageSize
	case t.MaxMessageSize > math.MaxInt32:
		// Reading limit+1 bytes must not overflow: math.MaxInt asks for no
		// practical limit, and 2 GiB is more than any message examined.
		return math.MaxInt32
	}
	return t.MaxMessageSize
}

// examineRequest reports whether req's body may hold JSON-RPC requests.
func examineRequest(req *http.Request) bool {
	if req.Method != http.MethodPost || req.Body == nil || req.Body == http.NoBody || encoded(req.Header) {
		return false
	}
	ct := headerValue(req.Header, "Content-Type")
	return ct == "" || isJSON(parseMediaType(ct))
}

// headerValue is h.Get(key) for a key already in canonical form (as
// textproto.CanonicalMIMEHeaderKey writes it), without canonicalizing the
// key again on every call: the same first value, or "".
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// readRequest reads req's body and returns a copy of req that sends the
// same bytes (nil to send req itself), with the bytes if they are to be
// examined (nil if the body is longer than MaxMessageSize), and the bytes
// taken from the Table's Budget to hold them, to give back once the
// request is sent.
func (t *Transport) readRequest(req *http.Request) (_ *requestCopy, _ []byte, taken int, _ error) {
	limit := t.maxMessageSize()
	if req.ContentLength > int64(limit) {
		return nil, nil, 0, nil // too long to examine: send it on as it is
	}
	// A shallow copy, as Request.WithContext makes: only the body changes,
	// and nothing the two requests share is modified.
	c, buf := newRequestCopy(req)
	data, taken, err := readBody(buf, req.Body, req.ContentLength, limit, t.ids().Budget)
	if err != nil {
		t.ids().Budget.Give(taken)
		req.Body.Close()
		return nil, nil, 0, fmt.Errorf("httpid: reading request body: %w", err)
	}
	r2 := &c.Request
	if len(data) > limit {
		// Too long to examine: send it on as it is, unrecorded.
		r2.Body = readCloser{io.MultiReader(bytes.NewReader(data), req.Body), req.Body}
		return c, nil, taken, nil
	}
	req.Body.Close()
	c.body.Reset(data)
	r2.Body = &c.body
	if r2.GetBody == nil {
		// The original GetBody, if any, gives these same bytes again.
		r2.GetBody = func() (io.ReadCloser, error) { return newBytesBody(data), nil }
	}
	return c, data, taken, nil
}

// firstRead is the capacity in bytes of the largest buffer readBody
// allocates before the bytes to fill it have arrived: as much as one read
// of a socket usually brings.
const firstRead = 16 << 10

// readBody reads r to its end or to limit+1 bytes, whichever comes first,
// appending to data, which is empty. size is the length r is expected to
// have, or -1 (0 for a request) if unknown. Memory follows the bytes that
// arrive, not the length declared: a buffer of at most firstRead bytes is
// allocated to start (data itself, if it has room), and it grows by
// doubling as it fills, to size+1 bytes at most (room for one more byte to
// see the end) or limit+1. Each buffer is taken from budget (nil for no
// limit) while it is held: readBody returns the bytes taken, which the
// caller gives back when it lets go of the data, and fails with an error
// wrapping restore.ErrBudget, giving them back itself, when the budget has
// no room for a buffer. r is typed as the body it is, which saves an
// interface conversion per call.
func readBody(data []byte, r io.ReadCloser, size int64, limit int, budget *restore.Budget) (_ []byte, taken int, err error) {
	most := limit + 1
	if size > 0 && size <= int64(limit) {
		most = int(size) + 1
	}
	if cap(data) == 0 {
		data = make([]byte, 0, min(most, 512))
	}
	if !budget.Take(cap(data)) {
		return data, 0, restore.ErrBudget
	}
	taken = cap(data)
	for {
		if len(data) == cap(data) {
			ceiling := most
			if len(data) >= most {
				ceiling = limit + 1 // longer than it said: read on to the limit
			}
			n := min(max(2*cap(data), min(ceiling, firstRead)), ceiling)
			if !budget.Take(n) {
				budget.Give(taken)
				return data, 0, restore.ErrBudget
			}
			data = append(make([]byte, 0, n), data...)
			budget.Give(taken)
			taken = n
		}
		room := data[len(data):cap(data)]
		if m := limit + 1 - len(data); len(room) > m {
			room = room[:m]
		}
		k, err := r.Read(room)
		data = data[:len(data)+k]
		switch {
		case err == io.EOF:
			return data, taken, nil
		case err != nil:
			return data, taken, err
		case len(data) > limit:
			return data, taken, nil
		}
	}
}

// wrap arranges for resp's body to be examined, within the scope of ex (the
// ids its request recorded, if any) and of req's MCP session, and for ex to
// be released when the exchange ends.
// c is the copy of the request sent, if one was made.
func (t *Transport) wrap(req *http.Request, resp *http.Response, ex *restore.Exchange, c *requestCopy) {
	failed := resp.StatusCode < 200 || resp.StatusCode > 299
	if req.Method == http.MethodHead || resp.Body == nil || resp.Body == http.NoBody || resp.ContentLength == 0 || encoded(resp.Header) {
		t.ids().Release(ex, failed)
		return
	}
	session := requestSession(req)
	switch mt := mediaType(resp.Header); {
	case mt == "application/json" && resp.ContentLength > 0:
		// The common case first, without comparing it with every type below.
		t.restoreJSON(resp, ex, session, c)
		t.ids().Release(ex, failed)
	case mt == "application/json" && resp.ContentLength < 0:
		// Likewise, streamed: not one of the line-delimited types below.
		resp.Body = newStreamBody(t, resp.Body, ex, session, failed)
	case mediatype.IsEventStream(mt):
		resp.Body = newEventBody(t, resp.Body, ex, session, failed)
		streamed(resp)
	case isLines(mt):
		resp.Body = t.newLineBody(resp.Body, ex, session, failed, isSeq(mt))
		streamed(resp)
	case isJSON(mt) && resp.ContentLength < 0:
		resp.Body = newStreamBody(t, resp.Body, ex, session, failed)
	case isJSON(mt):
		t.restoreJSON(resp, ex, session, c)
		t.ids().Release(ex, failed)
	default:
		t.ids().Release(ex, failed)
	}
}

// streamed marks resp's length as unknown: a rewrite may change it.
func streamed(resp *http.Response) {
	if resp.ContentLength >= 0 {
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
}

// restoreJSON reads resp's body, of known length, restores the ids in it
// within the scope of ex and session (see restore.Scope) and replaces it. ex is the exchange's own ids, if it has any, and
// c the copy of its request, if one was made: the new body is allocated with
// it.
func (t *Transport) restoreJSON(resp *http.Response, ex *restore.Exchange, session string, c *requestCopy) {
	limit := t.maxMessageSize()
	if resp.ContentLength > int64(limit) || ex == nil && t.ids().Idle() {
		// Too long to examine; or nothing to restore and no one to tell of
		// an unmatched id: a complete document's responses answer requests
		// already recorded. (An exchange that recorded ids has them to
		// restore, unless another stream answered them meanwhile: the
		// Table's lock is not taken to ask.)
		return
	}
	body := resp.Body
	buf, _ := bodyBufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	budget := t.ids().Budget
	data, taken, err := readBody((*buf)[:0], body, resp.ContentLength, limit, budget)
	switch {
	case errors.Is(err, restore.ErrBudget):
		// No room to hold it: pass it on unexamined, as a longer one.
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(data), body), body}
		return
	case err != nil:
		// Give the caller what arrived, then the same error. data is not
		// pooled again: the caller may read it at any time.
		budget.Give(taken)
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(data), errReader{err}), body}
		return
	case len(data) > limit:
		budget.Give(taken)
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(data), body), body}
		return
	}
	body.Close()
	*buf = data
	out := restoreText(t.ids().Scope(ex, session), data)
	if int64(len(out)) != resp.ContentLength {
		resp.ContentLength = int64(len(out))
		if v := resp.Header["Content-Length"]; len(v) > 0 {
			// In place: the header is this response's own.
			v[0] = strconv.Itoa(len(out))
		}
	}
	var b *jsonBody
	if c != nil {
		b = &c.resp
	} else {
		b = new(jsonBody)
	}
	b.data, b.buf = out, buf
	b.budget = budget
	b.taken.Store(int64(taken))
	resp.Body = b
}

// restoreText restores the ids in data, one JSON text, within sc, in place
// where it can (see restore.Scope.RestoreInPlace), and returns the result. A UTF-8
// byte order mark that starts data is skipped, as RFC 8259 section 8.1 lets
// parsers do and fetch's Response.json(), Python's json.loads of bytes and
// System.Text.Json's stream readers do, and passed on unchanged: the text
// after it is restored.
func restoreText(sc restore.Scope, data []byte) []byte {
	text, bom := mediatype.TrimBOM(data)
	out, changed := sc.RestoreInPlace(text)
	switch {
	case !bom:
		return out
	case !changed:
		return data
	case len(out) > 0 && &out[0] == &text[0]:
		return data[:len(mediatype.BOM)+len(out)] // restored in place, after the mark
	}
	return append([]byte(mediatype.BOM), out...)
}

// maxPooled is the capacity in bytes of the largest buffer that a jsonBody
// gives back to bodyBufs; larger ones are left to the garbage collector, so
// that one large body does not pin its memory in the pool.
const maxPooled = 64 << 10

// bodyBufs holds the buffers (*[]byte) of jsonBodies read to their end, for
// the next application/json response to be read into.
var bodyBufs sync.Pool

// errBodyClosed is returned by a Read of a response body held in memory
// after its Close, as http.Transport's bodies do.
var errBodyClosed = errors.New("httpid: read on closed response body")

// A jsonBody is an application/json response body read in full and
// restored. Its buffer goes back to bodyBufs as soon as its last byte has
// been read, by the Read or WriteTo that read it, and never otherwise: the
// body then holds no bytes, and every later Read returns io.EOF (or
// errBodyClosed after Close). A body closed before its end leaves its
// buffer to the garbage collector, so a Read running concurrently with
// Close, as a response body allows, still reads this exchange's bytes.
// Read and WriteTo must not be called concurrently with each other, as for
// any io.Reader.
type jsonBody struct {
	data   []byte  // the body; data[off:] is unread
	off    int     // bytes read
	buf    *[]byte // the pooled buffer behind data, until given back
	closed atomic.Bool
	// taken is the bytes of budget that buf holds, given back once: when
	// the body is read to its end or closed.
	budget *restore.Budget
	taken  atomic.Int64
}

// Read implements io.Reader.
func (b *jsonBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errBodyClosed
	}
	if b.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	if b.off += n; b.off == len(b.data) {
		b.release()
	}
	return n, nil
}

// WriteTo implements io.WriterTo, so that io.Copy writes the body without a
// buffer of its own.
func (b *jsonBody) WriteTo(w io.Writer) (int64, error) {
	if b.closed.Load() {
		return 0, errBodyClosed
	}
	if b.off >= len(b.data) {
		return 0, nil
	}
	n, err := w.Write(b.data[b.off:]) // w must not keep the slice (io.Writer)
	if n < len(b.data)-b.off && err == nil {
		err = io.ErrShortWrite
	}
	if b.off += n; b.off == len(b.data) {
		b.release()
	}
	return int64(n), err
}

// Close implements io.Closer. A second Close does nothing.
func (b *jsonBody) Close() error {
	b.closed.Store(true)
	b.budget.Give(int(b.taken.Swap(0)))
	return nil
}

// release gives the buffer back to bodyBufs once every byte has been read.
func (b *jsonBody) release() {
	b.budget.Give(int(b.taken.Swap(0)))
	b.data, b.off = nil, 0
	if b.buf != nil && cap(*b.buf) <= maxPooled {
		*b.buf = (*b.buf)[:0]
		bodyBufs.Put(b.buf)
	}
	b.buf = nil
}

// A bytesBody is a request body held in memory.
type bytesBody struct{ bytes.Reader }

// A requestCopy is a request sent in place of the caller's, with its body
// and the body of its response if that is read in full: objects of one
// exchange, allocated together. (resp.Request usually refers to the request
// sent, so the copy lives as long as the response anyway.)
type requestCopy struct {
	http.Request
	body bytesBody // Request.Body
	resp jsonBody  // the response body, if restoreJSON reads it
}

// smallCopy and mediumCopy hold a requestCopy and the request body in one
// allocation, for bodies of at most len(buf)-1 bytes (readBody needs room
// for one more to see the end): 512 and 896 bytes in all with Go 1.26's
// http.Request, two of the allocator's size classes.
type (
	smallCopy struct {
		requestCopy
		buf [120]byte
	}
	mediumCopy struct {
		requestCopy
		buf [504]byte
	}
)

// newRequestCopy returns a copy of req and an empty buffer allocated with it
// for req's body (nil if the body is known to be too long for one).
func newRequestCopy(req *http.Request) (*requestCopy, []byte) {
	switch n := req.ContentLength; {
	case n > 0 && n < int64(len(smallCopy{}.buf)):
		c := &smallCopy{requestCopy: requestCopy{Request: *req}}
		return &c.requestCopy, c.buf[:0]
	case n < int64(len(mediumCopy{}.buf)): // or unknown: 0 or -1
		c := &mediumCopy{requestCopy: requestCopy{Request: *req}}
		return &c.requestCopy, c.buf[:0]
	}
	return &requestCopy{Request: *req}, nil
}

func newBytesBody(data []byte) *bytesBody {
	b := new(bytesBody)
	b.Reset(data)
	return b
}

func (*bytesBody) Close() error { return nil }

// mediaType returns the media type (type/subtype) of h's Content-Type as
// written, or "" if there is none or it is malformed, as
// mime.ParseMediaType would find it, without allocating. Compare it with
// strings.EqualFold: media types are case-insensitive (RFC 9110 section
// 8.3.1).
func mediaType(h http.Header) string {
	return parseMediaType(headerValue(h, "Content-Type"))
}

// parseMediaType is mediaType for the Content-Type value v.
func parseMediaType(v string) string {
	if v == "application/json" {
		return v // the common case, exactly as written: nothing to trim or check
	}
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimSpace(v)
	i := strings.IndexByte(v, '/')
	if i <= 0 || !isToken(v[:i]) || !isToken(v[i+1:]) {
		return ""
	}
	return v
}

// tokenChars[c] reports whether c may appear in a token of RFC 2045 section
// 5.1: any US-ASCII character except space, controls and tspecials.
var tokenChars = func() (t [256]bool) {
	for c := '!'; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`()<>@,;:\"/[]?=`, c)
	}
	return t
}()

// isToken reports whether s is a non-empty token of RFC 2045 section 5.1.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenChars[s[i]] {
			return false
		}
	}
	return true
}

// isJSON reports whether mt is a JSON media type (mediatype.IsJSON):
// application/json, a +json type, application/json-rpc or
// application/jsonrequest.
func isJSON(mt string) bool { return mediatype.IsJSON(mt) }

// isLines reports whether mt is a type of newline-delimited JSON texts
// (mediatype.IsLines).
func isLines(mt string) bool { return mediatype.IsLines(mt) }

// isSeq reports whether mt is a JSON text sequence type (RFC 7464, RFC 8091):
// each text starts with the record separator and ends with LF.
func isSeq(mt string) bool { return mediatype.IsSeq(mt) }

// encoded reports whether h names a content coding other than identity.
func encoded(h http.Header) bool {
	ce := headerValue(h, "Content-Encoding")
	if ce == "" {
		return false
	}
	ce = strings.TrimSpace(ce)
	return ce != "" && !strings.EqualFold(ce, "identity")
}

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
