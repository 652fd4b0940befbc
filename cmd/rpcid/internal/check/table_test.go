package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/rpcidtest"
)

// TestKeyOfIsTheRule checks that check's table key, with its fast paths for
// integers and for strings that spell one, equates exactly the ids that
// rpcid.Equal equates, over every pair of valid ids in the conformance
// vectors; and that setID keeps the spelling of each, which check prints.
// (A fast path once took the string "-0" for the integer 0, which clause 5
// equates with no number.)
func TestKeyOfIsTheRule(t *testing.T) {
	var v struct {
		Decode []struct {
			Raw   string `json:"raw"`
			Valid bool   `json:"valid"`
		} `json:"decode"`
	}
	if err := json.Unmarshal(rpcidtest.VectorsJSON(), &v); err != nil {
		t.Fatal(err)
	}
	var raws []string
	var ids []rpcid.ID
	for _, d := range v.Decode {
		if !d.Valid {
			continue
		}
		id, err := rpcid.Parse([]byte(d.Raw))
		if err != nil {
			t.Fatalf("Parse(%q): %v", d.Raw, err)
		}
		raws, ids = append(raws, d.Raw), append(ids, id)
	}
	// Strings around the fast paths' edges, beside the vectors'.
	for _, raw := range []string{`"-0"`, `"0"`, `"-00"`, `"-01"`, `"-1"`, `"-9223372036854775808"`, `"-9223372036854775809"`, `"9223372036854775807"`, `"9223372036854775808"`, `0`, `-0`, `-1`} {
		id, err := rpcid.Parse([]byte(raw))
		if err != nil {
			t.Fatalf("Parse(%q): %v", raw, err)
		}
		raws, ids = append(raws, raw), append(ids, id)
	}
	if len(ids) < 100 {
		t.Fatalf("only %d valid ids in the vectors", len(ids))
	}
	for i, id := range ids {
		var r request
		setID(&r, id, []byte(raws[i]))
		if got := string(r.raw()); got != raws[i] {
			t.Errorf("setID(%s): raw() = %s, want the id as received", raws[i], got)
		}
		if !r.spelled([]byte(raws[i])) || !rpcid.Equal(r.id(), id) {
			t.Errorf("setID(%s): spelled %v, id() %v: want true, an id Equal to it", raws[i], r.spelled([]byte(raws[i])), r.id())
		}
	}
	for i, a := range ids {
		for j, b := range ids {
			if got, want := keyOf(a) == keyOf(b), rpcid.Equal(a, b); got != want {
				t.Errorf("keyOf(%s) == keyOf(%s) is %v, rpcid.Equal is %v", raws[i], raws[j], got, want)
			}
		}
	}
}

// A JSON Lines session keeps state only for the requests pending and the
// last answeredMax answered: after many more answered requests no more is
// left behind.
func TestSessionStateBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newCapture(c, "x")
	n := answeredMax + 1000
	for i := 0; i < n; i++ {
		s.line(2*i+1, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)))
		s.line(2*i+2, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d","result":{}}`, i)))
	}
	s.line(2*n+1, []byte(`{"jsonrpc":"2.0","id":7.5,"method":"ping"}`))
	sd := &s.t.sides[0]
	if s.t.pending != 1 || sd.len() != answeredMax+1 || len(s.t.slab) != answeredMax+1 || len(sd.js) != 1 || len(s.entryRequests) != 0 {
		t.Errorf("after %d answered requests and one pending: pending %d, index %d, slab %d, js %d, entry requests %d; want 1, %d, %d, 1, 0",
			n, s.t.pending, sd.len(), len(s.t.slab), len(sd.js), len(s.entryRequests), answeredMax+1, answeredMax+1)
	}
	if c.warnings != n+1 || c.errors != 0 {
		t.Errorf("%d warnings, %d errors; want %d type changes, one fractional id and no errors", c.warnings, c.errors, n+1)
	}
}

// Answered requests with long ids are forgotten by the bytes they hold, not
// only by their number: 300 answered requests with ids of 1 MiB keep at most
// answeredBytesMax bytes, and a second answer to a recent one is still
// recognized.
func TestAnsweredBytesBounded(t *testing.T) {
	var out bytes.Buffer
	c := &checker{w: bufio.NewWriter(&out), otherEvents: map[string]int{}}
	s := newCapture(c, "x")
	long := strings.Repeat("x", 1<<20)
	const n = 300
	for i := 0; i < n; i++ {
		id := fmt.Sprintf(`"%s%d"`, long, i)
		s.line(2*i+1, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`))
		s.line(2*i+2, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`))
	}
	g := s.t.ring
	if g.bytes > answeredBytesMax || g.n < answeredBytesMax/(len(long)+4)-1 || g.n >= n {
		t.Errorf("after %d answered requests with 1 MiB ids: %d remembered, %d bytes; want at most %d bytes, about %d requests",
			n, g.n, g.bytes, answeredBytesMax, answeredBytesMax/(len(long)+4))
	}
	held := 0
	for i := range s.t.slab {
		held += len(s.t.slab[i].text)
	}
	if held != g.bytes {
		t.Errorf("the table holds %d bytes of ids, the ring counts %d", held, g.bytes)
	}
	id := fmt.Sprintf(`"%s%d"`, long, n-1)
	s.line(2*n+1, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`))
	c.w.Flush()
	if c.errors != 1 || !strings.Contains(out.String(), "is a second answer") {
		t.Errorf("a second answer to the last request: %d errors, output %q", c.errors, out.String())
	}
}
