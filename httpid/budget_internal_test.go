package httpid

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcid/rpcid/internal/restore"
)

// A body that declares 16 MiB and has sent one byte holds a read buffer,
// not 16 MiB: memory follows the bytes received.
func TestReadBodyFollowsBytes(t *testing.T) {
	for _, tc := range []struct {
		size     int64
		body     string
		maxCap   int
		wantData string
	}{
		{16<<20 - 1, "{", firstRead, "{"},
		{-1, "{", 512, "{"},
		{5, "12345", 6, "12345"},
		{100 << 10, strings.Repeat("x", 100<<10), 100<<10 + 1, strings.Repeat("x", 100<<10)},
		{-1, strings.Repeat("x", 100<<10), 128 << 10, strings.Repeat("x", 100<<10)},
	} {
		data, taken, err := readBody(nil, io.NopCloser(&oneByteReads{s: tc.body}), tc.size, DefaultMaxMessageSize, nil)
		if err != nil || string(data) != tc.wantData {
			t.Errorf("size %d: read %d bytes, %v; want %d bytes", tc.size, len(data), err, len(tc.wantData))
		}
		if cap(data) > tc.maxCap || taken != cap(data) {
			t.Errorf("size %d, %d bytes: cap %d, taken %d; want cap at most %d, taken = cap", tc.size, len(tc.body), cap(data), taken, tc.maxCap)
		}
	}
}

// oneByteReads reads its string one byte at a time, as a slow client sends.
type oneByteReads struct{ s string }

func (r *oneByteReads) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}

// readBody takes its buffers from the budget while it holds them, and
// fails when the budget has no room, taking nothing.
func TestReadBodyBudget(t *testing.T) {
	b := restore.NewBudget(96 << 10) // room for one 40 KiB body as it grows (32 KiB and 40 KiB at once), not two
	body := strings.Repeat("x", 40<<10)
	data, taken, err := readBody(nil, io.NopCloser(strings.NewReader(body)), int64(len(body)), DefaultMaxMessageSize, b)
	if err != nil || len(data) != len(body) || b.Used() != int64(taken) || taken < len(body) {
		t.Fatalf("read %d bytes, %v; taken %d, used %d", len(data), err, taken, b.Used())
	}
	_, taken2, err := readBody(nil, io.NopCloser(strings.NewReader(body)), int64(len(body)), DefaultMaxMessageSize, b)
	if !errors.Is(err, restore.ErrBudget) || taken2 != 0 || b.Used() != int64(taken) {
		t.Errorf("second body past the budget: %v, taken %d, used %d; want ErrBudget, 0, %d", err, taken2, b.Used(), taken)
	}
	b.Give(taken)
	if b.Used() != 0 {
		t.Errorf("used %d after giving all back", b.Used())
	}
}

func TestURLSession(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"sessionId=abc", "url sessionId=abc"},
		{"token=x&session_id=9f", "url session_id=9f"},
		{"SESSIONID=1&sessionId=2", "url SESSIONID=1"},
		{"sessionid=", "url sessionid="},
		{"session=abc", ""},
		{"xsessionId=abc", ""},
		{"", ""},
	} {
		if got := urlSession(tc.query); got != tc.want {
			t.Errorf("urlSession(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// Events and streamed JSON texts held while they arrive are charged to the
// budget: one that does not fit passes unexamined, as one longer than
// MaxMessageSize does, and everything is given back when the body ends.
func TestStreamedBodiesBudget(t *testing.T) {
	long := strings.Repeat("x", 20<<10)
	for _, tc := range []struct{ contentType, small, large string }{
		{"text/event-stream", "data: %s\n\n", "data: %s\n\n"},
		{"application/json", "%s\n", "%s\n"},
	} {
		t.Run(tc.contentType, func(t *testing.T) {
			res := func(id, text string) string {
				return `{"jsonrpc":"2.0","id":` + id + `,"result":"` + text + `"}`
			}
			body := fmt.Sprintf(tc.small, res(`"1"`, "a")) + fmt.Sprintf(tc.large, res(`"2"`, long)) + fmt.Sprintf(tc.small, res(`"3"`, "b"))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				for i := 0; i < len(body); i += 1000 {
					io.WriteString(w, body[i:min(i+1000, len(body))])
					w.(http.Flusher).Flush()
				}
			}))
			defer srv.Close()
			tr := &Transport{}
			budget := restore.NewBudget(8 << 10)
			tr.ids().Budget = budget
			c := &http.Client{Transport: tr}
			for _, id := range []string{"1", "2", "3"} {
				if _, err := tr.ids().Record([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"m"}`)); err != nil {
					t.Fatal(err)
				}
			}
			resp, err := c.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := fmt.Sprintf(tc.small, res(`1`, "a")) + fmt.Sprintf(tc.large, res(`"2"`, long)) + fmt.Sprintf(tc.small, res(`3`, "b"))
			if err != nil || string(got) != want {
				t.Errorf("read %d bytes ending %q (%v), want %d ending %q", len(got), got[max(0, len(got)-120):], err, len(want), want[len(want)-120:])
			}
			if n := budget.Used(); n != 0 {
				t.Errorf("%d bytes still charged after the body ended", n)
			}
		})
	}
}
