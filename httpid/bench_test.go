package httpid_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcid/rpcid/httpid"
	"github.com/rpcid/rpcid/internal/testenv"
)

// memTransport is an in-memory server behind a gateway that turns numeric
// ids into strings: it reads the request body as a server would and answers
// with a fixed body of its Content-Type.
type memTransport struct {
	ctype string
	body  []byte
	// length is the Content-Length sent: len(body), or -1 for a stream.
	length int64
}

func (m *memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	h := http.Header{"Content-Type": {m.ctype}}
	if m.length >= 0 {
		h["Content-Length"] = []string{strconv.FormatInt(m.length, 10)}
	}
	return &http.Response{
		Status: "200 OK", StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, ContentLength: m.length, Body: io.NopCloser(bytes.NewReader(m.body)), Request: req,
	}, nil
}

// mcpResponse is a tools/call response of about size bytes whose id is the
// string "42", as the gateway writes it for a request sent with id 42.
func mcpResponse(size int) []byte {
	head := `{"jsonrpc":"2.0","id":"42","result":{"content":[{"type":"text","text":`
	tail := `}],"isError":false}}`
	line := "The quick brown fox jumps over the lazy dog, and \"quotes\" it.\n"
	text := strings.Repeat(line, size/len(line)+1)
	for {
		b, _ := json.Marshal(text)
		if msg := head + string(b) + tail; len(msg) <= size {
			return []byte(msg)
		}
		text = text[:len(text)-1]
	}
}

const benchRequest = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"read","arguments":{"path":"/etc/motd"}}}`

// BenchmarkExchange measures one POST and its response through the same
// in-memory RoundTripper, bare and wrapped in an httpid.Transport, which
// restores the id. Compare with
//
//	benchstat -col /impl bench.txt
func BenchmarkExchange(b *testing.B) {
	msg := mcpResponse(1024)
	var events bytes.Buffer
	for i := 0; i < 100; i++ {
		events.WriteString("event: message\ndata: ")
		events.Write(msg)
		events.WriteString("\n\n")
	}
	bodies := []struct {
		name string
		base *memTransport
	}{
		{"1KB-json", &memTransport{ctype: "application/json", body: msg, length: int64(len(msg))}},
		{"1KB-json-chunked", &memTransport{ctype: "application/json", body: msg, length: -1}},
		{"1KB-event", &memTransport{ctype: "text/event-stream", body: []byte("event: message\ndata: " + string(msg) + "\n\n"), length: -1}},
		{"100x1KB-events", &memTransport{ctype: "text/event-stream", body: events.Bytes(), length: -1}},
	}
	for _, body := range bodies {
		for _, impl := range []string{"bare", "httpid"} {
			b.Run("body="+body.name+"/impl="+impl, func(b *testing.B) {
				var rt http.RoundTripper = body.base
				if impl == "httpid" {
					rt = &httpid.Transport{Base: body.base}
				}
				var buf bytes.Buffer
				buf.Grow(len(body.base.body) + 64)
				reqBody := []byte(benchRequest)
				b.SetBytes(int64(len(body.base.body)))
				b.ReportAllocs()
				start := testenv.ProcessCPU()
				for i := 0; i < b.N; i++ {
					req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(reqBody))
					if err != nil {
						b.Fatal(err)
					}
					req.Header.Set("Content-Type", "application/json")
					resp, err := rt.RoundTrip(req)
					if err != nil {
						b.Fatal(err)
					}
					buf.Reset()
					if _, err := buf.ReadFrom(resp.Body); err != nil {
						b.Fatal(err)
					}
					resp.Body.Close()
					if impl == "httpid" && !bytes.Contains(buf.Bytes()[:60], []byte(`"id":42,`)) {
						b.Fatalf("id not restored: %.60s", buf.Bytes())
					}
				}
				if start >= 0 {
					// Process CPU time beside wall time: on a shared
					// machine, waiting for a CPU inflates ns/op only.
					b.ReportMetric(float64(testenv.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// TestExchangeAllocs checks that a 1 KB exchange through httpid.Transport,
// which restores the id, costs at most 3 allocations more than the same
// exchange without it (at most 6), for each kind of body
// that is examined: the copy of the request, which holds its body (and the
// response body, if that is read in full); the record of the id; and, for
// an application/json body of known length, the restored body's
// Content-Length value, or for a streamed body, the body that restores it.
// Buffers come from pools once their bytes have been read: the one an
// application/json body is read into, a streamed body's output and the
// event an event-stream body holds.
func TestExchangeAllocs(t *testing.T) {
	if testenv.RaceEnabled {
		t.Skip("allocations are not counted under the race detector, where sync.Pool drops buffers at random; go test without -race counts them")
	}
	msg := mcpResponse(1024)
	for _, body := range []struct {
		name string
		base *memTransport
	}{
		{"1KB-json", &memTransport{ctype: "application/json", body: msg, length: int64(len(msg))}},
		{"1KB-json-chunked", &memTransport{ctype: "application/json", body: msg, length: -1}},
		{"1KB-event", &memTransport{ctype: "text/event-stream", body: []byte("event: message\ndata: " + string(msg) + "\n\n"), length: -1}},
		{"1KB-ndjson", &memTransport{ctype: "application/x-ndjson", body: append(msg, '\n'), length: -1}},
	} {
		var buf bytes.Buffer
		buf.Grow(2048)
		exchange := func(rt http.RoundTripper) func() {
			return func() {
				req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(benchRequest))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				// As an MCP client sends it after initialize: the
				// session scopes the matching at no cost.
				req.Header.Set("Mcp-Session-Id", "4f9c1e2a7b3d4c5e8f6a0b1c2d3e4f50")
				resp, err := rt.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				buf.Reset()
				buf.ReadFrom(resp.Body)
				resp.Body.Close()
			}
		}
		bare := testing.AllocsPerRun(100, exchange(body.base))
		tr := &httpid.Transport{Base: body.base}
		with := testing.AllocsPerRun(100, exchange(tr))
		if !bytes.Contains(buf.Bytes(), []byte(`"id":42,`)) {
			t.Fatalf("%s: id not restored: %.60s", body.name, buf.Bytes())
		}
		t.Logf("%s: %v allocations without httpid, %v with it", body.name, bare, with)
		if with-bare > 3 {
			t.Errorf("%s: an exchange allocates %v times through httpid, %v times without: %v more, want at most 3", body.name, with, bare, with-bare)
		}
	}
}
