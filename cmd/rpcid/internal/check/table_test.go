package check

import (
	"encoding/json"
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
