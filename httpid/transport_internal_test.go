package httpid

import (
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/rpcid/rpcid/internal/restore"
)

func TestParseMediaType(t *testing.T) {
	tests := []struct{ in, want string }{
		{"application/json", "application/json"},
		{"Application/JSON", "Application/JSON"},
		{"application/json; charset=utf-8", "application/json"},
		{" application/json ;charset=utf-8", "application/json"},
		{"\tapplication/vnd.api+json\t", "application/vnd.api+json"},
		{"application/json;", "application/json"},
		{"text/event-stream", "text/event-stream"},
		{"", ""},
		{"application", ""},
		{"application/", ""},
		{"/json", ""},
		{"application/json/x", ""},
		{"application /json", ""},
		{"application/js on", ""},
		{"application/js\x7fon", ""},
		{"application/js\x00on", ""},
		{"application/jsön", ""},
		{"application/json\"", ""},
		{"appli(cation/json", ""},
		{"application/[json]", ""},
		{"application/json=1", ""},
		{"application/json?", ""},
		{"application/json\\", ""},
		{"a/b", "a/b"},
		{"!#$%&'*+-.^_`{|}~/x", "!#$%&'*+-.^_`{|}~/x"},
	}
	for _, tt := range tests {
		if got := parseMediaType(tt.in); got != tt.want {
			t.Errorf("parseMediaType(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestParseMediaTypeMime checks parseMediaType against mime.ParseMediaType
// for every ASCII value built from a few pieces: where mime finds a
// type/subtype, parseMediaType returns it as written, and otherwise "".
// (mime also accepts a type without a subtype, which is no media type of a
// body, and lowercases non-ASCII letters such as the Kelvin sign into ASCII
// ones; parseMediaType accepts neither.)
func TestParseMediaTypeMime(t *testing.T) {
	pieces := []string{"", "a", "J", "/", ";", " ", "\t", "+", "=", "\"", "(", "\x7f", "\x01", "@", "x=y", ".", "~"}
	var build func(prefix string, depth int)
	n := 0
	build = func(v string, depth int) {
		n++
		got := parseMediaType(v)
		mt, _, err := mime.ParseMediaType(v)
		if err != nil && err != mime.ErrInvalidMediaParameter {
			mt = ""
		}
		if !strings.Contains(mt, "/") {
			mt = ""
		}
		if strings.ToLower(got) != mt {
			t.Errorf("parseMediaType(%q) = %q; mime.ParseMediaType finds %q", v, got, mt)
		}
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			if p != "" {
				build(v+p, depth-1)
			}
		}
	}
	depth := 5
	if testing.Short() {
		depth = 4
	}
	build("", depth)
	for _, base := range []string{"application/json", "text/event-stream", "application/x-ndjson"} {
		for _, p := range pieces {
			for _, q := range pieces {
				build(p+base+q, 0)
				build(base[:5]+p+base[5:]+q, 0)
			}
		}
	}
	t.Logf("%d values", n)
}

// The documented default is the one the Table behind a Transport applies.
func TestDefaultMaxPending(t *testing.T) {
	if DefaultMaxPending != restore.DefaultMaxPending {
		t.Errorf("DefaultMaxPending = %d, restore.DefaultMaxPending = %d", DefaultMaxPending, restore.DefaultMaxPending)
	}
}

// TestResponseRequest checks that a response's Request is the caller's
// request, as without httpid, and not the copy RoundTrip sent with the body
// it read.
func TestResponseRequest(t *testing.T) {
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body := `{"jsonrpc":"2.0","id":"1","result":{}}`
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
	})
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, ""} {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		resp, err := (&Transport{Base: base}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Request != req {
			t.Errorf("body %q: resp.Request is %p, want the caller's request %p", body, resp.Request, req)
		}
		if body != "" && !strings.Contains(string(got), `"id":1`) {
			t.Errorf("id not restored: %s", got)
		}
	}
}
