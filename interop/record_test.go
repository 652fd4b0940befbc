package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

var record = flag.Bool("record", false, "write the gateway traffic of TestRecordGoSDKGateway to ../cmd/rpcid/internal/check/testdata")

// recordDir is where -record writes, relative to this package.
var recordDir = filepath.Join("..", "cmd", "rpcid", "testdata")

const (
	harFile   = "recorded-gosdk-gateway.har"
	jsonlFile = "recorded-gosdk-gateway.jsonl"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the fields
// this recorder writes. No HAR library is on the Go module proxy that is both
// maintained and small, and the format is a handful of structs.
type (
	harFileJSON struct {
		Log harLog `json:"log"`
	}
	harLog struct {
		Version string     `json:"version"`
		Creator harCreator `json:"creator"`
		Entries []harEntry `json:"entries"`
		Comment string     `json:"comment,omitempty"`
	}
	harCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	harEntry struct {
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"` // milliseconds
		Request         harRequest  `json:"request"`
		Response        harResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         harTimings  `json:"timings"`
	}
	harRequest struct {
		Method      string       `json:"method"`
		URL         string       `json:"url"`
		HTTPVersion string       `json:"httpVersion"`
		Cookies     []harNV      `json:"cookies"`
		Headers     []harNV      `json:"headers"`
		QueryString []harNV      `json:"queryString"`
		PostData    *harPostData `json:"postData,omitempty"`
		HeadersSize int          `json:"headersSize"`
		BodySize    int          `json:"bodySize"`
	}
	harPostData struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	harResponse struct {
		Status      int        `json:"status"`
		StatusText  string     `json:"statusText"`
		HTTPVersion string     `json:"httpVersion"`
		Cookies     []harNV    `json:"cookies"`
		Headers     []harNV    `json:"headers"`
		Content     harContent `json:"content"`
		RedirectURL string     `json:"redirectURL"`
		HeadersSize int        `json:"headersSize"`
		BodySize    int        `json:"bodySize"`
	}
	harContent struct {
		Size     int    `json:"size"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text,omitempty"`
		Encoding string `json:"encoding,omitempty"`
	}
	harTimings struct {
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
	}
	harNV struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
)

// A recorder keeps a gateway's traffic: every HTTP exchange for the HAR
// file, and every JSON-RPC message for the JSON Lines file, both as the
// client sees them (responses after the gateway changed them). A nil
// *recorder records nothing.
type recorder struct {
	mu      sync.Mutex
	entries []*entry
	lines   [][]byte
}

// An entry is one HTTP exchange.
type entry struct {
	start, headers, end time.Time
	req                 *http.Request
	reqBody             []byte
	status              int
	respHeader          http.Header
	respProto           string
	respBody            bytes.Buffer
}

type entryKey struct{}

func withEntry(ctx context.Context, e *entry) context.Context {
	return context.WithValue(ctx, entryKey{}, e)
}

func entryFrom(ctx context.Context) *entry {
	e, _ := ctx.Value(entryKey{}).(*entry)
	return e
}

// begin records a request the gateway received, with its body.
func (r *recorder) begin(req *http.Request, body []byte) *entry {
	if r == nil {
		return nil
	}
	e := &entry{start: time.Now(), req: req, reqBody: body}
	r.mu.Lock()
	r.entries = append(r.entries, e)
	r.mu.Unlock()
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt == "application/json" && len(body) > 0 {
		r.message(e, '>', body)
	}
	return e
}

// respond records the response headers and arranges for the body to be
// recorded as the client reads it.
func (r *recorder) respond(e *entry, resp *http.Response) {
	if r == nil || e == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e.headers = time.Now()
	e.status = resp.StatusCode
	e.respHeader = resp.Header.Clone()
	e.respProto = resp.Proto
	resp.Body = &capture{r: r, e: e, rc: resp.Body}
}

// end records the end of an exchange.
func (r *recorder) end(e *entry) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e.end = time.Now()
}

// message records one JSON-RPC message or batch sent by the client (dir '>')
// or to it ('<'). Data that is not JSON is not recorded.
func (r *recorder) message(e *entry, dir byte, data []byte) {
	if r == nil || !json.Valid(data) {
		return
	}
	line := []byte{dir, ' '}
	if bytes.ContainsAny(data, "\r\n") {
		var b bytes.Buffer
		json.Compact(&b, data)
		data = b.Bytes()
	}
	line = append(line, data...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
}

type capture struct {
	r  *recorder
	e  *entry
	rc io.ReadCloser
}

func (c *capture) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	c.r.mu.Lock()
	c.e.respBody.Write(p[:n])
	c.r.mu.Unlock()
	return n, err
}

func (c *capture) Close() error { return c.rc.Close() }

// har returns the recorded exchanges as a HAR 1.2 log.
func (r *recorder) har() harFileJSON {
	r.mu.Lock()
	defer r.mu.Unlock()
	log := harLog{
		Version: "1.2",
		Creator: harCreator{Name: "rpcid interop gateway recorder", Version: "1"},
		Comment: "go-sdk v1.8.0 client (with httpid.Transport) and server, stateful, text/event-stream responses, " +
			"through a gateway that turns numeric JSON-RPC ids into strings; recorded at the gateway, as the client saw it",
		Entries: []harEntry{},
	}
	for _, e := range r.entries {
		log.Entries = append(log.Entries, e.har())
	}
	return harFileJSON{Log: log}
}

func (e *entry) har() harEntry {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	req := harRequest{
		Method:      e.req.Method,
		URL:         "http://" + e.req.Host + e.req.URL.RequestURI(),
		HTTPVersion: e.req.Proto,
		Cookies:     []harNV{},
		Headers:     harHeaders(e.req.Header),
		QueryString: []harNV{},
		HeadersSize: -1,
		BodySize:    len(e.reqBody),
	}
	for k, vs := range e.req.URL.Query() {
		for _, v := range vs {
			req.QueryString = append(req.QueryString, harNV{k, v})
		}
	}
	if len(e.reqBody) > 0 {
		req.PostData = &harPostData{MimeType: e.req.Header.Get("Content-Type"), Text: string(e.reqBody)}
	}
	body := e.respBody.Bytes()
	content := harContent{Size: len(body), MimeType: e.respHeader.Get("Content-Type")}
	if utf8.Valid(body) {
		content.Text = string(body)
	} else {
		content.Text = base64.StdEncoding.EncodeToString(body)
		content.Encoding = "base64"
	}
	headers := e.headers
	if headers.IsZero() {
		headers = e.end
	}
	return harEntry{
		StartedDateTime: e.start.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Time:            ms(e.end.Sub(e.start)),
		Request:         req,
		Response: harResponse{
			Status:      e.status,
			StatusText:  http.StatusText(e.status),
			HTTPVersion: e.respProto,
			Cookies:     []harNV{},
			Headers:     harHeaders(e.respHeader),
			Content:     content,
			RedirectURL: "",
			HeadersSize: -1,
			BodySize:    len(body),
		},
		Timings: harTimings{Send: 0, Wait: ms(headers.Sub(e.start)), Receive: ms(e.end.Sub(headers))},
	}
}

func harHeaders(h http.Header) []harNV {
	out := []harNV{}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, v := range h[k] {
			out = append(out, harNV{k, v})
		}
	}
	return out
}

// write writes the HAR and JSON Lines files into dir.
func (r *recorder) write(dir string) error {
	har, err := json.MarshalIndent(r.har(), "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, harFile), append(har, '\n'), 0o644); err != nil {
		return err
	}
	r.mu.Lock()
	jsonl := append(bytes.Join(r.lines, []byte("\n")), '\n')
	r.mu.Unlock()
	return os.WriteFile(filepath.Join(dir, jsonlFile), jsonl, 0o644)
}

// TestRecordGoSDKGateway records one go-sdk session (client with
// httpid.Transport, stateful server, event-stream responses) through the
// stringifying gateway. With -record it writes the files into
// ../cmd/rpcid/internal/check/testdata; otherwise into a temporary directory, and checks
// them like the committed ones.
func TestRecordGoSDKGateway(t *testing.T) {
	dir := t.TempDir()
	if *record {
		dir = recordDir
	}
	srv := startServer(t, modes[0])
	rec := &recorder{}
	g := newGateway(t, srv.URL, stringify, rec)
	hc, _ := httpidClient()
	if r := runSession(g, func(ctx context.Context) error {
		return goSDKSession(ctx, g.URL, hc)
	}); r.err != nil || !r.changed {
		t.Fatalf("session: %v (gateway changed ids: %v)", r.err, r.changed)
	}
	hc.CloseIdleConnections()
	// Wait for the gateway to finish every exchange (the standalone event
	// stream ends when the session is deleted).
	deadline := time.Now().Add(wait)
	for {
		rec.mu.Lock()
		var open []string
		for _, e := range rec.entries {
			if e.end.IsZero() {
				open = append(open, fmt.Sprintf("%s %s (status %d, started %v after the first)",
					e.req.Method, e.req.URL, e.status, e.start.Sub(rec.entries[0].start).Round(time.Millisecond)))
			}
		}
		rec.mu.Unlock()
		if len(open) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d exchanges still open %v after the session: %s", len(open), wait, strings.Join(open, "; "))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := rec.write(dir); err != nil {
		t.Fatal(err)
	}
	checkRecording(t, dir)
}

// TestRecordedFiles checks the committed recording.
func TestRecordedFiles(t *testing.T) {
	if _, err := os.Stat(filepath.Join(recordDir, harFile)); err != nil {
		t.Skipf("no committed recording: %v", err)
	}
	checkRecording(t, recordDir)
}

// checkRecording checks the HAR and JSON Lines files in dir: HAR 1.2 fields
// present, every message line marked, and the traffic what the session did
// (two tools/call requests answered with string ids by the gateway).
func checkRecording(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, harFile))
	if err != nil {
		t.Fatal(err)
	}
	var har harFileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&har); err != nil {
		t.Fatalf("%s: %v", harFile, err)
	}
	if har.Log.Version != "1.2" || har.Log.Creator.Name == "" || len(har.Log.Entries) == 0 {
		t.Fatalf("%s: version %q, creator %q, %d entries", harFile, har.Log.Version, har.Log.Creator.Name, len(har.Log.Entries))
	}
	methods := map[string]int{}
	var sse, posts int
	for i, e := range har.Log.Entries {
		if _, err := time.Parse(time.RFC3339Nano, e.StartedDateTime); err != nil {
			t.Errorf("entry %d: startedDateTime: %v", i+1, err)
		}
		if e.Request.Method == http.MethodPost {
			posts++
			if e.Request.PostData == nil || !json.Valid([]byte(e.Request.PostData.Text)) {
				t.Errorf("entry %d: POST without a JSON postData.text", i+1)
			}
		}
		if e.Response.Status == 0 || e.Response.HTTPVersion == "" {
			t.Errorf("entry %d: response status %d, httpVersion %q", i+1, e.Response.Status, e.Response.HTTPVersion)
		}
		if e.Response.Content.Encoding != "" && e.Response.Content.Encoding != "base64" {
			t.Errorf("entry %d: content encoding %q", i+1, e.Response.Content.Encoding)
		}
		if strings.HasPrefix(e.Response.Content.MimeType, "text/event-stream") {
			sse++
		}
	}
	if posts < 4 || sse == 0 {
		t.Errorf("%s: %d POSTs and %d event streams; want a whole session", harFile, posts, sse)
	}

	f, err := os.Open(filepath.Join(dir, jsonlFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	stringIDs := 0
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		dir, msg, ok := strings.Cut(line, " ")
		if !ok || (dir != ">" && dir != "<") || !json.Valid([]byte(msg)) {
			t.Errorf("%s:%d: not a marked JSON message: %.80q", jsonlFile, n, line)
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(msg), &m) == nil {
			if dir == ">" && m.Method != "" {
				methods[m.Method]++
			}
			if dir == "<" && len(m.ID) > 0 && m.ID[0] == '"' {
				stringIDs++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if methods["tools/call"] != 2 || stringIDs < 3 {
		t.Errorf("%s: requests %v and %d responses with string ids; want 2 tools/call and their answers", jsonlFile, methods, stringIDs)
	}
}
