package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNamesMethod(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"Method not found: notifications/initialized", "notifications/initialized", true},
		{"notifications/initialized", "notifications/initialized", true},
		{"Method 'notifications/initialized' not found.", "notifications/initialized", true},
		{"Method not found: notifications/initialized2", "notifications/initialized", false},
		{"Method not found: notifications/initialized/x", "notifications/initialized", false},
		{"Method not found: x-notifications/initialized", "notifications/initialized", false},
		{"Method not found", "notifications/initialized", false},
		// The second occurrence stands alone.
		{"pings ping", "ping", true},
		{"pings", "ping", false},
	} {
		if got := namesMethod(c.text, c.name); got != c.want {
			t.Errorf("namesMethod(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}

// A side remembers the latest notification of each method, at most
// noticesMax of them: a null-id error naming a method forgotten since is
// put to the latest notification, and not called its answer.
func TestNoticesBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newSession(c, "x")
	line := 0
	for i := 0; i < 100; i++ {
		line++
		s.line(line, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"n/%d"}`, i)))
		line++
		s.line(line, []byte(`{"jsonrpc":"2.0","method":"n/5"}`)) // moved to the end each time
	}
	ns := s.t.sides[0].notices
	if len(ns) != noticesMax || ns[len(ns)-1].name != "n/5" || ns[len(ns)-1].pos != int64(line) || ns[0].name != "n/85" {
		t.Fatalf("notices: %d, last %+v, first %+v; want %d, n/5 at %d, n/85", len(ns), ns[len(ns)-1], ns[0], noticesMax, line)
	}
	var got []string
	for _, m := range []string{"n/3", "n/90"} {
		var b strings.Builder
		c.w = bufio.NewWriter(&b)
		line++
		s.line(line, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found: `+m+`"}}`))
		c.w.Flush()
		got = append(got, b.String())
	}
	want := []string{
		fmt.Sprintf("x:%d: error: response with a null id (error -32601: Method not found: n/3): an answer to a notification, which JSON-RPC forbids (the latest: n/5 at line %d), or the peer read a request and dropped its id (only a parse error, -32700, or an invalid request, -32600, excuses a null id)\n", line-1, line-2),
		fmt.Sprintf("x:%d: error: response with a null id (error -32601: Method not found: n/90): likely an answer to notification n/90 (line %d), whose method its error message names; JSON-RPC forbids answering a notification, and only a parse error (-32700) or an invalid request (-32600) excuses a null id\n", line, 181),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
