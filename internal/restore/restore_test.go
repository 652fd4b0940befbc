package restore

import (
	"errors"
	"testing"
)

// TestTableLifecycle drives the id table directly: orphans are answered,
// evicted oldest first, and removed when their exchange fails.
func TestTableLifecycle(t *testing.T) {
	tr := &Table{MaxPending: 3}
	req := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"m"}` }
	record := func(s string) (*Exchange, error) { return tr.Record([]byte(s)) }
	ex1, _ := record(req(`1`))
	ex2, _ := record(req(`"2"`))
	tr.Release(ex1, false) // orphan 1
	tr.Release(ex2, false) // orphan "2"
	tr.Release(ex2, true)  // a second release changes nothing
	if tr.Len() != 2 || tr.orphans.Len() != 2 {
		t.Fatalf("Len %d, orphans %d; want 2, 2", tr.Len(), tr.orphans.Len())
	}
	// Two more ids need one slot: the oldest orphan (1) goes.
	ex3, err := record(`[` + req(`3`) + `,` + req(`4`) + `]`)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.restore([]byte(`"1"`), nil); got != nil {
		t.Errorf("evicted id 1 restored to %s", got)
	}
	if got := tr.restore([]byte(`2`), nil); string(got) != `"2"` {
		t.Errorf("orphan \"2\" restored to %q, want \"2\"", got)
	}
	// Full with requests in flight: refused.
	if _, err := record(`[` + req(`5`) + `,` + req(`6`) + `]`); err == nil {
		t.Errorf("add beyond MaxPending succeeded")
	}
	tr.Release(ex3, true)
	if tr.Len() != 0 || tr.orphans.Len() != 0 {
		t.Errorf("after a failed exchange: Len %d, orphans %d; want 0, 0", tr.Len(), tr.orphans.Len())
	}
	// Equal ids spelled alike: both are answered, one response each.
	exA, _ := record(req(`7`))
	_, _ = record(req(`7`))
	tr.Release(exA, false)
	for i := range 2 {
		if got := tr.restore([]byte(`"7"`), nil); string(got) != `7` {
			t.Errorf("response %d: restored to %q, want 7", i, got)
		}
	}
	if tr.Len() != 0 || tr.orphans.Len() != 0 {
		t.Errorf("Len %d, orphans %d; want 0, 0", tr.Len(), tr.orphans.Len())
	}
	// An in-flight request is preferred to an orphan with another spelling.
	exB, _ := record(req(`"8"`))
	tr.Release(exB, false)
	_, _ = record(req(`8`))
	if got := tr.restore([]byte(`8.0`), nil); string(got) != `8` {
		t.Errorf("restored to %q, want 8 (the request in flight)", got)
	}
	if got := tr.restore([]byte(`8.0`), nil); string(got) != `"8"` {
		t.Errorf("restored to %q, want \"8\" (the orphan)", got)
	}
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
	if _, err := tb.Record([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`)); !errors.Is(err, ErrTooManyPending) {
		t.Errorf("Record of 2 ids with MaxPending 1: error %v, want ErrTooManyPending", err)
	}
	if tb.Len() != 0 {
		t.Errorf("Len = %d after a refused Record, want 0", tb.Len())
	}
}

// TestAmbiguous checks that a response id Equal to ids sent in two
// spellings is left as received, forgets nothing, and is reported.
func TestAmbiguous(t *testing.T) {
	var amb []string
	tb := &Table{OnAmbiguous: func(rcv []byte) { amb = append(amb, string(rcv)) }}
	if _, err := tb.Record([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":1.0,"method":"b"}]`)); err != nil {
		t.Fatal(err)
	}
	in := `{"jsonrpc":"2.0","id":"1","result":{}}`
	out, changed := tb.AppendRestored(nil, []byte(in))
	if string(out) != in || changed {
		t.Errorf("AppendRestored = %s, %v; want the input unchanged", out, changed)
	}
	if len(amb) != 1 || amb[0] != `"1"` {
		t.Errorf("OnAmbiguous calls %q, want [\"1\"]", amb)
	}
	if st := tb.Stats(); st.Ambiguous != 1 || st.Restored != 0 || st.Unmatched != 0 || tb.Len() != 2 {
		t.Errorf("Stats %+v, Len %d; want 1 ambiguous and both ids still remembered", st, tb.Len())
	}
}
