package restore

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func request(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"m"}` }

func response(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }

// scopeTable is a Table whose hooks log what they are told.
func scopeTable(max int) (*Table, *[]string) {
	var log []string
	tb := &Table{
		MaxPending:  max,
		OnRestore:   func(rcv, sent []byte) { log = append(log, "restored "+string(rcv)+" to "+string(sent)) },
		OnUnmatched: func(rcv []byte) { log = append(log, "unmatched "+string(rcv)) },
		OnAmbiguous: func(rcv []byte) { log = append(log, "ambiguous "+string(rcv)) },
		OnElsewhere: func(m Elsewhere) {
			log = append(log, fmt.Sprintf("elsewhere %s sent as %s, ended %v, session %v", m.Received, m.Sent, m.Ended, m.Session))
		},
	}
	return tb, &log
}

func mustRecord(t *testing.T, tb *Table, data, session string) *Exchange {
	t.Helper()
	ex, err := tb.RecordSession([]byte(data), session)
	if err != nil || ex == nil {
		t.Fatalf("RecordSession(%s): %v, %v", data, ex, err)
	}
	return ex
}

// TestScopeOwnExchange answers two exchanges in flight at once, with Equal
// ids of two spellings, each in its own body, in both orders: each gets its
// own spelling back, and nothing is reported as elsewhere.
func TestScopeOwnExchange(t *testing.T) {
	for _, received := range []string{`"1"`, `1.0`, `1`} {
		for _, aFirst := range []bool{true, false} {
			tb, log := scopeTable(0)
			exA := mustRecord(t, tb, request(`1`), "")
			exB := mustRecord(t, tb, request(`"1"`), "")
			order := []struct {
				ex   *Exchange
				sent string
			}{{exA, `1`}, {exB, `"1"`}}
			if !aFirst {
				order[0], order[1] = order[1], order[0]
			}
			for _, o := range order {
				in := response(received)
				out, changed := tb.Scope(o.ex, "").AppendRestored(nil, []byte(in))
				if want := response(o.sent); string(out) != want || changed != (received != o.sent) {
					t.Errorf("received %s, A first %v: exchange of %s read %s (changed %v), want %s", received, aFirst, o.sent, out, changed, want)
				}
			}
			if tb.Len() != 0 {
				t.Errorf("received %s, A first %v: Len %d, want 0", received, aFirst, tb.Len())
			}
			for _, l := range *log {
				if l[:9] == "elsewhere" || l[:9] == "ambiguous" {
					t.Errorf("received %s, A first %v: %s", received, aFirst, l)
				}
			}
		}
	}
}

// TestScopeGroups checks the order of the groups matched and what falls
// through from one to the next.
func TestScopeGroups(t *testing.T) {
	type step struct {
		scope string // "A", "B", ... for an exchange's body; "get:S" for a GET in session S; "none" for Restore without a scope
		in    string // response id received
		want  string // id the body then holds
	}
	tests := []struct {
		name     string
		max      int
		requests []string // "KEY SESSION ID", session "-" for none; KEY+"!" releases it as not failed (orphan) right away
		steps    []step
		wantLog  []string
		wantLen  int
	}{
		{
			name:     "orphan spelled as received loses to the exchange's own request",
			requests: []string{`B! - "1"`, `A - 1`},
			steps:    []step{{"A", `"1"`, `1`}, {"get:-", `"1"`, `"1"`}},
			wantLog:  []string{`restored "1" to 1`, `elsewhere "1" sent as "1", ended true, session false`},
		},
		{
			name:     "exchange with no Equal id falls through to others in flight, then orphans",
			requests: []string{`B! - "1"`, `C - 1`, `A - 5`},
			steps:    []step{{"A", `1.0`, `1`}, {"A", `1.0`, `"1"`}, {"A", `"5"`, `5`}},
			wantLog: []string{
				`restored 1.0 to 1`, `elsewhere 1.0 sent as 1, ended false, session false`,
				`restored 1.0 to "1"`, `elsewhere 1.0 sent as "1", ended true, session false`,
				`restored "5" to 5`,
			},
		},
		{
			name:     "two spellings within one exchange are ambiguous even with an exact one elsewhere",
			requests: []string{`A - [1,1.0]`, `B - "1"`},
			steps:    []step{{"A", `"1"`, `"1"`}, {"A", `1`, `1`}, {"A", `"1"`, `1.0`}, {"B", `1`, `"1"`}},
			wantLog:  []string{`ambiguous "1"`, `restored "1" to 1.0`, `restored 1 to "1"`},
		},
		{
			name:     "a batch is answered from its own records",
			requests: []string{`A - [1,2]`, `B - ["1","2"]`},
			steps:    []step{{"A", `"1"`, `1`}, {"A", `"2"`, `2`}, {"B", `"2"`, `"2"`}, {"B", `"1"`, `"1"`}},
			wantLog:  []string{`restored "1" to 1`, `restored "2" to 2`},
		},
		{
			name:     "a GET answers its own session's orphan before another session's",
			requests: []string{`A! a 1`, `B! b "1"`, `C b "1"`},
			steps:    []step{{"get:a", `"1"`, `1`}, {"get:b", `1`, `"1"`}, {"get:b", `1`, `"1"`}},
			wantLog: []string{
				`restored "1" to 1`, `elsewhere "1" sent as 1, ended true, session true`,
				`restored 1 to "1"`, `elsewhere 1 sent as "1", ended false, session true`,
				`restored 1 to "1"`, `elsewhere 1 sent as "1", ended true, session true`,
			},
		},
		{
			name:     "a GET of another session, or of none, matches all as before",
			requests: []string{`A! a 1`, `B b "1"`},
			steps:    []step{{"get:c", `"1"`, `"1"`}, {"get:-", `1.0`, `1`}},
			wantLog: []string{
				`elsewhere "1" sent as "1", ended false, session false`,
				`restored 1.0 to 1`, `elsewhere 1.0 sent as 1, ended true, session false`,
			},
		},
		{
			name:     "a session's own ids of two spellings are ambiguous",
			requests: []string{`A! a 1`, `B! a "1"`, `C b 1.0`},
			steps:    []step{{"get:a", `1e0`, `1e0`}, {"get:b", `1e0`, `1.0`}},
			wantLog:  []string{`ambiguous 1e0`, `restored 1e0 to 1.0`, `elsewhere 1e0 sent as 1.0, ended false, session true`},
			wantLen:  2,
		},
		{
			name:     "without a scope (stdio) matching is unscoped",
			requests: []string{`A - 1`, `B - "1"`},
			steps:    []step{{"none", `"1"`, `"1"`}, {"none", `"1"`, `1`}},
			wantLog:  []string{`restored "1" to 1`},
		},
		{
			name:     "a released exchange's late body still answers its own orphans first",
			requests: []string{`A! - 1`, `B - "1"`},
			steps:    []step{{"A", `"1"`, `1`}, {"B", `"1"`, `"1"`}},
			wantLog:  []string{`restored "1" to 1`},
		},
		{
			name:     "an orphan dropped for room answers nothing: its exchange's late body falls through",
			max:      2,
			requests: []string{`A! - 1`, `B - "1"`, `C - 2`},
			steps:    []step{{"A", `1.0`, `"1"`}, {"C", `"2"`, `2`}},
			wantLog:  []string{`restored 1.0 to "1"`, `elsewhere 1.0 sent as "1", ended false, session false`, `restored "2" to 2`},
		},
		{
			name:     "unmatched in every group",
			requests: []string{`A a 1`},
			steps:    []step{{"A", `2`, `2`}, {"get:a", `"2"`, `"2"`}, {"A", `1`, `1`}},
			wantLog:  []string{`unmatched 2`, `unmatched "2"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb, log := scopeTable(tt.max)
			exs := map[string]*Exchange{}
			sessions := map[string]string{} // the session each exchange was sent in
			for _, r := range tt.requests {
				var key, session, id string
				fmt.Sscan(r, &key, &session, &id)
				if session == "-" {
					session = ""
				}
				data := request(id)
				if id[0] == '[' {
					data = "["
					for i, x := range splitIDs(id) {
						if i > 0 {
							data += ","
						}
						data += request(x)
					}
					data += "]"
				}
				release := key[len(key)-1] == '!'
				if release {
					key = key[:len(key)-1]
				}
				ex := mustRecord(t, tb, data, session)
				exs[key], sessions[key] = ex, session
				if release {
					tb.Release(ex, false)
				}
			}
			for i, s := range tt.steps {
				in := []byte(response(s.in))
				var out []byte
				switch {
				case s.scope == "none":
					out, _ = tb.AppendRestored(nil, in)
				case len(s.scope) > 4 && s.scope[:4] == "get:":
					session := s.scope[4:]
					if session == "-" {
						session = ""
					}
					out, _ = tb.Scope(nil, session).RestoreInPlace(in)
				default:
					ex := exs[s.scope]
					if ex == nil {
						t.Fatalf("step %d: no exchange %s", i, s.scope)
					}
					sc := tb.Scope(ex, sessions[s.scope])
					last := 0
					sc.Restore(in, func(start, end int, sent []byte) {
						out = append(append(out, in[last:start]...), sent...)
						last = end
					})
					out = append(out, in[last:]...)
				}
				if want := response(s.want); string(out) != want {
					t.Errorf("step %d: %s in the body of %s: got %s, want %s", i, s.in, s.scope, out, want)
				}
			}
			if diff := cmp.Diff(tt.wantLog, *log); diff != "" {
				t.Errorf("hooks called (-want +got):\n%s", diff)
			}
			if tb.Len() != tt.wantLen {
				t.Errorf("Len = %d, want %d", tb.Len(), tt.wantLen)
			}
		})
	}
}

// splitIDs splits "[a,b]" into its ids (which contain no commas here).
func splitIDs(s string) []string {
	var ids []string
	start := 1
	for i := 1; i < len(s); i++ {
		if s[i] == ',' || s[i] == ']' {
			ids = append(ids, s[start:i])
			start = i + 1
		}
	}
	return ids
}

// TestScopeAllocs checks that a scoped exchange costs what an unscoped one
// does: Record allocates the Exchange, the Scope's Restore nothing.
func TestScopeAllocs(t *testing.T) {
	tb := &Table{OnElsewhere: func(Elsewhere) {}}
	req := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"x"}}`)
	resp := []byte(`{"jsonrpc":"2.0","id":"12345","result":{"content":[]}}`)
	buf := make([]byte, len(resp))
	allocs := testing.AllocsPerRun(100, func() {
		ex, err := tb.RecordSession(req, "session-1")
		if err != nil || ex == nil {
			t.Fatal(err)
		}
		copy(buf, resp)
		if out, changed := tb.Scope(ex, "session-1").RestoreInPlace(buf); !changed || len(out) != len(resp)-2 {
			t.Fatalf("RestoreInPlace = %s, %v", out, changed)
		}
		tb.Release(ex, false)
	})
	if allocs != 1 {
		t.Errorf("RecordSession + Scope.RestoreInPlace + Release allocate %v times, want 1", allocs)
	}
}

// TestScopeConcurrent runs many exchanges at once whose ids are Equal in
// three spellings, each answered in its own scope with a fourth: each must
// get its own spelling back, and the Table must end empty. Run it with
// -race.
func TestScopeConcurrent(t *testing.T) {
	tb := &Table{}
	spellings := []string{`1`, `"1"`, `1.0`}
	const n = 64
	errs := make(chan string, n)
	for g := range n {
		go func() {
			sent := spellings[g%len(spellings)]
			session := fmt.Sprint("s", g%5)
			for range 50 {
				ex, err := tb.RecordSession([]byte(request(sent)), session)
				if err != nil {
					errs <- err.Error()
					return
				}
				out, _ := tb.Scope(ex, session).AppendRestored(nil, []byte(response(`1e0`)))
				tb.Release(ex, false)
				if string(out) != response(sent) {
					errs <- fmt.Sprintf("exchange of %s read %s", sent, out)
					return
				}
			}
			errs <- ""
		}()
	}
	for range n {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	if tb.Len() != 0 {
		t.Errorf("Len = %d after every exchange was answered, want 0", tb.Len())
	}
}
