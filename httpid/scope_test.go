package httpid_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpcid/rpcid/httpid"
)

// A heldRequest is a request that holdingServer holds until the test answers
// it: the "method" of its first message (or "GET"), its Mcp-Session-Id, and
// the channel on which the test gives the texts to answer with.
type heldRequest struct {
	key, session string
	answer       chan<- []string
}

var methodRE = regexp.MustCompile(`"method":"([^"]*)"`)

// holdingServer starts a server that passes each request to held and answers
// it, as the kind of body named ("json", "json-chunked", "event-stream",
// "ndjson"), with the texts the test sends back: none ends the body without
// a response (an event stream with only a comment, for every kind but json,
// which answers 202 Accepted with no body), and holdOpen holds an event
// stream open.
func holdingServer(t *testing.T, kind string) (url string, held <-chan heldRequest) {
	ch := make(chan heldRequest, 8)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		key := r.Method
		if m := methodRE.FindSubmatch(data); r.Method == http.MethodPost && m != nil {
			key = string(m[1])
		}
		answer := make(chan []string, 1)
		ch <- heldRequest{key, r.Header.Get("Mcp-Session-Id"), answer}
		var texts []string
		select {
		case texts = <-answer:
		case <-time.After(wait):
			return
		case <-r.Context().Done():
			return
		}
		if len(texts) == 1 && texts[0] == holdOpen {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, ": held open\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(wait):
			}
			return
		}
		writeTexts(w, kind, texts)
	})
	return s.URL, ch
}

// holdOpen, as the one text to answer with, starts an event stream and holds
// it open until the client goes away.
const holdOpen = "hold open"

// writeTexts writes texts as a body of the kind named (see holdingServer).
func writeTexts(w http.ResponseWriter, kind string, texts []string) {
	switch {
	case kind == "json" && len(texts) == 0:
		w.WriteHeader(http.StatusAccepted)
	case kind == "json":
		body := strings.Join(texts, "")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		io.WriteString(w, body)
	case len(texts) == 0 || kind == "event-stream":
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		io.WriteString(w, ": no response here\n\n")
		for _, s := range texts {
			io.WriteString(w, "event: message\ndata: "+s+"\n\n")
		}
	case kind == "json-chunked":
		w.Header().Set("Content-Type", "application/json")
		w.(http.Flusher).Flush() // no Content-Length: streamed
		io.WriteString(w, strings.Join(texts, "\n"))
	case kind == "ndjson":
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, s := range texts {
			io.WriteString(w, s+"\n")
		}
	}
}

// unwrap returns the texts a body of the kind named holds, as writeTexts
// wrote them, so that tests compare texts whatever the kind.
func unwrap(kind, body string) []string {
	var texts []string
	switch kind {
	case "json":
		if body != "" {
			texts = []string{body}
		}
	case "event-stream":
		for _, ev := range strings.Split(body, "\n\n") {
			if s, ok := strings.CutPrefix(ev, "event: message\ndata: "); ok {
				texts = append(texts, s)
			}
		}
	default:
		for _, l := range strings.Split(body, "\n") {
			if l != "" {
				texts = append(texts, l)
			}
		}
	}
	return texts
}

// sendAsync sends body (a POST, or a GET if body is "") with Mcp-Session-Id
// session (if not "") and delivers the body read, or the error.
func sendAsync(c *http.Client, url, body, session string) <-chan string {
	got := make(chan string, 1)
	go func() {
		method, r := http.MethodGet, io.Reader(nil)
		if body != "" {
			method, r = http.MethodPost, strings.NewReader(body)
		}
		req, err := http.NewRequest(method, url, r)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := c.Do(req)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(b)
	}()
	return got
}

// arrive waits for the requests named by keys to arrive at the server, in any
// order.
func arrive(t *testing.T, held <-chan heldRequest, keys ...string) map[string]heldRequest {
	t.Helper()
	m := make(map[string]heldRequest)
	for len(m) < len(keys) {
		select {
		case h := <-held:
			m[h.key] = h
		case <-time.After(wait):
			t.Fatalf("requests arrived: %d of %q", len(m), keys)
		}
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Fatalf("request %q did not arrive", k)
		}
	}
	return m
}

// result waits for a body sendAsync delivers.
func result(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(wait):
		t.Fatal("no response body")
	}
	return ""
}

var bodyKinds = []string{"json", "json-chunked", "event-stream", "ndjson"}

func req(id, method string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`
}

func res(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }

// TestTransportOwnExchange sends two requests with Equal ids of different
// spellings at once, 1 and "1", through a gateway that spells every id one
// way and answers each POST in its own response body: each client must read
// the id it sent, whichever is answered first (JSON-RPC 2.0 section 5; MCP
// Streamable HTTP answers a POST's requests on that POST's response).
// Before matching was scoped, the first answer took the request spelled as
// received, which was the other client's.
func TestTransportOwnExchange(t *testing.T) {
	for _, kind := range bodyKinds {
		for _, gw := range []string{`"1"`, `1`} { // the gateway's spelling of every id
			for _, first := range []string{"A", "B"} {
				t.Run(fmt.Sprintf("%s/gateway-id-%s/%s-first", kind, gw, first), func(t *testing.T) {
					url, held := holdingServer(t, kind)
					tr := &httpid.Transport{}
					c := newClient(tr)
					got := map[string]<-chan string{
						"A": sendAsync(c, url, req(`1`, "A"), ""),
						"B": sendAsync(c, url, req(`"1"`, "B"), ""),
					}
					sent := map[string]string{"A": `1`, "B": `"1"`}
					hs := arrive(t, held, "A", "B")
					for _, k := range []string{first, map[string]string{"A": "B", "B": "A"}[first]} {
						hs[k].answer <- []string{res(gw)}
						if body, want := result(t, got[k]), res(sent[k]); strings.Join(unwrap(kind, body), "") != want {
							t.Errorf("client %s (id %s) read %q, want %s", k, sent[k], body, want)
						}
					}
					if n := tr.Len(); n != 0 {
						t.Errorf("Len() = %d after both answers, want 0", n)
					}
				})
			}
		}
	}
}

// TestTransportOwnExchangeOverOrphan leaves one request's id orphaned (its
// POST's response ends without the response, or the client closes it, as
// when a request is cancelled), then sends an Equal id spelled the other
// way: its own response body answers it, not the orphan spelled as
// received. The orphan stays for a later stream.
func TestTransportOwnExchangeOverOrphan(t *testing.T) {
	for _, kind := range bodyKinds {
		for _, gw := range []string{`"1"`, `1`} {
			for _, cancelled := range []bool{false, true} {
				name := fmt.Sprintf("%s/gateway-id-%s/ended", kind, gw)
				if cancelled {
					name = fmt.Sprintf("%s/gateway-id-%s/cancelled", kind, gw)
				}
				t.Run(name, func(t *testing.T) {
					url, held := holdingServer(t, kind)
					tr := &httpid.Transport{}
					c := newClient(tr)
					orphan, own := `"1"`, `1` // the orphan is spelled as the gateway spells
					if gw == `1` {
						orphan, own = `1`, `"1"`
					}
					if cancelled {
						// The client gives up while its request is held:
						// before the response begins, the exchange fails
						// and its id is forgotten; after, as here, the id
						// is an orphan.
						ctx, cancel := context.WithCancel(context.Background())
						defer cancel()
						r, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(req(orphan, "B")))
						r.Header.Set("Content-Type", "application/json")
						arrived := make(chan *http.Response, 1)
						go func() {
							resp, err := c.Do(r)
							if err != nil {
								resp = nil
							}
							arrived <- resp
						}()
						arrive(t, held, "B")["B"].answer <- []string{holdOpen}
						var resp *http.Response
						select {
						case resp = <-arrived:
						case <-time.After(wait):
							t.Fatal("no response to B")
						}
						if resp == nil {
							t.Fatal("B failed")
						}
						if _, err := io.ReadFull(resp.Body, make([]byte, 4)); err != nil {
							t.Fatalf("reading B's stream: %v", err)
						}
						cancel()
						resp.Body.Close()
					} else {
						b := sendAsync(c, url, req(orphan, "B"), "")
						arrive(t, held, "B")["B"].answer <- []string{}
						if body := result(t, b); strings.Contains(body, "result") {
							t.Fatalf("B read %q, want no response", body)
						}
					}
					if n := tr.Len(); n != 1 {
						t.Fatalf("Len() = %d with B's id orphaned, want 1", n)
					}
					a := sendAsync(c, url, req(own, "A"), "")
					arrive(t, held, "A")["A"].answer <- []string{res(gw)}
					if body := result(t, a); strings.Join(unwrap(kind, body), "") != res(own) {
						t.Errorf("A (id %s) read %q, want %s", own, body, res(own))
					}
					if n := tr.Len(); n != 1 {
						t.Errorf("Len() = %d after A's answer, want 1 (B's orphan)", n)
					}
				})
			}
		}
	}
}

// TestTransportOwnExchangeBatch sends two batches at once, [1,2] and
// ["1","2"], answered in their own bodies with every id a string: each
// client reads its own ids. A batch holding Equal ids of two spellings
// ([3,3.0]) is ambiguous within its own exchange, even while another
// exchange has a request spelled as received: its answers pass unchanged and
// answer nothing there.
func TestTransportOwnExchangeBatch(t *testing.T) {
	for _, kind := range bodyKinds {
		for _, first := range []string{"A", "B"} {
			t.Run(kind+"/"+first+"-first", func(t *testing.T) {
				url, held := holdingServer(t, kind)
				tr := &httpid.Transport{}
				c := newClient(tr)
				got := map[string]<-chan string{
					"A": sendAsync(c, url, "["+req(`1`, "A")+","+req(`2`, "A")+"]", ""),
					"B": sendAsync(c, url, "["+req(`"1"`, "B")+","+req(`"2"`, "B")+"]", ""),
				}
				want := map[string]string{
					"A": "[" + res(`1`) + "," + res(`2`) + "]",
					"B": "[" + res(`"1"`) + "," + res(`"2"`) + "]",
				}
				hs := arrive(t, held, "A", "B")
				for _, k := range []string{first, map[string]string{"A": "B", "B": "A"}[first]} {
					hs[k].answer <- []string{"[" + res(`"1"`) + "," + res(`"2"`) + "]"}
					if body := result(t, got[k]); strings.Join(unwrap(kind, body), "") != want[k] {
						t.Errorf("client %s read %q, want %s", k, body, want[k])
					}
				}
				if n := tr.Len(); n != 0 {
					t.Errorf("Len() = %d after both answers, want 0", n)
				}

				// Ambiguous within the exchange.
				got["C"] = sendAsync(c, url, "["+req(`3`, "C")+","+req(`3.0`, "C")+"]", "")
				got["D"] = sendAsync(c, url, req(`"3"`, "D"), "")
				hs = arrive(t, held, "C", "D")
				hs["C"].answer <- []string{"[" + res(`"3"`) + "," + res(`"3"`) + "]"}
				if body, want := result(t, got["C"]), "["+res(`"3"`)+","+res(`"3"`)+"]"; strings.Join(unwrap(kind, body), "") != want {
					t.Errorf("C read %q, want %s unchanged", body, want)
				}
				if n := tr.Len(); n != 3 {
					t.Errorf("Len() = %d after C's ambiguous answers, want 3 (C's two orphans, D's)", n)
				}
				hs["D"].answer <- []string{res(`3`)}
				if body := result(t, got["D"]); strings.Join(unwrap(kind, body), "") != res(`"3"`) {
					t.Errorf("D read %q, want %s", body, res(`"3"`))
				}
				if n := tr.Len(); n != 2 {
					t.Errorf("Len() = %d after D's answer, want 2 (C's orphans)", n)
				}
			})
		}
	}
}

// TestTransportSessionGET answers orphaned requests of two MCP sessions on
// event streams opened with GET (as on resumption with Last-Event-ID): a
// GET's exchange recorded no id, so its responses answer the requests of its
// own session (Mcp-Session-Id) first, then those of any session. A GET
// without a session matches as before, preferring the spelling received.
func TestTransportSessionGET(t *testing.T) {
	for _, first := range []string{"A", "B"} {
		t.Run(first+"-first", func(t *testing.T) {
			url, held := holdingServer(t, "event-stream")
			tr := &httpid.Transport{}
			c := newClient(tr)
			// Session a sent 1, session b sent "1": both POSTs' event
			// streams end without the response.
			for _, s := range []struct{ id, key, session string }{{`1`, "A", "a"}, {`"1"`, "B", "b"}} {
				got := sendAsync(c, url, req(s.id, s.key), s.session)
				h := arrive(t, held, s.key)[s.key]
				if h.session != s.session {
					t.Fatalf("upstream got Mcp-Session-Id %q, want %q", h.session, s.session)
				}
				h.answer <- nil
				result(t, got)
			}
			if n := tr.Len(); n != 2 {
				t.Fatalf("Len() = %d with two orphans, want 2", n)
			}
			sessions := map[string]string{"A": "a", "B": "b"}
			sent := map[string]string{"A": `1`, "B": `"1"`}
			for _, k := range []string{first, map[string]string{"A": "B", "B": "A"}[first]} {
				got := sendAsync(c, url, "", sessions[k])
				h := arrive(t, held, "GET")["GET"]
				if h.session != sessions[k] {
					t.Fatalf("upstream got Mcp-Session-Id %q, want %q", h.session, sessions[k])
				}
				h.answer <- []string{res(`"1"`)}
				if body := result(t, got); strings.Join(unwrap("event-stream", body), "") != res(sent[k]) {
					t.Errorf("GET of session %s (which sent %s) read %q, want %s", sessions[k], sent[k], body, res(sent[k]))
				}
			}
			if n := tr.Len(); n != 0 {
				t.Errorf("Len() = %d after both answers, want 0", n)
			}

			// A session with no Equal id pending: any session's request
			// answers, as before scoping (an id spelled as received first).
			for _, s := range []struct{ id, key, session string }{{`7`, "E", "a"}, {`"7"`, "F", "b"}} {
				got := sendAsync(c, url, req(s.id, s.key), s.session)
				arrive(t, held, s.key)[s.key].answer <- nil
				result(t, got)
			}
			for _, session := range []string{"", "c"} {
				got := sendAsync(c, url, "", session)
				arrive(t, held, "GET")["GET"].answer <- []string{res(`"7"`)}
				want := map[string]string{"": res(`"7"`), "c": res(`7`)}[session]
				if body := result(t, got); strings.Join(unwrap("event-stream", body), "") != want {
					t.Errorf("GET with Mcp-Session-Id %q read %q, want %s", session, body, want)
				}
			}
		})
	}
}
