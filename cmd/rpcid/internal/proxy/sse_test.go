package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// An endpoint event the proxy leaves alone is either relative (the client
// resolves it against the proxy's own URL) or reported: a client using the
// WHATWG URL parser (every browser, Node's URL, the TypeScript SDK) strips
// leading and trailing spaces and C0 controls, reads "\" as "/" in http and
// https URLs, and percent-encodes control characters, so values that Go's
// url.Parse rejects can still send the client's POSTs to the upstream or
// elsewhere, around the proxy.
func TestProxyEndpointDecision(t *testing.T) {
	target := &url.URL{Scheme: "http", Host: "gw.example:8080"}
	const proxy = "127.0.0.1:8939"
	for _, tc := range []struct {
		value, rewritten string
		reported         bool // left alone and reported
	}{
		{"/messages?s=1", "", false},
		{"messages", "", false},
		{"?s=1", "", false},
		{"#f", "", false},
		{"", "", false},
		{"http://gw.example:8080/m?s=1", "http://" + proxy + "/m?s=1", false},
		{"//gw.example:8080/m", "http://" + proxy + "/m", false},
		{" http://gw.example:8080/m", "http://" + proxy + "/m", false},
		{"\t\x01http://gw.example:8080/m ", "http://" + proxy + "/m ", false},
		{"http://other.example/m", "", true},
		{" http://other.example/m", "", true},
		{"http:\\\\gw.example:8080/m", "", true},
		{"\\\\gw.example:8080/m", "", true},
		{"/\\gw.example:8080/m", "", true},
		{"\\/other.example/m", "", true},
		{"http://gw.example:8080\\@other.example/m", "", true},
		{"http://other.example/\x1b[31m", "", true},
		{"http://gw.example:8080/\x1b[31m", "", true},
		{"ht\ttp://other.example/m", "", true},
		{"https:other.example/m", "", true},
		{"mailto:x@other.example", "", true},
	} {
		got := rewriteEndpoint([]byte(tc.value), target, proxy)
		if string(got) != tc.rewritten || (got == nil) != (tc.rewritten == "") {
			t.Errorf("rewriteEndpoint(%q) = %q, want %q", tc.value, got, tc.rewritten)
		}
		if got == nil {
			if rep := !endpointRelative([]byte(tc.value)); rep != tc.reported {
				t.Errorf("%q: reported %v, want %v", tc.value, rep, tc.reported)
			}
		}
	}
}

// Through the proxy: an endpoint with a leading space is rewritten, one
// Go cannot parse is passed on and reported.
func TestProxyEndpointOddValues(t *testing.T) {
	var upURL string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		switch r.URL.Path {
		case "/space":
			io.WriteString(w, "event: endpoint\ndata:  "+upURL+"/m\n\n")
		case "/backslash":
			io.WriteString(w, "event: endpoint\ndata: "+upURL+"\\@other.example/m\n\n")
		}
	}))
	defer up.Close()
	upURL = up.URL
	p := startProxy(t, up.URL+"/sse")
	if _, body := do(t, newRequest(t, "GET", p.url+"/space", "")); body != "event: endpoint\ndata: "+p.url+"/m\n\n" {
		t.Errorf("GET /space: client read %q, want the endpoint rewritten to the proxy", body)
	}
	want := "event: endpoint\ndata: " + upURL + "\\@other.example/m\n\n"
	if _, body := do(t, newRequest(t, "GET", p.url+"/backslash", "")); body != want {
		t.Errorf("GET /backslash: client read %q, want %q", body, want)
	}
	if w := `rpcid proxy: endpoint event ` + upURL + `\@other.example/m passes unchanged: the proxy cannot tell`; !strings.Contains(p.stderr.String(), w) {
		t.Errorf("stderr lacks %q:\n%s", w, p.stderr.String())
	}
}

// An endpoint event split over two data lines is one URL to the client,
// which joins them with a line break that URL parsers drop: one naming the
// upstream is passed on (the proxy rewrites single lines only) but reported,
// not passed silently around the proxy.
func TestProxyEndpointTwoDataLines(t *testing.T) {
	var upURL string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/rel" {
			io.WriteString(w, "event: endpoint\ndata: /messages\ndata: ?s=1\n\n")
			return
		}
		io.WriteString(w, "event: endpoint\ndata: "+upURL+"\ndata: /messages\n\n")
	}))
	defer up.Close()
	upURL = up.URL
	p := startProxy(t, up.URL+"/sse")
	want := "event: endpoint\ndata: " + upURL + "\ndata: /messages\n\n"
	if _, body := do(t, newRequest(t, "GET", p.url+"/sse", "")); body != want {
		t.Errorf("client read %q, want %q", body, want)
	}
	if _, body := do(t, newRequest(t, "GET", p.url+"/rel", "")); body != "event: endpoint\ndata: /messages\ndata: ?s=1\n\n" {
		t.Errorf("GET /rel: client read %q", body)
	}
	p.stop(t)
	log := p.stderr.String()
	if w := `rpcid proxy: endpoint event "` + upURL + `\n/messages" passes unchanged: it has 2 data lines`; !strings.Contains(log, w) {
		t.Errorf("stderr lacks %q:\n%s", w, log)
	}
	if strings.Contains(log, "/messages\\n?s=1") {
		t.Errorf("a relative endpoint over two lines was reported:\n%s", log)
	}
}
