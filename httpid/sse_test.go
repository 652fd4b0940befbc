package httpid

import (
	"io"
	"math/rand"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/rpcid/rpcid/internal/restore"
)

// pendingTransport returns a Transport that has sent requests with the given
// JSON ids, on an exchange that is still open.
func pendingTransport(t testing.TB, max int, ids ...string) *Transport {
	t.Helper()
	tr := &Transport{MaxMessageSize: max}
	var reqs []string
	for _, id := range ids {
		reqs = append(reqs, `{"jsonrpc":"2.0","id":`+id+`,"method":"m"}`)
	}
	if _, err := tr.ids().Record([]byte("[" + strings.Join(reqs, ",") + "]")); err != nil {
		t.Fatal(err)
	}
	if tr.Len() != len(ids) {
		t.Fatalf("pendingTransport: %d ids pending, want %d", tr.Len(), len(ids))
	}
	return tr
}

// readStream reads stream through an eventBody, with reads shaped by wrap.
func readStream(t testing.TB, tr *Transport, stream string, wrap func(io.Reader) io.Reader) string {
	t.Helper()
	b := newEventBody(tr, io.NopCloser(wrap(strings.NewReader(stream))), nil, "", false)
	got, err := io.ReadAll(b)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return string(got)
}

// chunks returns a reader that returns at most n bytes per Read, n drawn at
// random between 1 and 7.
func chunks(seed int64) func(io.Reader) io.Reader {
	return func(r io.Reader) io.Reader {
		return &chunkReader{r: r, rnd: rand.New(rand.NewSource(seed))}
	}
}

type chunkReader struct {
	r   io.Reader
	rnd *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if n := 1 + c.rnd.Intn(7); len(p) > n {
		p = p[:n]
	}
	return c.r.Read(p)
}

var readShapes = map[string]func(io.Reader) io.Reader{
	"whole":    func(r io.Reader) io.Reader { return r },
	"one byte": iotest.OneByteReader,
	"half":     iotest.HalfReader,
	"random 1": chunks(1),
	"random 2": chunks(2),
	"data+EOF": iotest.DataErrReader,
}

// TestEventBodySplitReads checks that how the stream is cut into reads
// (events split across reads, CRLF split between CR and LF, a byte order mark
// split) never changes the result.
func TestEventBodySplitReads(t *testing.T) {
	ids := []string{`1`, `2`, `"x"`, `3`}
	tests := []struct {
		name, stream, want string
	}{
		{
			"mixed line endings",
			"data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\r\n\r\n: c\rdata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\r\ndata: \"result\":2}\r\rid: 5\ndata: [{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":0},{\"jsonrpc\":\"2.0\",\"id\":\"3\",\"result\":3}]\n\n",
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\r\n\r\n: c\rdata: {\"jsonrpc\":\"2.0\",\"id\":2,\r\ndata: \"result\":2}\r\rid: 5\ndata: [{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":0},{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":3}]\n\n",
		},
		{
			"byte order mark and CRLF",
			"\xef\xbb\xbfdata:{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\r\n\r\n",
			"\xef\xbb\xbfdata:{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\r\n\r\n",
		},
		{
			"byte order mark only at the start",
			"\xef\xbb\xbf\r\n\xef\xbb\xbfdata:{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\r\n\r\n",
			"\xef\xbb\xbf\r\n\xef\xbb\xbfdata:{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\r\n\r\n",
		},
		{
			"blank lines between events",
			"\n\n\r\n\rdata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\n\n\n\n",
			"\n\n\r\n\rdata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n\n\n",
		},
		{
			"id in the last of many data lines",
			"data: {\ndata: \"result\"\ndata: :\ndata: [1,\ndata: 2],\ndata: \"id\"\ndata: :\ndata: \"3\",\ndata: \"jsonrpc\":\"2.0\"}\n\n",
			"data: {\ndata: \"result\"\ndata: :\ndata: [1,\ndata: 2],\ndata: \"id\"\ndata: :\ndata: 3,\ndata: \"jsonrpc\":\"2.0\"}\n\n",
		},
		{
			// go-sdk and mcp-go deliver the event a stream ends in.
			"no terminator at the end",
			"data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}",
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}",
		},
	}
	for _, tt := range tests {
		for shape, wrap := range readShapes {
			t.Run(tt.name+"/"+shape, func(t *testing.T) {
				got := readStream(t, pendingTransport(t, 0, ids...), tt.stream, wrap)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestEventBodyOverflow checks events longer than MaxMessageSize: they pass
// unchanged, the stream goes on, and memory stays bounded.
func TestEventBodyOverflow(t *testing.T) {
	long := strings.Repeat("a", 200)
	tests := []struct {
		name, stream, want string
	}{
		{
			"long data line",
			"data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":\"" + long + "\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\n\n",
			"data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":\"" + long + "\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n",
		},
		{
			"many short data lines",
			strings.Repeat("data: 1\n", 40) + "\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\n\n",
			strings.Repeat("data: 1\n", 40) + "\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n",
		},
		{
			"long comment before data",
			": " + long + "\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\n\n",
			": " + long + "\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n",
		},
		{
			"long line without end",
			"data: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\n\n" + "data: " + long + long,
			"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n" + "data: " + long + long,
		},
	}
	for _, tt := range tests {
		for shape, wrap := range readShapes {
			t.Run(tt.name+"/"+shape, func(t *testing.T) {
				got := readStream(t, pendingTransport(t, 100, `1`, `2`), tt.stream, wrap)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestEventBodyBoundedMemory streams an 8 MiB line and an 8 MiB event of
// short lines with a 4 KiB limit and checks what the eventBody holds.
func TestEventBodyBoundedMemory(t *testing.T) {
	const size = 8 << 20
	for name, r := range map[string]io.Reader{
		"one line":    io.MultiReader(strings.NewReader("data: "), &repeatReader{'a', size}),
		"short lines": io.MultiReader(strings.NewReader("data: "), &repeatReader{'\n', size}),
		"comments":    &repeatReader{':', size},
	} {
		t.Run(name, func(t *testing.T) {
			tr := pendingTransport(t, 4<<10, `1`)
			b := newEventBody(tr, io.NopCloser(r), nil, "", false)
			buf := make([]byte, 32<<10)
			total := 0
			for {
				n, err := b.Read(buf)
				total += n
				if held := cap(b.held) + cap(b.line) + cap(b.Out) + cap(b.join); held > 256<<10 {
					t.Fatalf("after %d bytes the eventBody holds %d bytes", total, held)
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if total < size {
				t.Errorf("read %d bytes, want at least %d", total, size)
			}
		})
	}
}

type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	p = p[:min(len(p), r.n)]
	for i := range p {
		p[i] = r.b
	}
	r.n -= len(p)
	return len(p), nil
}

// TestEventBodyReadError checks that a stream error reaches the caller after
// the bytes that arrived, and ends the exchange.
func TestEventBodyReadError(t *testing.T) {
	tr := pendingTransport(t, 0)
	ex, err := tr.ids().Record([]byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	r := io.MultiReader(strings.NewReader("data: {\"jsonrpc\":\"2.0\",\"id\":\"1\""), iotest.ErrReader(io.ErrUnexpectedEOF))
	b := newEventBody(tr, io.NopCloser(r), ex, "", false)
	got, err := io.ReadAll(b)
	if err != io.ErrUnexpectedEOF {
		t.Errorf("error = %v, want %v", err, io.ErrUnexpectedEOF)
	}
	if string(got) != "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\"" {
		t.Errorf("read %q before the error", got)
	}
	// Released as not failed: the id stays as an orphan, and a second
	// release, even as failed, changes nothing.
	tr.ids().Release(ex, true)
	if tr.Len() != 1 {
		t.Errorf("%d ids remembered after the stream ended, want 1 orphan", tr.Len())
	}
}

// FuzzEventBody checks, for any stream: no panic; with no ids pending the
// stream passes unchanged; how the stream is split into reads never changes
// the result; and the stream's structure never changes.
func FuzzEventBody(f *testing.F) {
	f.Add("data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n", int64(1))
	f.Add("data: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\r\ndata:\"result\":1}\r\n\r\n", int64(2))
	f.Add(": x\rdata: [{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{}},{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}]\r\r", int64(3))
	f.Add("\xef\xbb\xbfevent: message\ndata:{\"result\":null,\"id\":\"\\u0061\",\"jsonrpc\":\"2.0\"}\n\n", int64(4))
	// A mark within an event's data, which is not skipped.
	f.Add("data: \xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n\xef\xbb\xbfdata: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":1}\n\n", int64(5))
	f.Fuzz(func(t *testing.T, stream string, seed int64) {
		if got := readStream(t, &Transport{}, stream, chunks(seed)); got != stream {
			t.Fatalf("with nothing pending: got %q, want %q", got, stream)
		}
		ids := []string{`1`, `"2"`, `"a"`}
		whole := readStream(t, pendingTransport(t, 64, ids...), stream, func(r io.Reader) io.Reader { return r })
		split := readStream(t, pendingTransport(t, 64, ids...), stream, chunks(seed))
		if whole != split {
			t.Fatalf("split reads changed the result:\nwhole %q\nsplit %q", whole, split)
		}
		// Only id values change, and none of the ids pending or Equal to them
		// contains any of these bytes: the structure of the stream is kept.
		for _, c := range "\r\n:{}[]," {
			if a, b := strings.Count(stream, string(c)), strings.Count(whole, string(c)); a != b {
				t.Fatalf("%q count changed from %d to %d:\nin  %q\nout %q", c, a, b, stream, whole)
			}
		}
	})
}

// TestTransportTable checks the hook rpcid proxy uses to log what a
// Transport restores.
func TestTransportTable(t *testing.T) {
	tr := &Transport{MaxPending: 7}
	tb := restore.TransportTable(tr)
	if tb == nil || tb != tr.ids() || tb.MaxPending != 7 {
		t.Fatalf("TransportTable(tr) = %p, want tr's table %p with MaxPending 7", tb, tr.ids())
	}
	if restore.TransportTable(http.DefaultTransport) != nil {
		t.Errorf("TransportTable of another RoundTripper is not nil")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestUnmatchedWhileIdle checks that a response id arriving while no id is
// remembered still reaches OnUnmatched (rpcid proxy -v names it), in every
// kind of body that is examined.
func TestUnmatchedWhileIdle(t *testing.T) {
	for _, tt := range []struct{ ctype, body string }{
		{"application/json", `{"jsonrpc":"2.0","id":"99","result":1}`},
		{"text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":\"99\",\"result\":1}\n\n"},
		{"application/x-ndjson", "{\"jsonrpc\":\"2.0\",\"id\":\"99\",\"result\":1}\n"},
	} {
		var got []string
		tr := &Transport{Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {tt.ctype}},
				Body: io.NopCloser(strings.NewReader(tt.body)), ContentLength: int64(len(tt.body)), Request: r}, nil
		})}
		restore.TransportTable(tr).OnUnmatched = func(rcv []byte) { got = append(got, string(rcv)) }
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/mcp", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != tt.body {
			t.Errorf("%s: body changed to %q", tt.ctype, body)
		}
		if len(got) != 1 || got[0] != `"99"` {
			t.Errorf("%s: OnUnmatched calls %q, want [\"99\"]", tt.ctype, got)
		}
	}
}
