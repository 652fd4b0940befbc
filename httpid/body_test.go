package httpid_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rpcid/rpcid/httpid"
)

// echoTransport answers each request {"jsonrpc":"2.0","id":N,...} with an
// application/json response of known length whose id is the string "N" and
// whose result is a string of size bytes that names N throughout, so that
// bytes of one exchange cannot pass for another's.
type echoTransport struct{ size int }

func (e echoTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	_, rest, _ := bytes.Cut(data, []byte(`"id":`))
	id, _, _ := bytes.Cut(rest, []byte(","))
	body := echoResponse(string(id), e.size, `"`)
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(body))}},
		ContentLength: int64(len(body)),
		Body:          io.NopCloser(strings.NewReader(body)),
		Request:       req,
	}, nil
}

// echoResponse is the response echoTransport sends for id (quote "\"") or
// the one the client reads after httpid restored it (quote "").
func echoResponse(id string, size int, quote string) string {
	filler := strings.Repeat("<"+id+">", size/(len(id)+2)+1)[:size]
	return `{"jsonrpc":"2.0","id":` + quote + id + quote + `,"result":"` + filler + `"}`
}

// exchange sends a request with id through rt and returns the response.
// The base RoundTrippers of these tests do not fail.
func exchange(rt http.RoundTripper, id int) *http.Response {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m"}`, id)
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		panic(err)
	}
	return resp
}

// TestJSONBodyAfterEnd checks that a body held in memory, once read to its
// end or closed, never yields another byte, in particular none of a later
// exchange that may reuse its buffer.
func TestJSONBodyAfterEnd(t *testing.T) {
	tr := &httpid.Transport{Base: echoTransport{size: 900}}
	read := map[string]func(io.Reader) ([]byte, error){
		"ReadAll": io.ReadAll,
		"Copy": func(r io.Reader) ([]byte, error) { // through WriteTo
			var b bytes.Buffer
			_, err := io.Copy(&b, r)
			return b.Bytes(), err
		},
	}
	for name, readAll := range read {
		for i := range 20 {
			a := exchange(tr, 2*i+1)
			got, err := readAll(a.Body)
			if want := echoResponse(strconv.Itoa(2*i+1), 900, ""); err != nil || string(got) != want {
				t.Fatalf("%s: body = %.40q..., %v; want %.40q...", name, got, err, want)
			}
			b := exchange(tr, 2*i+2) // may be read into a's buffer
			if _, err := io.ReadAll(b.Body); err != nil {
				t.Fatal(err)
			}
			p := make([]byte, 64)
			if n, err := a.Body.Read(p); n != 0 || err != io.EOF {
				t.Fatalf("%s: Read after the end = %d, %v (%q); want 0, EOF", name, n, err, p[:n])
			}
			a.Body.Close()
			if n, err := a.Body.Read(p); n != 0 || err == nil || err == io.EOF {
				t.Fatalf("%s: Read after Close = %d, %v (%q); want 0 and an error", name, n, err, p[:n])
			}
			b.Body.Close()
		}
	}

	// Closed before its end: the rest is never read, and its buffer serves
	// no other exchange while a Read may still run.
	for i := range 20 {
		a := exchange(tr, 1000+i)
		p := make([]byte, 10)
		if n, err := a.Body.Read(p); n != 10 || err != nil {
			t.Fatalf("Read = %d, %v", n, err)
		}
		a.Body.Close()
		b := exchange(tr, 2000+i)
		if _, err := io.ReadAll(b.Body); err != nil {
			t.Fatal(err)
		}
		b.Body.Close()
		if n, err := a.Body.Read(p); n != 0 || err == nil || err == io.EOF {
			t.Fatalf("Read after Close = %d, %v (%q); want 0 and an error", n, err, p[:n])
		}
		if n, err := io.Copy(io.Discard, a.Body); n != 0 || err == nil {
			t.Fatalf("Copy after Close = %d, %v; want 0 and an error", n, err)
		}
	}
	if n := tr.Len(); n != 0 {
		t.Errorf("Len() = %d, want 0", n)
	}
}

// TestJSONBodyConcurrent runs exchanges at once through one Transport, of
// bodies below and above the size whose buffers are reused, read in every
// way (to the end by Read or WriteTo, partly and closed, closed while a Read
// runs), and checks that each reads only its own bytes. Run it with -race.
func TestJSONBodyConcurrent(t *testing.T) {
	const workers, each = 8, 60
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	small := &httpid.Transport{Base: echoTransport{size: 700}}
	large := &httpid.Transport{Base: echoTransport{size: 70 << 10}}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id, tr, size := w*1000+i, small, 700
				if i%5 == 4 {
					tr, size = large, 70<<10
				}
				want := echoResponse(strconv.Itoa(id), size, "")
				resp := exchange(tr, id)
				var got []byte
				var err error
				switch i % 4 {
				case 0:
					got, err = io.ReadAll(resp.Body)
				case 1:
					var b bytes.Buffer
					_, err = io.Copy(&b, resp.Body)
					got = b.Bytes()
				case 2:
					got = make([]byte, 100)
					_, err = io.ReadFull(resp.Body, got)
					want = want[:100]
				case 3:
					// Close while another goroutine reads.
					started, done := make(chan struct{}), make(chan struct{})
					go func() {
						defer close(done)
						p := make([]byte, 7)
						for k := 0; ; k++ {
							n, e := resp.Body.Read(p)
							got = append(got, p[:n]...)
							if k == 0 {
								close(started)
							}
							if e != nil {
								if e == io.EOF {
									err = errors.New("read to the end although closed early")
									if len(got) == len(want) {
										err = nil // the Read won the race
									}
								}
								return
							}
						}
					}()
					<-started
					resp.Body.Close()
					<-done
					want = want[:min(len(got), len(want))]
				}
				resp.Body.Close()
				if err != nil || string(got) != want {
					errs <- fmt.Errorf("id %d: read %.60q... (%d bytes), %v; want %.60q... (%d bytes)", id, got, len(got), err, want, len(want))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// sizedRequest is a JSON-RPC request with id of exactly n bytes (n >= 60).
func sizedRequest(id, n int) string {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m","params":"`, id)
	return head + strings.Repeat("p", n-len(head)-2) + `"}`
}

// TestTransportRequestSizes sends request bodies of lengths around those of
// the buffers the Transport reads them into, with their length known or not
// (an io.Reader that http.NewRequest does not recognise), and checks that the
// base RoundTripper receives them byte for byte, that GetBody gives the same
// bytes again, and that the id was recorded: the response, with the id as a
// string, is restored.
func TestTransportRequestSizes(t *testing.T) {
	var sent, again string
	base := roundTripper(func(req *http.Request) (*http.Response, error) {
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		sent = string(data)
		again = "(no GetBody)"
		if req.GetBody != nil {
			rc, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			data, _ = io.ReadAll(rc)
			again = string(data)
		}
		_, rest, _ := strings.Cut(sent, `"id":`)
		id, _, _ := strings.Cut(rest, ",")
		body := `{"jsonrpc":"2.0","id":"` + id + `","result":{}}`
		return &http.Response{
			StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			ContentLength: int64(len(body)), Body: io.NopCloser(strings.NewReader(body)), Request: req,
		}, nil
	})
	// With MaxMessageSize 150, longer bodies are sent unrecorded: those of
	// unknown length after 151 bytes were read into the buffer.
	for _, tr := range []*httpid.Transport{{Base: base}, {Base: base, MaxMessageSize: 150}} {
		checkRequestSizes(t, tr, &sent, &again)
	}
}

func checkRequestSizes(t *testing.T, tr *httpid.Transport, sent, again *string) {
	t.Helper()
	for _, n := range []int{60, 118, 119, 120, 121, 150, 151, 502, 503, 504, 505, 512, 513, 4000} {
		for _, known := range []bool{true, false} {
			body := sizedRequest(n, n)
			var r io.Reader = strings.NewReader(body)
			if !known {
				r = struct{ io.Reader }{r}
			}
			req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", r)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if *sent != body {
				t.Errorf("%d bytes, length known %v, MaxMessageSize %d: sent %d bytes %.40q..., want %.40q...", n, known, tr.MaxMessageSize, len(*sent), *sent, body)
			}
			if *again != body && (n <= tr.MaxMessageSize || tr.MaxMessageSize == 0 || known) {
				t.Errorf("%d bytes, length known %v, MaxMessageSize %d: GetBody gives %.40q...", n, known, tr.MaxMessageSize, *again)
			}
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, n)
			if tr.MaxMessageSize != 0 && n > tr.MaxMessageSize {
				want = fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d","result":{}}`, n) // not recorded
			}
			if err != nil || string(got) != want {
				t.Errorf("%d bytes, length known %v, MaxMessageSize %d: response %q, %v; want %q", n, known, tr.MaxMessageSize, got, err, want)
			}
		}
	}
	if n := tr.Len(); n != 0 {
		t.Errorf("Len() = %d, want 0", n)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
