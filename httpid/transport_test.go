package httpid_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rpcid/rpcid/httpid"
)

// wait bounds every wait in these tests.
const wait = 10 * time.Second

// newServer starts a test server on 127.0.0.1, closed when the test ends.
func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func newClient(tr *httpid.Transport) *http.Client {
	return &http.Client{Transport: tr, Timeout: wait}
}

// post sends body as application/json and returns the response with its body
// read and closed.
func post(t *testing.T, c *http.Client, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading response to %s: %v", body, err)
	}
	return resp, string(b)
}

func TestTransportJSON(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name     string
		req      string // request body sent
		ctype    string // response Content-Type; "" means application/json
		status   int    // response status; 0 means 200
		chunked  bool   // response without Content-Length
		resp     string // response body the server sends
		want     string // response body the client must read
		wantLeft int    // ids still remembered afterwards
	}{
		{
			name: "number turned into string",
			req:  `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
			resp: `{"jsonrpc":"2.0","id":"1","result":{}}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{}}`,
		},
		{
			name: "string turned into number",
			req:  `{"jsonrpc":"2.0","id":"42","method":"m"}`,
			resp: `{"jsonrpc":"2.0","id":42,"result":{}}`,
			want: `{"jsonrpc":"2.0","id":"42","result":{}}`,
		},
		{
			name: "unchanged id counts as the answer",
			req:  `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			resp: `{"jsonrpc":"2.0","id":1,"result":{}}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{}}`,
		},
		{
			name: "only the id bytes change",
			req:  `{"jsonrpc":"2.0","id":3,"method":"m"}`,
			resp: "{ \"result\" : {\"id\":\"3\", \"n\": 1.50e0},\n\t\"id\" :  \"3\"  , \"jsonrpc\":\"2.0\" }\n",
			want: "{ \"result\" : {\"id\":\"3\", \"n\": 1.50e0},\n\t\"id\" :  3  , \"jsonrpc\":\"2.0\" }\n",
		},
		{
			name: "spelling of the number is restored",
			req:  `{"jsonrpc":"2.0","id":-0,"method":"m"}`,
			resp: `{"jsonrpc":"2.0","id":"0","result":{}}`,
			want: `{"jsonrpc":"2.0","id":-0,"result":{}}`,
		},
		{
			name: "equal number spelled differently",
			req:  `{"jsonrpc":"2.0","id":10,"method":"m"}`,
			resp: `{"jsonrpc":"2.0","id":1e1,"result":{}}`,
			want: `{"jsonrpc":"2.0","id":10,"result":{}}`,
		},
		{
			name: "escaped string",
			req:  `{"jsonrpc":"2.0","id":"ab","method":"m"}`,
			resp: `{"jsonrpc":"2.0","id":"a\u0062","result":{}}`,
			want: `{"jsonrpc":"2.0","id":"ab","result":{}}`,
		},
		{
			name: "largest int64",
			req:  `{"jsonrpc":"2.0","id":9223372036854775807,"method":"m"}`,
			resp: `{"jsonrpc":"2.0","id":"9223372036854775807","result":{}}`,
			want: `{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}`,
		},
		{
			name:     "leading zero is not the sent id",
			req:      `{"jsonrpc":"2.0","id":2,"method":"m"}`,
			resp:     `{"jsonrpc":"2.0","id":"02","result":{}}`,
			want:     `{"jsonrpc":"2.0","id":"02","result":{}}`,
			wantLeft: 1,
		},
		{
			name:     "string never equals a fraction",
			req:      `{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
			resp:     `{"jsonrpc":"2.0","id":"1.5","result":{}}`,
			want:     `{"jsonrpc":"2.0","id":"1.5","result":{}}`,
			wantLeft: 1,
		},
		{
			name:     "id never sent",
			req:      `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			resp:     `{"jsonrpc":"2.0","id":"abc","result":{}}`,
			want:     `{"jsonrpc":"2.0","id":"abc","result":{}}`,
			wantLeft: 1,
		},
		{
			name:     "null id",
			req:      `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			resp:     `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
			want:     `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
			wantLeft: 1,
		},
		{
			name: "batch in another order",
			req:  `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"x","method":"b"},{"jsonrpc":"2.0","id":2,"method":"c"}]`,
			resp: `[{"jsonrpc":"2.0","id":"2","result":2},{"jsonrpc":"2.0","id":"x","result":"x"},{"jsonrpc":"2.0","id":"1","error":{"code":1,"message":"m"}}]`,
			want: `[{"jsonrpc":"2.0","id":2,"result":2},{"jsonrpc":"2.0","id":"x","result":"x"},{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}]`,
		},
		{
			name:     "server request with an equal id is not a response",
			req:      `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			resp:     `{"jsonrpc":"2.0","id":"1","method":"ping"}`,
			want:     `{"jsonrpc":"2.0","id":"1","method":"ping"}`,
			wantLeft: 1,
		},
		{
			name:     "two id members",
			req:      `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			resp:     `{"jsonrpc":"2.0","id":"1","id":"1","result":{}}`,
			want:     `{"jsonrpc":"2.0","id":"1","id":"1","result":{}}`,
			wantLeft: 1,
		},
		{
			name:     "malformed JSON",
			req:      `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			resp:     `{"jsonrpc":"2.0","id":"1","result":{}`,
			want:     `{"jsonrpc":"2.0","id":"1","result":{}`,
			wantLeft: 1,
		},
		{
			name:     "trailing garbage",
			req:      `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			resp:     `{"jsonrpc":"2.0","id":"1","result":{}}]`,
			want:     `{"jsonrpc":"2.0","id":"1","result":{}}]`,
			wantLeft: 1,
		},
		{
			name:     "not JSON content type",
			req:      `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			ctype:    "text/plain",
			resp:     `{"jsonrpc":"2.0","id":"1","result":{}}`,
			want:     `{"jsonrpc":"2.0","id":"1","result":{}}`,
			wantLeft: 1,
		},
		{
			name:  "content type with parameters",
			req:   `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			ctype: "Application/JSON; charset=utf-8",
			resp:  `{"jsonrpc":"2.0","id":"1","result":{}}`,
			want:  `{"jsonrpc":"2.0","id":1,"result":{}}`,
		},
		{
			name:  "JSON suffix type",
			req:   `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			ctype: "application/vnd.example+json",
			resp:  `{"jsonrpc":"2.0","id":"1","result":{}}`,
			want:  `{"jsonrpc":"2.0","id":1,"result":{}}`,
		},
		{
			name:    "chunked",
			req:     `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			chunked: true,
			resp:    `{"jsonrpc":"2.0","id":"1","result":{}}`,
			want:    `{"jsonrpc":"2.0","id":1,"result":{}}`,
		},
		{
			name:   "error status",
			req:    `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			status: http.StatusBadRequest,
			resp:   `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"bad"}}`,
			want:   `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}`,
		},
		{
			name:   "error status without the response forgets the id",
			req:    `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			status: http.StatusInternalServerError,
			ctype:  "text/plain",
			resp:   "internal error\n",
			want:   "internal error\n",
		},
		{
			name:    "large result",
			req:     `{"jsonrpc":"2.0","id":1,"method":"m"}`,
			chunked: true,
			resp:    `{"jsonrpc":"2.0","result":"` + big + `","id":"1"}`,
			want:    `{"jsonrpc":"2.0","result":"` + big + `","id":1}`,
		},
		{
			name:     "notification only",
			req:      `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			resp:     `{"jsonrpc":"2.0","id":"1","result":{}}`,
			want:     `{"jsonrpc":"2.0","id":"1","result":{}}`,
			wantLeft: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				ctype := tt.ctype
				if ctype == "" {
					ctype = "application/json"
				}
				w.Header().Set("Content-Type", ctype)
				if tt.status != 0 {
					w.WriteHeader(tt.status)
				}
				if tt.chunked {
					w.(http.Flusher).Flush()
				}
				io.WriteString(w, tt.resp)
			})
			tr := &httpid.Transport{}
			resp, got := post(t, newClient(tr), s.URL, tt.req)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			wantCL := int64(len(tt.want))
			if tt.chunked {
				wantCL = -1
			}
			if resp.ContentLength != wantCL {
				t.Errorf("ContentLength = %d, want %d", resp.ContentLength, wantCL)
			}
			if h := resp.Header.Get("Content-Length"); !tt.chunked && h != strconv.Itoa(len(tt.want)) {
				t.Errorf("Content-Length header = %q, want %d", h, len(tt.want))
			}
			if n := tr.Len(); n != tt.wantLeft {
				t.Errorf("Len() = %d after the exchange, want %d", n, tt.wantLeft)
			}
		})
	}
}

// TestTransportRequestUnchanged checks that the server receives exactly the
// request the client sent, and that RoundTrip leaves the caller's request
// alone.
func TestTransportRequestUnchanged(t *testing.T) {
	bodies := []struct {
		name, ctype, body string
	}{
		{"request", "application/json", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"id":"x"}}`},
		{"batch", "application/json", "[ {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"m\"},\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"} ]"},
		{"no content type", "", `{"jsonrpc":"2.0","id":1,"method":"m"}`},
		{"not JSON", "application/json", "\x00\xff{{{"},
		{"form", "application/x-www-form-urlencoded", "id=1&method=m"},
		{"empty", "application/json", ""},
	}
	for _, b := range bodies {
		t.Run(b.name, func(t *testing.T) {
			got := make(chan string, 1)
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				data, _ := io.ReadAll(r.Body)
				got <- string(data)
				w.WriteHeader(http.StatusAccepted)
			})
			tr := &httpid.Transport{}
			req, err := http.NewRequest(http.MethodPost, s.URL, strings.NewReader(b.body))
			if err != nil {
				t.Fatal(err)
			}
			if b.ctype != "" {
				req.Header.Set("Content-Type", b.ctype)
			}
			header := req.Header.Clone()
			body := req.Body
			resp, err := newClient(tr).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if diff := cmp.Diff(b.body, <-got); diff != "" {
				t.Errorf("server received (-sent +received):\n%s", diff)
			}
			if req.Body != body || !cmp.Equal(header, req.Header) {
				t.Errorf("RoundTrip modified the caller's request")
			}
		})
	}
}

// TestTransportRedirectResendsBody checks that the body read by the Transport
// can be sent again (GetBody) when a 307 redirect repeats the POST.
func TestTransportRedirectResendsBody(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":5,"method":"m"}`
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		if string(data) != body {
			http.Error(w, "body "+string(data), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"5","result":{}}`)
	})
	s := newServer(t, mux.ServeHTTP)
	tr := &httpid.Transport{}
	_, got := post(t, newClient(tr), s.URL+"/old", body)
	if want := `{"jsonrpc":"2.0","id":5,"result":{}}`; got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
	if n := tr.Len(); n != 0 {
		t.Errorf("Len() = %d, want 0", n)
	}
}

func TestTransportGzip(t *testing.T) {
	const req = `{"jsonrpc":"2.0","id":1,"method":"m"}`
	const resp = `{"jsonrpc":"2.0","id":"1","result":{}}`
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, resp)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, resp)
		zw.Close()
	})

	t.Run("decoded by http.Transport", func(t *testing.T) {
		tr := &httpid.Transport{}
		r, got := post(t, newClient(tr), s.URL, req)
		if !r.Uncompressed {
			t.Fatalf("http.Transport did not decompress the body")
		}
		if want := `{"jsonrpc":"2.0","id":1,"result":{}}`; got != want {
			t.Errorf("body = %s, want %s", got, want)
		}
	})

	t.Run("asked for by the caller", func(t *testing.T) {
		tr := &httpid.Transport{}
		hr, err := http.NewRequest(http.MethodPost, s.URL, strings.NewReader(req))
		if err != nil {
			t.Fatal(err)
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept-Encoding", "gzip")
		r, err := newClient(tr).Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		// Encoded bodies pass unexamined: the id is not restored.
		if string(got) != resp {
			t.Errorf("body = %s, want %s unchanged", got, resp)
		}
		r.Body.Close()
		if n := tr.Len(); n != 1 {
			t.Errorf("Len() = %d, want 1 (kept for another stream)", n)
		}
	})
}

// TestTransportLargeBodies checks that bodies over MaxMessageSize pass
// through unexamined and unchanged.
func TestTransportLargeBodies(t *testing.T) {
	pad := strings.Repeat(" ", 100)
	t.Run("response", func(t *testing.T) {
		resp := `{"jsonrpc":"2.0","id":"1","result":{}}` + pad
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, resp)
		})
		tr := &httpid.Transport{MaxMessageSize: 100}
		_, got := post(t, newClient(tr), s.URL, `{"jsonrpc":"2.0","id":1,"method":"m"}`)
		if got != resp {
			t.Errorf("body = %q, want %q unchanged", got, resp)
		}
		if n := tr.Len(); n != 1 {
			t.Errorf("Len() = %d, want 1", n)
		}
	})
	t.Run("request", func(t *testing.T) {
		req := `{"jsonrpc":"2.0","id":1,"method":"m"}` + pad
		got := make(chan string, 1)
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			data, _ := io.ReadAll(r.Body)
			got <- string(data)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
		})
		tr := &httpid.Transport{MaxMessageSize: 100}
		_, body := post(t, newClient(tr), s.URL, req)
		if r := <-got; r != req {
			t.Errorf("server received %q, want %q", r, req)
		}
		if want := `{"jsonrpc":"2.0","id":"1","result":{}}`; body != want {
			t.Errorf("body = %s, want %s (request too long to record)", body, want)
		}
		if n := tr.Len(); n != 0 {
			t.Errorf("Len() = %d, want 0", n)
		}
	})
}

// TestTransportAcceptedThenStream checks the shared table: a request answered
// with 202 Accepted has its response restored when it arrives on another
// stream (as in the MCP standalone stream and the 2024-11-05 HTTP+SSE
// transport).
func TestTransportAcceptedThenStream(t *testing.T) {
	events := make(chan string, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusAccepted)
		events <- "data: {\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}\n\n"
	})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		select {
		case e := <-events:
			io.WriteString(w, e)
		case <-time.After(wait):
		}
	})
	s := newServer(t, mux.ServeHTTP)
	tr := &httpid.Transport{}
	c := newClient(tr)

	stream, err := c.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	resp, body := post(t, c, s.URL, `{"jsonrpc":"2.0","id":7,"method":"m"}`)
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Fatalf("POST: %d %q, want 202 and no body", resp.StatusCode, body)
	}
	if n := tr.Len(); n != 1 {
		t.Errorf("Len() = %d after 202, want 1", n)
	}
	got, err := io.ReadAll(stream.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n"; string(got) != want {
		t.Errorf("stream = %q, want %q", got, want)
	}
	if n := tr.Len(); n != 0 {
		t.Errorf("Len() = %d after the response, want 0", n)
	}
}

// TestTransportSSE runs event streams through a real server and checks the
// bytes the client reads.
func TestTransportSSE(t *testing.T) {
	const req = `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`
	tests := []struct {
		name     string
		stream   string
		want     string
		wantLeft int
	}{
		{
			name:   "LF",
			stream: "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":{}}\n\n",
			want:   "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n",
		},
		{
			name:   "CRLF with event and id fields",
			stream: "event: message\r\nid: 9\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\r\n\r\nretry: 10\r\ndata:[{\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}]\r\n\r\n",
			want:   "event: message\r\nid: 9\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\r\n\r\nretry: 10\r\ndata:[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}]\r\n\r\n",
		},
		{
			name:   "CR",
			stream: "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\r\rdata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\r\r",
			want:   "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\r\rdata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\r\r",
		},
		{
			name:   "multi-line data",
			stream: "data: {\"jsonrpc\":\"2.0\",\ndata:  \"result\":{\"a\":\n: a comment inside\ndata: 1},\ndata: \"id\":\"1\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\ndata: \"result\":2}\n\n",
			want:   "data: {\"jsonrpc\":\"2.0\",\ndata:  \"result\":{\"a\":\n: a comment inside\ndata: 1},\ndata: \"id\":1}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\ndata: \"result\":2}\n\n",
		},
		{
			name:     "comments and keepalives",
			stream:   ": ping\n\n:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n: ping\n\n",
			want:     ": ping\n\n:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\n: ping\n\n",
			wantLeft: 1,
		},
		{
			name:     "byte order mark",
			stream:   "\xef\xbb\xbfdata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n",
			want:     "\xef\xbb\xbfdata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\n",
			wantLeft: 1,
		},
		{
			name:     "other event type",
			stream:   "event: other\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\n\n",
			want:     "event: other\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n",
			wantLeft: 1,
		},
		{
			name:     "event type after data",
			stream:   "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\nevent: other\n\n",
			want:     "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\nevent: other\n\n",
			wantLeft: 2,
		},
		{
			name:     "non-JSON data",
			stream:   "data: hello \"id\":\"1\"\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\"\n\n",
			want:     "data: hello \"id\":\"1\"\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\"\n\n",
			wantLeft: 2,
		},
		{
			name:     "data field without colon",
			stream:   "data\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n",
			want:     "data\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\n", // the data is "\n{...}", JSON
			wantLeft: 1,
		},
		{
			name:     "Data is not data",
			stream:   "Data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n",
			want:     "Data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n",
			wantLeft: 2,
		},
		{
			// The SSE standard discards an event the stream ends in, but
			// go-sdk and mcp-go deliver it: restored.
			name:     "incomplete last event",
			stream:   "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n",
			want:     "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n",
			wantLeft: 1,
		},
		{
			name:     "incomplete last line",
			stream:   "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}",
			want:     "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}",
			wantLeft: 1,
		},
		{
			// go-sdk and mcp-go compare the type without spaces around it.
			name:     "type with spaces",
			stream:   "event:  message \ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n",
			want:     "event:  message \ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\n",
			wantLeft: 1,
		},
		{
			name:     "other type",
			stream:   "event: messages\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n",
			want:     "event: messages\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n",
			wantLeft: 2,
		},
		{
			name:     "server request between responses",
			stream:   "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"sampling/createMessage\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\n\n",
			want:     "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"sampling/createMessage\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n",
			wantLeft: 1,
		},
		{
			name:     "empty stream",
			stream:   "",
			want:     "",
			wantLeft: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tt.stream)
			})
			tr := &httpid.Transport{}
			resp, got := post(t, newClient(tr), s.URL, req)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stream (-want +got):\n%s", diff)
			}
			if tt.stream != "" && (resp.ContentLength != -1 || resp.Header.Get("Content-Length") != "") {
				t.Errorf("ContentLength = %d, header %q; want -1 and none", resp.ContentLength, resp.Header.Get("Content-Length"))
			}
			if n := tr.Len(); n != tt.wantLeft {
				t.Errorf("Len() = %d, want %d", n, tt.wantLeft)
			}
		})
	}
}

// TestTransportSSEStreams checks that events are passed on as they arrive:
// the server sends the second event only after the client has read the first.
func TestTransportSSEStreams(t *testing.T) {
	read := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": hello\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-read:
		case <-time.After(wait):
			return
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"2\",\"result\":2}\n\n")
	})
	tr := &httpid.Transport{}
	resp, err := newClient(tr).Post(s.URL, "application/json",
		strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	want := ": hello\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(resp.Body, got); err != nil {
		t.Fatalf("reading the first event: %v (read %q)", err, got)
	}
	if string(got) != want {
		t.Errorf("first event = %q, want %q", got, want)
	}
	close(read)
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":2}\n\n"; string(rest) != want {
		t.Errorf("second event = %q, want %q", rest, want)
	}
}

// TestTransportSSEClosedEarly checks that an event stream closed before the
// response keeps the id for another stream, within MaxPending.
func TestTransportSSEClosedEarly(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": waiting\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(wait):
		}
	})
	tr := &httpid.Transport{MaxPending: 2}
	c := newClient(tr)
	for i := range 3 {
		resp, err := c.Post(s.URL, "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m"}`, i)))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if n := tr.Len(); n != min(i+1, 2) {
			t.Errorf("request %d: Len() = %d while its stream is open, want %d", i, n, min(i+1, 2))
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp.Body.Close()
		if n := tr.Len(); n != min(i+1, 2) {
			t.Errorf("request %d: Len() = %d after Close, want %d", i, n, min(i+1, 2))
		}
	}
}

// TestTransportMaxPending checks the cap on requests in flight.
func TestTransportMaxPending(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var seen []string
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, string(data))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(wait):
		}
	})
	tr := &httpid.Transport{MaxPending: 3}
	c := newClient(tr)
	var open []*http.Response
	defer func() {
		close(release)
		for _, r := range open {
			r.Body.Close()
		}
	}()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"m"},{"jsonrpc":"2.0","id":3,"method":"m"}]`,
	} {
		resp, err := c.Post(s.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, resp)
	}
	if n := tr.Len(); n != 3 {
		t.Fatalf("Len() = %d, want 3", n)
	}
	_, err := c.Post(s.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"m"}`))
	if !errors.Is(err, httpid.ErrTooManyPending) {
		t.Errorf("fourth request: error %v, want ErrTooManyPending", err)
	}
	// A notification records nothing and is sent.
	resp, err := c.Post(s.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"n"}`))
	if err != nil {
		t.Errorf("notification: %v", err)
	} else {
		open = append(open, resp)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, b := range seen {
		if strings.Contains(b, `"id":4`) {
			t.Errorf("the refused request reached the server")
		}
	}
	if len(seen) != 3 {
		t.Errorf("server saw %d requests, want 3", len(seen))
	}
}

// failingTransport fails every request, after consuming its body.
type failingTransport struct{ bodies chan string }

var errNetwork = errors.New("network down")

func (f failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	data, _ := io.ReadAll(req.Body)
	req.Body.Close()
	f.bodies <- string(data)
	return nil, errNetwork
}

func TestTransportBaseError(t *testing.T) {
	base := failingTransport{make(chan string, 1)}
	tr := &httpid.Transport{Base: base}
	const body = `{"jsonrpc":"2.0","id":1,"method":"m"}`
	_, err := newClient(tr).Post("http://127.0.0.1:1/", "application/json", strings.NewReader(body))
	if !errors.Is(err, errNetwork) {
		t.Errorf("error = %v, want the base transport's error", err)
	}
	if got := <-base.bodies; got != body {
		t.Errorf("base received %q, want %q", got, body)
	}
	if n := tr.Len(); n != 0 {
		t.Errorf("Len() = %d after a failed exchange, want 0", n)
	}
}

// errBody fails when read.
type errBody struct{ closed bool }

func (b *errBody) Read([]byte) (int, error) { return 0, errNetwork }
func (b *errBody) Close() error             { b.closed = true; return nil }

func TestTransportRequestBodyError(t *testing.T) {
	tr := &httpid.Transport{Base: failingTransport{make(chan string, 1)}}
	body := &errBody{}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", body)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.RoundTrip(req)
	if !errors.Is(err, errNetwork) {
		t.Errorf("error = %v, want the body's error", err)
	}
	if !body.closed {
		t.Errorf("request body not closed")
	}
}

// TestTransportAmbiguous checks requests in flight at once whose ids are
// Equal but spelled differently, answered on a stream of neither (a GET
// without a session): their responses cannot be told apart. (Answered in
// their own POSTs' bodies, they can: TestTransportOwnExchange.)
func TestTransportAmbiguous(t *testing.T) {
	url, held := holdingServer(t, "event-stream")
	tr := &httpid.Transport{}
	c := newClient(tr)
	posts := []<-chan string{sendAsync(c, url, req(`1`, "A"), ""), sendAsync(c, url, req(`"1"`, "B"), "")}
	hs := arrive(t, held, "A", "B")
	stream := sendAsync(c, url, "", "")
	get := arrive(t, held, "GET")["GET"]
	// The first response cannot be told apart: it passes unchanged. The
	// second is spelled exactly as one request was sent: it answers that one.
	get.answer <- []string{res(`1.0`), res(`"1"`)}
	if got, want := unwrap("event-stream", result(t, stream)), []string{res(`1.0`), res(`"1"`)}; !cmp.Equal(got, want) {
		t.Errorf("GET stream read %q, want %q", got, want)
	}
	if n := tr.Len(); n != 1 {
		t.Errorf("Len() = %d after an ambiguous and an exact response, want 1", n)
	}
	for _, k := range []string{"A", "B"} {
		hs[k].answer <- nil
	}
	for _, p := range posts {
		result(t, p)
	}
}

// TestTransportConcurrent sends many requests at once through one
// Transport; run it with -race.
func TestTransportConcurrent(t *testing.T) {
	s := newServer(t, stringifyingServer)
	tr := &httpid.Transport{}
	c := newClient(tr)
	const workers, each = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := w*1000 + i
				sse := i%2 == 0
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m"}`, id)
				req, err := http.NewRequest(http.MethodPost, s.URL, strings.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				if sse {
					req.Header.Set("Accept", "text/event-stream")
				}
				resp, err := c.Do(req)
				if err != nil {
					errs <- err
					continue
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
				if sse {
					want = "data: " + want + "\n\n"
				}
				if err != nil || string(got) != want {
					errs <- fmt.Errorf("id %d: got %q, %v; want %q", id, got, err, want)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := tr.Len(); n != 0 {
		t.Errorf("Len() = %d after all responses, want 0", n)
	}
}

// stringifyingServer answers each JSON-RPC request with the id turned into a
// string, as application/json or, if asked for, as an event stream.
func stringifyingServer(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	i := bytes.Index(data, []byte(`"id":`))
	j := bytes.IndexByte(data[i:], ',')
	if i < 0 || j < 0 {
		http.Error(w, "no id", http.StatusBadRequest)
		return
	}
	msg := `{"jsonrpc":"2.0","id":"` + string(data[i+5:i+j]) + `","result":{}}`
	if r.Header.Get("Accept") == "text/event-stream" {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+msg+"\n\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, msg)
}

func TestTransportContextCanceled(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(wait):
		}
	})
	tr := &httpid.Transport{}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := newClient(tr).Do(req)
		done <- err
	}()
	for deadline := time.Now().Add(wait); tr.Len() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	case <-time.After(wait):
		t.Fatal("request not canceled")
	}
	if n := tr.Len(); n != 0 {
		t.Errorf("Len() = %d after a canceled exchange, want 0", n)
	}
}

func TestTransportCloseIdleConnections(t *testing.T) {
	base := &closeCounter{}
	(&httpid.Transport{Base: base}).CloseIdleConnections()
	if base.n != 1 {
		t.Errorf("Base.CloseIdleConnections called %d times, want 1", base.n)
	}
	(&httpid.Transport{Base: failingTransport{}}).CloseIdleConnections() // no such method: no panic
}

type closeCounter struct{ n int }

func (c *closeCounter) RoundTrip(*http.Request) (*http.Response, error) { return nil, errNetwork }
func (c *closeCounter) CloseIdleConnections()                           { c.n++ }

// TestMaxMessageSizeHuge checks that a MaxMessageSize of math.MaxInt, a
// natural way to ask for no limit, neither overflows nor empties bodies.
func TestMaxMessageSizeHuge(t *testing.T) {
	const reqBody = `{"jsonrpc":"2.0","id":1,"method":"m"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		if string(got) != reqBody {
			t.Errorf("server received %q, want %q", got, reqBody)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	defer srv.Close()
	tr := &httpid.Transport{Base: srv.Client().Transport, MaxMessageSize: math.MaxInt}
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Post(srv.URL, "application/json", strings.NewReader(reqBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":{}}`; string(got) != want {
		t.Errorf("response body = %q, want %q", got, want)
	}
}

// TestTransportOnlyJSONRPC20 checks that JSON that is not a JSON-RPC 2.0 message, and messages whose
// members JSON-RPC implementations read differently, pass unchanged and
// consume no remembered id; requests like them are not recorded.
func TestTransportOnlyJSONRPC20(t *testing.T) {
	var next string
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, next)
	})
	tr := &httpid.Transport{}
	c := newClient(tr)
	next = `{"jsonrpc":"2.0","id":"9","result":{}}`
	for _, req := range []string{
		`{"id":9,"method":"m"}`,                 // no jsonrpc member
		`{"jsonrpc":"2.0","ID":9,"method":"m"}`, // a case variant of id
		`{"jsonrpc":"2.0","id":9,"id":9,"method":"m"}`,
	} {
		if _, got := post(t, c, s.URL, req); got != next {
			t.Errorf("after request %s: response %s, want it unchanged", req, got)
		}
		if tr.Len() != 0 {
			t.Fatalf("request %s was recorded", req)
		}
	}

	// Now one real request is pending; none of these responses answers it.
	next = `{"jsonrpc":"2.0","id":"5","result":{}}`
	if _, got := post(t, c, s.URL, `{"jsonrpc":"2.0","id":5,"method":"m"}`); got != `{"jsonrpc":"2.0","id":5,"result":{}}` {
		t.Fatalf("response %s, want the id restored", got)
	}
	next = `{"jsonrpc":"2.0","id":7,"result":{}}` // answers nothing pending
	post(t, c, s.URL, `{"jsonrpc":"2.0","id":6,"method":"m","params":{}}`)
	for _, resp := range []string{
		`{"id":"6","result":{"name":"a REST API's answer"}}`,
		`{"jsonrpc":"1.0","id":"6","result":1}`,
		`{"jsonrpc":"2.0","ID":"6","result":1}`,
		`{"jsonrpc":"2.0","Id":"6","id":"6","result":1}`,
		`{"jsonrpc":"2.0","id":"6","id":"6","result":1}`,
		`{"jsonrpc":"2.0","id":"6","result":1,"Method":"x"}`,
		`{"jsonrpc":"2.0","id":"6","Result":1}`,
		`[{"id":"6","result":1}]`,
	} {
		next = resp
		if _, got := post(t, c, s.URL, `{"jsonrpc":"2.0","method":"notifications/x"}`); got != resp {
			t.Errorf("response %s came back as %s, want it unchanged", resp, got)
		}
		if tr.Len() != 1 {
			t.Fatalf("response %s answered the pending request 6", resp)
		}
	}
	next = `{"jsonrpc":"2.0","id":"6","result":1}`
	if _, got := post(t, c, s.URL, `{"jsonrpc":"2.0","method":"notifications/x"}`); got != `{"jsonrpc":"2.0","id":6,"result":1}` || tr.Len() != 0 {
		t.Errorf("the real response came back as %s with %d pending; want restored, 0", got, tr.Len())
	}
}

// TestTransportStreamsNotHeld checks that a body that is not one JSON text
// of known length reaches the client as it arrives: the server sends one
// line and then waits for the client to have read it.
func TestTransportStreamsNotHeld(t *testing.T) {
	for _, ctype := range []string{
		"application/x-ndjson", "application/stream+json", "application/jsonl",
		"application/json-seq", "application/json", "application/json; charset=utf-8",
	} {
		t.Run(ctype, func(t *testing.T) {
			sep := ""
			if ctype == "application/json-seq" {
				sep = "\x1e"
			}
			read := make(chan struct{})
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", ctype)
				io.WriteString(w, sep+`{"jsonrpc":"2.0","id":"1","result":1}`+"\n")
				w.(http.Flusher).Flush()
				select {
				case <-read:
				case <-time.After(wait):
					return
				}
				io.WriteString(w, sep+`{"jsonrpc":"2.0","id":"2","result":2}`+"\n")
			})
			tr := &httpid.Transport{}
			got := make(chan string, 1)
			go func() {
				resp, err := newClient(tr).Post(s.URL, "application/json",
					strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`))
				if err != nil {
					got <- err.Error()
					return
				}
				defer resp.Body.Close()
				line := make([]byte, len(sep+`{"jsonrpc":"2.0","id":1,"result":1}`+"\n"))
				if _, err := io.ReadFull(resp.Body, line); err != nil {
					got <- err.Error()
					return
				}
				got <- string(line)
				close(read)
				rest, err := io.ReadAll(resp.Body)
				if err != nil {
					got <- err.Error()
					return
				}
				got <- string(rest)
			}()
			for i, want := range []string{
				sep + `{"jsonrpc":"2.0","id":1,"result":1}` + "\n",
				sep + `{"jsonrpc":"2.0","id":2,"result":2}` + "\n",
			} {
				select {
				case g := <-got:
					if g != want {
						t.Fatalf("line %d = %q, want %q", i+1, g, want)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("line %d did not arrive within 5 s: the body is held back", i+1)
				}
			}
			if tr.Len() != 0 {
				t.Errorf("Len() = %d, want 0", tr.Len())
			}
		})
	}
}

// TestTransportLongBodyNotHeld checks that a JSON body whose Content-Length
// exceeds MaxMessageSize passes unexamined without waiting for its end.
func TestTransportLongBodyNotHeld(t *testing.T) {
	read := make(chan struct{})
	first := `{"jsonrpc":"2.0","id":"1","result":"`
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-read:
		case <-time.After(wait):
			return
		}
		io.WriteString(w, strings.Repeat("x", 1000-len(first)-2)+`"}`)
	})
	tr := &httpid.Transport{MaxMessageSize: 100}
	done := make(chan error, 1)
	go func() {
		resp, err := newClient(tr).Post(s.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"m"}`))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		buf := make([]byte, len(first))
		if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != first {
			done <- fmt.Errorf("read %q, %v; want %q", buf, err, first)
			return
		}
		close(read)
		rest, err := io.ReadAll(resp.Body)
		if err == nil && len(rest) != 1000-len(first) {
			err = fmt.Errorf("read %d more bytes, want %d", len(rest), 1000-len(first))
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the start of the body did not arrive within 5 s")
	}
}

// TestTransportStreamedJSONEndsExchange checks that an application/json body
// of unknown length ends its exchange when it ends: a failed one forgets its
// unanswered ids, a successful one keeps them as orphans.
func TestTransportStreamedJSONEndsExchange(t *testing.T) {
	for _, tt := range []struct {
		status, left int
	}{{http.StatusOK, 1}, {http.StatusInternalServerError, 0}} {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tt.status)
			w.(http.Flusher).Flush() // no Content-Length
			io.WriteString(w, `{"jsonrpc":"2.0","id":"9","result":{}}`)
		})
		tr := &httpid.Transport{}
		_, got := post(t, newClient(tr), s.URL, `{"jsonrpc":"2.0","id":1,"method":"m"}`)
		if got != `{"jsonrpc":"2.0","id":"9","result":{}}` {
			t.Errorf("status %d: body %s, want it unchanged", tt.status, got)
		}
		if tr.Len() != tt.left {
			t.Errorf("status %d: Len() = %d after the body ended, want %d", tt.status, tr.Len(), tt.left)
		}
	}
}
