package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// An idChange says what a gateway does to the id of a message it forwards to
// the client: it returns the new id, or raw itself to leave it alone.
type idChange func(raw json.RawMessage) json.RawMessage

// stringify turns a numeric id into a string with the same digits, as
// gateways that re-encode ids do: 1 becomes "1".
func stringify(raw json.RawMessage) json.RawMessage {
	if len(raw) > 0 && (raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9') {
		return json.RawMessage(strconv.Quote(string(raw)))
	}
	return raw
}

// invent returns an idChange that replaces every id with one of the
// gateway's own ("gw-1", "gw-2", ...), as a gateway that multiplexes clients
// over one upstream session may do.
func invent() idChange {
	var mu sync.Mutex
	n := 0
	return func(raw json.RawMessage) json.RawMessage {
		if string(raw) == "null" {
			return raw
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		return json.RawMessage(fmt.Sprintf(`"gw-%d"`, n))
	}
}

// A gateway is a reverse proxy on 127.0.0.1 that changes the ids of the
// JSON-RPC messages in the responses it forwards (application/json bodies and
// the data of each text/event-stream event; events are forwarded as they
// arrive). Requests pass unchanged. Like most such gateways it re-encodes the
// messages it changes: member order is kept, insignificant whitespace is not.
type gateway struct {
	*httptest.Server
	*rewriter
	rec *recorder // nil: no recording

	// absEndpoint, set before the first request, makes the gateway turn the
	// relative URL of an HTTP+SSE endpoint event (MCP 2024-11-05) into an
	// absolute URL on the gateway's own host, as some gateways do.
	absEndpoint bool
	endpoints   atomic.Int64 // endpoint events made absolute so far
}

// A rewriter changes the ids of JSON-RPC messages and counts the changes.
type rewriter struct {
	change  idChange
	changes atomic.Int64  // ids changed so far
	changed chan struct{} // receives (without blocking) when an id was changed
}

func newRewriter(change idChange) *rewriter {
	return &rewriter{change: change, changed: make(chan struct{}, 1)}
}

func newGateway(t *testing.T, upstream string, change idChange, rec *recorder) *gateway {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	g := &gateway{rewriter: newRewriter(change), rec: rec}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // forward event streams as they arrive
	proxy.ModifyResponse = g.modifyResponse
	proxy.ErrorLog = nil
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.rec == nil {
			proxy.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		e := g.rec.begin(r, body)
		proxy.ServeHTTP(w, r.WithContext(withEntry(r.Context(), e)))
		g.rec.end(e)
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *gateway) modifyResponse(resp *http.Response) error {
	e := entryFrom(resp.Request.Context())
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		data = g.changeIDs(data)
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
		resp.Header.Set("Content-Length", strconv.Itoa(len(data)))
		g.rec.message(e, '<', data)
	case "text/event-stream":
		resp.Body = &eventRewriter{g: g, e: e, r: bufio.NewReader(resp.Body), c: resp.Body}
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	g.rec.respond(e, resp)
	return nil
}

// changeIDs changes the id of each message in data, a JSON-RPC message or
// batch. Other data is returned as it is.
func (g *rewriter) changeIDs(data []byte) []byte {
	var batch []json.RawMessage
	if err := json.Unmarshal(data, &batch); err == nil {
		out := []byte{'['}
		for i, m := range batch {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, g.changeID(m)...)
		}
		return append(out, ']')
	}
	return g.changeID(data)
}

// changeID changes the "id" member of one message, keeping member order.
func (g *rewriter) changeID(data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return data
	}
	out := []byte{'{'}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return data
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return data
		}
		if key == "id" {
			if nv := g.change(v); !bytes.Equal(nv, v) {
				v = nv
				g.changes.Add(1)
				select {
				case g.changed <- struct{}{}:
				default:
				}
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key)
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}')
}

// eventRewriter changes the ids in each data line of an event stream as the
// lines arrive. (The go-sdk server writes each message on one data line.)
type eventRewriter struct {
	g     *gateway
	e     *entry
	r     *bufio.Reader
	c     io.Closer
	buf   []byte
	err   error
	event string // the type of the event being read
}

func (w *eventRewriter) Read(p []byte) (int, error) {
	for len(w.buf) == 0 {
		if w.err != nil {
			return 0, w.err
		}
		line, err := w.r.ReadBytes('\n')
		w.err = err
		body := bytes.TrimRight(line, "\r\n")
		if rest, ok := bytes.CutPrefix(body, []byte("event:")); ok {
			w.event = string(bytes.TrimPrefix(rest, []byte(" ")))
		} else if len(body) == 0 {
			w.event = ""
		}
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data := bytes.TrimPrefix(bytes.TrimRight(rest, "\r\n"), []byte(" "))
			if w.event == "endpoint" && w.g.absEndpoint && bytes.HasPrefix(data, []byte("/")) {
				data = append([]byte(w.g.URL), data...)
				w.g.endpoints.Add(1)
			}
			data = w.g.changeIDs(data)
			w.g.rec.message(w.e, '<', data)
			line = append(append([]byte("data: "), data...), line[len(bytes.TrimRight(line, "\r\n")):]...)
		}
		w.buf = line
	}
	n := copy(p, w.buf)
	w.buf = w.buf[n:]
	return n, nil
}

func (w *eventRewriter) Close() error { return w.c.Close() }
