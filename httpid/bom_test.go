package httpid_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rpcid/rpcid/httpid"
)

const bom = "\xef\xbb\xbf"

// TestTransportBOM checks, through a server on 127.0.0.1, that a UTF-8 byte
// order mark before a JSON text (RFC 8259 section 8.1: parsers may ignore
// it; fetch's Response.json(), Python's json.loads of bytes and
// System.Text.Json's stream readers do) does not hide the text: its ids are
// restored after the mark, which passes on unchanged. Where readers do not
// skip a mark (a second one, one inside an event's data) nothing changes.
func TestTransportBOM(t *testing.T) {
	const req7 = `{"jsonrpc":"2.0","id":7,"method":"m"}`
	tests := []struct {
		name     string
		req      string // request body, sent as application/json
		ctype    string // response Content-Type
		chunked  bool   // response without Content-Length
		resp     string // what the server sends
		want     string // what the client must read
		wantLeft int    // ids still remembered afterwards
	}{
		{
			name:  "json",
			req:   req7,
			ctype: "application/json",
			resp:  bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			want:  bom + `{"jsonrpc":"2.0","id":7,"result":{}}`,
		},
		{
			name:  "json with white space after the mark",
			req:   req7,
			ctype: "application/json; charset=utf-8",
			resp:  bom + "\r\n [{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}]\n",
			want:  bom + "\r\n [{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}]\n",
		},
		{
			name:  "json id restored longer",
			req:   `{"jsonrpc":"2.0","id":"7","method":"m"}`,
			ctype: "application/json",
			resp:  bom + `{"jsonrpc":"2.0","id":7,"result":{}}`,
			want:  bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
		},
		{
			name:  "json-rpc type",
			req:   req7,
			ctype: "application/json-rpc",
			resp:  bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			want:  bom + `{"jsonrpc":"2.0","id":7,"result":{}}`,
		},
		{
			name:     "two marks",
			req:      req7,
			ctype:    "application/json",
			resp:     bom + bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			want:     bom + bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			wantLeft: 1,
		},
		{
			name:     "mark after white space",
			req:      req7,
			ctype:    "application/json",
			resp:     " " + bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			want:     " " + bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			wantLeft: 1,
		},
		{
			name:    "streamed json",
			req:     req7,
			ctype:   "application/json",
			chunked: true,
			resp:    bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			want:    bom + `{"jsonrpc":"2.0","id":7,"result":{}}`,
		},
		{
			name:    "ndjson, a mark on each line",
			req:     `[{"jsonrpc":"2.0","id":7,"method":"m"},{"jsonrpc":"2.0","id":8,"method":"m"}]`,
			ctype:   "application/x-ndjson",
			chunked: true,
			resp:    bom + `{"jsonrpc":"2.0","id":"7","result":{}}` + "\n" + bom + `{"jsonrpc":"2.0","id":"8","result":{}}` + "\n",
			want:    bom + `{"jsonrpc":"2.0","id":7,"result":{}}` + "\n" + bom + `{"jsonrpc":"2.0","id":8,"result":{}}` + "\n",
		},
		{
			name:  "ndjson with a length, last line without LF",
			req:   req7,
			ctype: "application/jsonl",
			resp:  bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			want:  bom + `{"jsonrpc":"2.0","id":7,"result":{}}`,
		},
		{
			name:    "json-seq, a mark before and after the record separator",
			req:     `[{"jsonrpc":"2.0","id":7,"method":"m"},{"jsonrpc":"2.0","id":8,"method":"m"}]`,
			ctype:   "application/json-seq",
			chunked: true,
			resp:    bom + "\x1e" + `{"jsonrpc":"2.0","id":"7","result":{}}` + "\n\x1e" + bom + `{"jsonrpc":"2.0","id":"8","result":{}}` + "\n",
			want:    bom + "\x1e" + `{"jsonrpc":"2.0","id":7,"result":{}}` + "\n\x1e" + bom + `{"jsonrpc":"2.0","id":8,"result":{}}` + "\n",
		},
		{
			name:     "ndjson, two marks",
			req:      req7,
			ctype:    "application/x-ndjson",
			chunked:  true,
			resp:     bom + bom + `{"jsonrpc":"2.0","id":"7","result":{}}` + "\n",
			want:     bom + bom + `{"jsonrpc":"2.0","id":"7","result":{}}` + "\n",
			wantLeft: 1,
		},
		{
			name:    "event stream, a mark before the stream",
			req:     req7,
			ctype:   "text/event-stream",
			chunked: true,
			resp:    bom + "data: {\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}\n\n",
			want:    bom + "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n",
		},
		{
			name:     "event stream, a mark in the data",
			req:      req7,
			ctype:    "text/event-stream",
			chunked:  true,
			resp:     "data: " + bom + "{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}\n\n",
			want:     "data: " + bom + "{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}\n\n",
			wantLeft: 1,
		},
		{
			name:     "not a JSON type",
			req:      req7,
			ctype:    "text/plain",
			resp:     bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			want:     bom + `{"jsonrpc":"2.0","id":"7","result":{}}`,
			wantLeft: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tt.ctype)
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
			if !tt.chunked && tt.ctype != "application/jsonl" {
				if h := resp.Header.Get("Content-Length"); h != strconv.Itoa(len(tt.want)) {
					t.Errorf("Content-Length header = %q, want %d", h, len(tt.want))
				}
			}
			if n := tr.Len(); n != tt.wantLeft {
				t.Errorf("Len() = %d after the exchange, want %d", n, tt.wantLeft)
			}
		})
	}
}

// TestTransportRequestBOM checks that a request body starting with a byte
// order mark is recorded (servers that skip the mark read the request) and
// reaches the server byte for byte, mark included.
func TestTransportRequestBOM(t *testing.T) {
	for _, body := range []string{
		bom + `{"jsonrpc":"2.0","id":7,"method":"m"}`,
		bom + " \n[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"m\"}]",
	} {
		got := make(chan string, 1)
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			data, _ := io.ReadAll(r.Body)
			got <- string(data)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":"7","result":{}}`)
		})
		tr := &httpid.Transport{}
		_, resp := post(t, newClient(tr), s.URL, body)
		if diff := cmp.Diff(body, <-got); diff != "" {
			t.Errorf("server received (-sent +received):\n%s", diff)
		}
		if want := `{"jsonrpc":"2.0","id":7,"result":{}}`; resp != want {
			t.Errorf("request %q: response %q, want %q", body, resp, want)
		}
		if n := tr.Len(); n != 0 {
			t.Errorf("request %q: Len() = %d after the exchange, want 0", body, n)
		}
	}
	// Two marks: no reader takes the text for JSON, and nothing is recorded.
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusAccepted)
	})
	tr := &httpid.Transport{}
	post(t, newClient(tr), s.URL, bom+bom+`{"jsonrpc":"2.0","id":7,"method":"m"}`)
	if n := tr.Len(); n != 0 {
		t.Errorf("two marks: Len() = %d, want 0 (nothing recorded)", n)
	}
}

// TestTransportMediaTypes checks, through a server on 127.0.0.1, which
// Content-Types of requests are recorded and of responses restored: the
// JSON types, among them the two that JSON-RPC over HTTP names besides
// application/json (application/json-rpc, as the Zabbix API and Cisco
// NX-API are sent, and application/jsonrequest), whatever their case and
// parameters, and no others.
func TestTransportMediaTypes(t *testing.T) {
	tests := []struct {
		ctype string
		json  bool
	}{
		{"application/json", true},
		{"application/json-rpc", true},
		{"application/jsonrequest", true},
		{"Application/JSON-RPC; charset=UTF-8", true},
		{" application/jsonrequest ;charset=utf-8", true},
		{"application/vnd.api+json", true},
		{"text/plain", false},
		{"text/plain; charset=utf-8", false},
		{"application/javascript", false},
		{"application/x-www-form-urlencoded", false},
		{"application/json-rpcx", false},
		{"application/jsonrequests", false},
		{"application/json+rpc", false},
		{"text/json-rpc", false},
	}
	const (
		req  = `{"jsonrpc":"2.0","id":7,"method":"m"}`
		resp = `{"jsonrpc":"2.0","id":"7","result":{}}`
		want = `{"jsonrpc":"2.0","id":7,"result":{}}`
	)
	for _, tt := range tests {
		t.Run(tt.ctype, func(t *testing.T) {
			// The request typed tt.ctype, answered as application/json:
			// restored only if the request was recorded.
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, resp)
			})
			tr := &httpid.Transport{}
			r, err := newClient(tr).Post(s.URL, tt.ctype, strings.NewReader(req))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if w := map[bool]string{true: want, false: resp}[tt.json]; string(got) != w {
				t.Errorf("request as %q: response %s, want %s", tt.ctype, got, w)
			}

			// The response typed tt.ctype, with and without a length, to
			// a request sent as application/json.
			for _, chunked := range []bool{false, true} {
				s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					w.Header().Set("Content-Type", tt.ctype)
					if chunked {
						w.(http.Flusher).Flush()
					}
					io.WriteString(w, resp)
				})
				tr := &httpid.Transport{}
				_, got := post(t, newClient(tr), s.URL, req)
				if w := map[bool]string{true: want, false: resp}[tt.json]; got != w {
					t.Errorf("response as %q (chunked %v): %s, want %s", tt.ctype, chunked, got, w)
				}
			}
		})
	}
}
