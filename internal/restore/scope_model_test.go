package restore

import (
	"bytes"
	"testing"

	"github.com/rpcid/rpcid"
	"pgregory.net/rapid"
)

// modelRecord is a request id as the reference model of scoped matching
// keeps it.
type modelRecord struct {
	ex      int // the exchange that sent it
	session string
	raw     string
	orphan  bool
}

// modelChoose is the matching rule of Table's doc, written plainly: among
// the records Equal to raw, the first group (the exchange ex, its session,
// all) that holds any decides; within it an exact spelling (in flight
// first), then the one spelling in flight, then the one among orphans.
// It returns the index chosen in recs (in the order sent), or -1 for none
// or ambiguous, and whether there was an Equal record at all.
func modelChoose(recs []modelRecord, raw string, scoped bool, ex int, session string) (int, bool) {
	id := rpcid.MustParse(raw)
	var equal []int
	for i, r := range recs {
		if rpcid.Equal(rpcid.MustParse(r.raw), id) {
			equal = append(equal, i)
		}
	}
	if len(equal) == 0 {
		return -1, false
	}
	groups := []func(modelRecord) bool{func(modelRecord) bool { return true }}
	if scoped {
		groups = []func(modelRecord) bool{
			func(r modelRecord) bool { return ex >= 0 && r.ex == ex },
			func(r modelRecord) bool { return session != "" && r.session == session },
			groups[0],
		}
	}
	for _, in := range groups {
		var g []int
		for _, i := range equal {
			if in(recs[i]) {
				g = append(g, i)
			}
		}
		if len(g) == 0 {
			continue
		}
		for _, orphan := range []bool{false, true} {
			for _, i := range g {
				if recs[i].raw == raw && recs[i].orphan == orphan {
					return i, true
				}
			}
		}
		for _, orphan := range []bool{false, true} {
			pick := -1
			for _, i := range g {
				if recs[i].orphan != orphan {
					continue
				}
				if pick < 0 {
					pick = i
				} else if recs[i].raw != recs[pick].raw {
					return -1, true
				}
			}
			if pick >= 0 {
				return pick, true
			}
		}
	}
	return -1, true
}

// TestScopeModel drives a Table with random exchanges (ids in several Equal
// spellings, sessions, batches), releases and responses in random scopes,
// and compares every restored body and Len with modelChoose.
func TestScopeModel(t *testing.T) {
	spellings := []string{`1`, `"1"`, `1.0`, `2`, `"2"`}
	sessions := []string{"", "a", "b"}
	rapid.Check(t, func(rt *rapid.T) {
		tb := &Table{}
		var recs []modelRecord
		var exs []*Exchange
		var exSession []string
		released := map[int]bool{}
		rt.Repeat(map[string]func(*rapid.T){
			"record": func(rt *rapid.T) {
				ids := rapid.SliceOfN(rapid.SampledFrom(spellings), 1, 3).Draw(rt, "ids")
				session := rapid.SampledFrom(sessions).Draw(rt, "session")
				var data []byte
				if len(ids) > 1 {
					data = append(data, '[')
				}
				for i, id := range ids {
					if i > 0 {
						data = append(data, ',')
					}
					data = append(data, request(id)...)
				}
				if len(ids) > 1 {
					data = append(data, ']')
				}
				ex, err := tb.RecordSession(data, session)
				if err != nil {
					rt.Fatal(err)
				}
				for _, id := range ids {
					recs = append(recs, modelRecord{ex: len(exs), session: session, raw: id})
				}
				exs = append(exs, ex)
				exSession = append(exSession, session)
			},
			"release": func(rt *rapid.T) {
				if len(exs) == 0 {
					rt.Skip("no exchange")
				}
				i := rapid.IntRange(0, len(exs)-1).Draw(rt, "exchange")
				failed := rapid.Bool().Draw(rt, "failed")
				tb.Release(exs[i], failed)
				if released[i] {
					return
				}
				released[i] = true
				kept := recs[:0]
				for _, r := range recs {
					if r.ex == i {
						if failed {
							continue
						}
						r.orphan = true
					}
					kept = append(kept, r)
				}
				recs = kept
			},
			"respond": func(rt *rapid.T) {
				raw := rapid.SampledFrom(append(spellings, `1e0`, `"3"`)).Draw(rt, "id")
				kind := rapid.SampledFrom([]string{"exchange", "get", "none"}).Draw(rt, "scope")
				ex, session, scoped := -1, "", kind != "none"
				var out []byte
				in := []byte(response(raw))
				switch kind {
				case "exchange":
					if len(exs) == 0 {
						rt.Skip("no exchange")
					}
					ex = rapid.IntRange(0, len(exs)-1).Draw(rt, "exchange")
					session = exSession[ex]
					out, _ = tb.Scope(exs[ex], session).AppendRestored(nil, in)
				case "get":
					session = rapid.SampledFrom(sessions).Draw(rt, "session")
					out, _ = tb.Scope(nil, session).AppendRestored(nil, in)
				default:
					out, _ = tb.AppendRestored(nil, in)
				}
				want := in
				if i, _ := modelChoose(recs, raw, scoped, ex, session); i >= 0 {
					want = []byte(response(recs[i].raw))
					recs = append(recs[:i], recs[i+1:]...)
				}
				if !bytes.Equal(out, want) {
					rt.Fatalf("response %s in scope %s (exchange %d, session %q): got %s, want %s; model %v", raw, kind, ex, session, out, want, recs)
				}
			},
			"": func(rt *rapid.T) {
				if tb.Len() != len(recs) {
					rt.Fatalf("Len = %d, model holds %d: %v", tb.Len(), len(recs), recs)
				}
			},
		})
	})
}
