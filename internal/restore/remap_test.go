package restore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRemap sends the ids of the bridge matrix through a remapping Table:
// each is sent as a small integer, and its response, in whatever spelling
// of that integer, comes back with the client's bytes.
func TestRemap(t *testing.T) {
	ids := []string{"0", "1", "-1", "42", "9007199254740991", "9007199254740993", "9223372036854775807",
		"18446744073709551616", "1.0", "1.5", "1e2", "-0", "0.1", `"abc"`, `"0"`, `"01"`, `"\u0061"`,
		`"a\/b"`, `"😀"`, `""`, `"` + strings.Repeat("k", 1024) + `"`}
	var logs []string
	tb := &Table{Remap: true,
		OnRemap:   func(c, s []byte) { logs = append(logs, fmt.Sprintf("request %s sent as %s", c, s)) },
		OnRestore: func(r, s []byte) { logs = append(logs, fmt.Sprintf("response %s restored to %s", r, s)) },
	}
	for i, id := range ids {
		req := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call"}`
		out, ex, text, err := tb.AppendRecorded(nil, []byte(req), "")
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call"}`, i+1)
		if err != nil || ex == nil || !text || string(out) != want {
			t.Fatalf("AppendRecorded(%s) = %s, %v, %v, %v; want %s", req, out, ex, text, err, want)
		}
	}
	if tb.Len() != len(ids) || tb.Stats().Remapped != int64(len(ids)) {
		t.Fatalf("Len = %d, Remapped = %d; want %d", tb.Len(), tb.Stats().Remapped, len(ids))
	}
	for i := len(ids) - 1; i >= 0; i-- {
		// A bridge that stringifies the id it got: "n" answers n too.
		got := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d","result":{}}`, i+1)
		if i%2 == 0 {
			got = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d.0,"result":{}}`, i+1)
		}
		out, _ := tb.AppendRestored(nil, []byte(got))
		want := `{"jsonrpc":"2.0","id":` + ids[i] + `,"result":{}}`
		if string(out) != want {
			t.Errorf("AppendRestored(%s) = %s, want %s", got, out, want)
		}
	}
	if tb.Len() != 0 {
		t.Errorf("Len = %d after every response, want 0", tb.Len())
	}
	if logs[5] != "request 9007199254740993 sent as 6" {
		t.Errorf("log %q", logs[5])
	}
	if want := `response "6" restored to 9007199254740993`; logs[len(ids)+len(ids)-6] != want {
		t.Errorf("log %q, want %q", logs[len(ids)+len(ids)-6], want)
	}
}

// TestRemapDuplicatesAndCancel: two requests in flight with one id each get
// an id of their own; a cancel names the one sent last; messages that are
// not requests pass unchanged.
func TestRemapDuplicatesAndCancel(t *testing.T) {
	tb := &Table{Remap: true}
	send, recv := sendRecv(t, tb)
	send(`[{"jsonrpc":"2.0","id":77,"method":"a"},{"jsonrpc":"2.0","id":77,"method":"b"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"x","requestId":77.0}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"x","requestId":2}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":78}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":78}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77,"RequestId":77}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77,"RequestId":77}}`)
	send(`{"jsonrpc":"2.0","id":"s1","result":{}}`, `{"jsonrpc":"2.0","id":"s1","result":{}}`)
	send(`{"jsonrpc":"2.0","id":null,"method":"x"}`, `{"jsonrpc":"2.0","id":null,"method":"x"}`)
	recv(`{"jsonrpc":"2.0","id":"s2","method":"ping"}`, `{"jsonrpc":"2.0","id":"s2","method":"ping"}`)
	recv(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`)
	recv(`{"jsonrpc":"2.0","id":9,"result":{}}`, `{"jsonrpc":"2.0","id":9,"result":{}}`)
	recv(`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`[{"jsonrpc":"2.0","id":77,"result":{}},{"jsonrpc":"2.0","id":77,"result":{}}]`)
	if tb.Len() != 0 {
		t.Errorf("Len = %d, want 0", tb.Len())
	}
	// Subscriptions (MCP 2026-07-28): the server names the listen
	// request's id in its notifications, its cancel and its result.
	send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen"}`, `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen"}`)
	recv(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`)
	recv(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}`)
	recv(`{"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}},"id":3}`,
		`{"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}},"id":"L"}`)
}

// TestRemapRefused: a message whose ids do not fit is not sent; the
// refusal answers each request with its own id.
func TestRemapRefused(t *testing.T) {
	tb := &Table{Remap: true, MaxPending: 1}
	in := `[{"jsonrpc":"2.0","id":1.0,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"x","method":"b"}]`
	_, ex, _, err := tb.AppendRecorded(nil, []byte(in), "")
	if !errors.Is(err, ErrTooManyPending) || ex != nil || tb.Len() != 0 {
		t.Fatalf("AppendRecorded: %v, %v, Len %d; want ErrTooManyPending, nil, 0", ex, err, tb.Len())
	}
	got := string(AppendRefusal(nil, []byte(in), "too many"))
	want := `[{"jsonrpc":"2.0","id":1.0,"error":{"code":-32000,"message":"too many"}},{"jsonrpc":"2.0","id":"x","error":{"code":-32000,"message":"too many"}}]`
	if got != want {
		t.Errorf("AppendRefusal = %s\nwant %s", got, want)
	}
	if got := string(AppendRefusal(nil, []byte(`{"jsonrpc":"2.0","method":"n"}`), "m")); got != "" {
		t.Errorf("AppendRefusal of a notification = %q, want nothing", got)
	}
}

// TestRemapCancelledMakesRoom: a cancelled request that the server never
// answers (as MCP says it should not) is the first forgotten when room is
// needed, so cancels do not fill -max-pending.
func TestRemapCancelledMakesRoom(t *testing.T) {
	tb := &Table{Remap: true, MaxPending: 2}
	for i, in := range []string{
		`{"jsonrpc":"2.0","id":"a","method":"x"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`,
		`{"jsonrpc":"2.0","id":"b","method":"x"}`,
		`{"jsonrpc":"2.0","id":"c","method":"x"}`,
	} {
		if _, _, _, err := tb.AppendRecorded(nil, []byte(in), ""); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if _, _, _, err := tb.AppendRecorded(nil, []byte(`{"jsonrpc":"2.0","id":"d","method":"x"}`), ""); !errors.Is(err, ErrTooManyPending) {
		t.Errorf("a third request in flight: %v, want ErrTooManyPending", err)
	}
	if out, _ := tb.AppendRestored(nil, []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)); string(out) != `{"jsonrpc":"2.0","id":"c","result":{}}` {
		t.Errorf("response 3 = %s, want id \"c\"", out)
	}
}

// FuzzRemap: a remapping Table sends any text as valid JSON exactly when it
// was, changes nothing but ids (and cancels) in it, and restores the answer
// to each request, whatever spelling of its assigned id arrives, to the
// client's bytes.
func FuzzRemap(f *testing.F) {
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1.0,"method":"m"},{"jsonrpc":"2.0","id":"\u0061","method":"m"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":9007199254740993,"method":"m","params":{"_meta":{"progressToken":9007199254740993}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`))
	f.Add([]byte(`not json {"jsonrpc":"2.0","id":1,"method":"m"}`))
	f.Fuzz(func(t *testing.T, reqs []byte) {
		tb := &Table{Remap: true}
		out, ex, text, err := tb.AppendRecorded(nil, reqs, "")
		if err != nil {
			t.Skip() // more than MaxPending ids
		}
		if !text {
			if !bytes.Equal(out, reqs) || ex != nil {
				t.Fatalf("a text that is not JSON changed: %q to %q", reqs, out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q sent as %q, which is not valid JSON", reqs, out)
		}
		if ex == nil {
			return
		}
		for k, r := range ex.recs {
			if !bytes.Contains(out, []byte(fmt.Sprintf(`"id":%d`, k+1))) && !bytes.Contains(out, []byte(fmt.Sprintf(`:%d`, k+1))) {
				t.Fatalf("%q sent as %q, without the id %d", reqs, out, k+1)
			}
			resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d","result":{}}`, k+1)
			want := `{"jsonrpc":"2.0","id":` + string(r.raw) + `,"result":{}}`
			if got, _ := tb.AppendRestored(nil, []byte(resp)); string(got) != want {
				t.Fatalf("%s restored to %s, want %s", resp, got, want)
			}
		}
		if tb.Len() != 0 {
			t.Fatalf("Len = %d after every answer", tb.Len())
		}
	})
}

// TestRemapEndSession: the end of an MCP session forgets its requests, and
// only its.
func TestRemapEndSession(t *testing.T) {
	tb := &Table{Remap: true}
	for _, s := range []string{"s1", "s2", "s1"} {
		ex, err := tb.RecordSession([]byte(`{"jsonrpc":"2.0","id":1,"method":"x"}`), s)
		if err != nil {
			t.Fatal(err)
		}
		tb.Release(ex, false)
	}
	tb.EndSession("")
	tb.EndSession("s1")
	if tb.Len() != 1 {
		t.Fatalf("Len = %d after the end of s1, want 1", tb.Len())
	}
	if out, _ := tb.AppendRestored(nil, []byte(`{"jsonrpc":"2.0","id":2,"result":{}}`)); string(out) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("the request of s2 answered as %s", out)
	}
}

// TestRemapCancelsNameTheirOwnRequests: a client's late cancel, naming a
// request already answered whose id is one the proxy assigned to another
// request in flight, cannot cancel that one; a server's cancel of a request
// of its own passes unchanged even when its id is one the proxy assigned,
// and only a cancel naming a subscriptions/listen request is rewritten.
func TestRemapCancelsNameTheirOwnRequests(t *testing.T) {
	tb := &Table{Remap: true}
	send, recv := sendRecv(t, tb)
	send(`{"jsonrpc":"2.0","id":2,"method":"a"}`, `{"jsonrpc":"2.0","id":1,"method":"a"}`)
	recv(`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	send(`{"jsonrpc":"2.0","id":"x","method":"b"}`, `{"jsonrpc":"2.0","id":2,"method":"b"}`)
	// The client cancels its request 2, answered already: sent as 2, the
	// cancel would name the request "x" is in flight as.
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}`)
	// The server sends a request of its own with id 2, then cancels it.
	recv(`{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage"}`, `{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage"}`)
	recv(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	recv(`{"jsonrpc":"2.0","id":2,"result":{}}`, `{"jsonrpc":"2.0","id":"x","result":{}}`)
	if tb.Len() != 0 {
		t.Errorf("Len = %d, want 0", tb.Len())
	}
}

// sendRecv returns checks of tb: send records a client message and wants
// the bytes sent on; recv restores a server message and wants the bytes
// the client gets.
func sendRecv(t *testing.T, tb *Table) (send, recv func(in, want string)) {
	send = func(in, want string) {
		t.Helper()
		out, _, _, err := tb.AppendRecorded(nil, []byte(in), "")
		if err != nil || string(out) != want {
			t.Errorf("AppendRecorded(%s) = %s, %v; want %s", in, out, err, want)
		}
	}
	recv = func(in, want string) {
		t.Helper()
		if out, _ := tb.AppendRestored(nil, []byte(in)); string(out) != want {
			t.Errorf("AppendRestored(%s) = %s, want %s", in, out, want)
		}
	}
	return send, recv
}
