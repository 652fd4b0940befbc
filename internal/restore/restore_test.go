package restore

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// TestTableLifecycle drives the id table directly: orphans are answered,
// evicted oldest first, and removed when their exchange fails.
func TestTableLifecycle(t *testing.T) {
	tr := &Table{MaxPending: 3}
	ids := func(s string) []sentID { return requestIDs([]byte(s)) }
	ex1, _ := tr.add(ids(`{"id":1,"method":"m"}`))
	ex2, _ := tr.add(ids(`{"id":"2","method":"m"}`))
	tr.Release(ex1, false) // orphan 1
	tr.Release(ex2, false) // orphan "2"
	tr.Release(ex2, true)  // a second release changes nothing
	if tr.Len() != 2 || tr.orphans.Len() != 2 {
		t.Fatalf("Len %d, orphans %d; want 2, 2", tr.Len(), tr.orphans.Len())
	}
	// Two more ids need one slot: the oldest orphan (1) goes.
	ex3, err := tr.add(ids(`[{"id":3,"method":"m"},{"id":4,"method":"m"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.restore([]byte(`"1"`)); got != nil {
		t.Errorf("evicted id 1 restored to %s", got)
	}
	if got := tr.restore([]byte(`2`)); string(got) != `"2"` {
		t.Errorf("orphan \"2\" restored to %q, want \"2\"", got)
	}
	// Full with requests in flight: refused.
	if _, err := tr.add(ids(`[{"id":5,"method":"m"},{"id":6,"method":"m"}]`)); err == nil {
		t.Errorf("add beyond MaxPending succeeded")
	}
	tr.Release(ex3, true)
	if tr.Len() != 0 || tr.orphans.Len() != 0 {
		t.Errorf("after a failed exchange: Len %d, orphans %d; want 0, 0", tr.Len(), tr.orphans.Len())
	}
	// Equal ids spelled alike: both are answered, one response each.
	exA, _ := tr.add(ids(`{"id":7,"method":"m"}`))
	_, _ = tr.add(ids(`{"id":7,"method":"m"}`))
	tr.Release(exA, false)
	for i := range 2 {
		if got := tr.restore([]byte(`"7"`)); string(got) != `7` {
			t.Errorf("response %d: restored to %q, want 7", i, got)
		}
	}
	if tr.Len() != 0 || tr.orphans.Len() != 0 {
		t.Errorf("Len %d, orphans %d; want 0, 0", tr.Len(), tr.orphans.Len())
	}
	// An in-flight request is preferred to an orphan with another spelling.
	exB, _ := tr.add(ids(`{"id":"8","method":"m"}`))
	tr.Release(exB, false)
	_, _ = tr.add(ids(`{"id":8,"method":"m"}`))
	if got := tr.restore([]byte(`8.0`)); string(got) != `8` {
		t.Errorf("restored to %q, want 8 (the request in flight)", got)
	}
	if got := tr.restore([]byte(`8.0`)); string(got) != `"8"` {
		t.Errorf("restored to %q, want \"8\" (the orphan)", got)
	}
}

// FuzzScanIDs checks scanIDs against encoding/json: accepted input is valid
// JSON, and every span is a valid JSON value inside the input.
func FuzzScanIDs(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":"1","result":{}}`))
	f.Add([]byte(`[{"id":1,"method":"m"},{"id":2,"result":[]}]`))
	f.Add([]byte(` {"id" : {"a":1}, "error":null} `))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []kind{requests, responses} {
			spans, ok := scanIDs(nil, data, k)
			if ok != json.Valid(data) && ok {
				t.Fatalf("scanIDs accepted invalid JSON %q", data)
			}
			last := 0
			for _, sp := range spans {
				if sp.start < last || sp.end <= sp.start || sp.end > len(data) {
					t.Fatalf("bad span %v in %q", sp, data)
				}
				if v := data[sp.start:sp.end]; !json.Valid(v) || len(bytes.TrimSpace(v)) != len(v) {
					t.Fatalf("span %v of %q is %q, not a JSON value", sp, data, v)
				}
				last = sp.end
			}
		}
	})
}

func TestAppendRestored(t *testing.T) {
	var restored, unmatched []string
	tb := &Table{
		OnRestore:   func(rcv, sent []byte) { restored = append(restored, string(rcv)+"->"+string(sent)) },
		OnUnmatched: func(rcv []byte) { unmatched = append(unmatched, string(rcv)) },
	}
	if _, err := tb.Record([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":"x","method":"b"},{"jsonrpc":"2.0","method":"n"}]`)); err != nil {
		t.Fatal(err)
	}
	in := `[{"jsonrpc":"2.0","id":"1","result":{"id":"1"}},{"jsonrpc":"2.0","id":"x","result":2},{"jsonrpc":"2.0","id":9,"result":3},{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}]`
	out, changed := tb.AppendRestored([]byte("prefix:"), []byte(in))
	want := `prefix:[{"jsonrpc":"2.0","id":1,"result":{"id":"1"}},{"jsonrpc":"2.0","id":"x","result":2},{"jsonrpc":"2.0","id":9,"result":3},{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}]`
	if string(out) != want || !changed {
		t.Errorf("AppendRestored = %s, %v\nwant %s, true", out, changed, want)
	}
	if len(restored) != 1 || restored[0] != `"1"->1` {
		t.Errorf("OnRestore calls %q, want [\"1\"->1]", restored)
	}
	if len(unmatched) != 1 || unmatched[0] != `9` {
		t.Errorf("OnUnmatched calls %q, want [9]", unmatched)
	}
	if got, want := tb.Stats(), (Stats{Requests: 2, Responses: 4, Restored: 1, Unmatched: 1}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	if tb.Len() != 0 {
		t.Errorf("Len = %d after both answers, want 0", tb.Len())
	}
	// Nothing left to restore: the text comes back unchanged.
	out, changed = tb.AppendRestored(nil, []byte(in))
	if string(out) != in || changed {
		t.Errorf("second AppendRestored = %s, %v; want the input, false", out, changed)
	}
}

func TestRecordTooMany(t *testing.T) {
	tb := &Table{MaxPending: 1}
	if _, err := tb.Record([]byte(`[{"id":1,"method":"a"},{"id":2,"method":"b"}]`)); !errors.Is(err, ErrTooManyPending) {
		t.Errorf("Record of 2 ids with MaxPending 1: error %v, want ErrTooManyPending", err)
	}
	if tb.Len() != 0 {
		t.Errorf("Len = %d after a refused Record, want 0", tb.Len())
	}
}
