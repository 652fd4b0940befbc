package rpcid_test

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rpcid/rpcid"
)

// skipIfAllocsUnreliable skips allocation tests in builds where the
// compiler's escape analysis is not the one users get: the race detector
// and builds with optimisation or inlining turned off.
func skipIfAllocsUnreliable(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("allocation counts are not checked in -short mode")
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "-race" && s.Value == "true":
			t.Skip("allocation counts differ under the race detector")
		case s.Key == "-gcflags" && (strings.Contains(s.Value, "-N") || strings.Contains(s.Value, "-l")):
			t.Skip("allocation counts differ with optimisation or inlining off")
		}
	}
}

// TestNoAllocs holds the allocation promises of the doc comments.
// Strings longer than 32 bytes are included on purpose: Go's 32-byte stack
// buffer for string conversions hides allocations below that length.
func TestNoAllocs(t *testing.T) {
	skipIfAllocsUnreliable(t)
	long := strings.Repeat("0123456789abcdef", 4) // 64 bytes
	parses := []struct {
		in     string
		allocs float64
	}{
		{`null`, 0},
		{`0`, 0},
		{`1234567`, 0},
		{`-9223372036854775808`, 0},
		{`9223372036854775807`, 0},
		{`9223372036854775808`, 1}, // an integer beyond int64 is KindNumber, kept as text
		{`-9223372036854775809`, 1},
		{` 1234567 `, 0},
		{`1.0`, 0},
		{`12345e-2`, 1},
		{`1.5`, 1},
		{`1e400`, 1},
		{`123456789012345678901234567890`, 1},
		{`"1234567"`, 0},
		{`"-9223372036854775808"`, 0},
		{` "42" `, 0},
		{`"req-1"`, 1},
		{`"` + long + `"`, 1},
		{`"` + long + long + `"`, 1},
		{`"01"`, 1},
		{`"\u00e9` + long + `"`, 1},
		{`"\u0031"`, 1}, // escaped: decoded before it is known to be canonical
		// Over 32 bytes, so that a copy of the input could not hide in the
		// compiler's stack buffer for conversions.
		{`1.00000000000000000000000000000000000000`, 0},
		{`1.5` + strings.Repeat("0", 40), 1},
		{strings.Repeat(" ", 40) + `"1234567"` + strings.Repeat("\n", 4), 0},
		{`-1234567` + strings.Repeat("\t", 40), 0},
		{`"` + long + `\n"`, 1},
	}
	for _, tt := range parses {
		in := []byte(tt.in)
		if got := testing.AllocsPerRun(100, func() { sinkID, sinkErr = rpcid.Parse(in) }); got != tt.allocs {
			t.Errorf("Parse(%s): %v allocs, want %v", tt.in, got, tt.allocs)
		}
		var id rpcid.ID
		if got := testing.AllocsPerRun(100, func() { sinkErr = id.UnmarshalJSON(in) }); got != tt.allocs {
			t.Errorf("UnmarshalJSON(%s): %v allocs, want %v", tt.in, got, tt.allocs)
		}
		// The same input converted from a string at the call: the
		// conversion is free only because Parse neither keeps nor writes
		// its argument (go build -gcflags=-m reports no leaking
		// param). tt.in is not a constant.
		s := tt.in
		if got := testing.AllocsPerRun(100, func() { sinkID, sinkErr = rpcid.Parse([]byte(s)) }); got != tt.allocs {
			t.Errorf("Parse([]byte(%q)): %v allocs, want %v", s, got, tt.allocs)
		}
		if got := testing.AllocsPerRun(100, func() { sinkErr = id.UnmarshalJSON([]byte(s)) }); got != tt.allocs {
			t.Errorf("UnmarshalJSON([]byte(%q)): %v allocs, want %v", s, got, tt.allocs)
		}
		if sinkErr != nil {
			t.Fatalf("UnmarshalJSON(%s) = %v", s, sinkErr)
		}
	}

	// FromAny of a json.Number: as Parse, the number converted at the call.
	numbers := []struct {
		in     string
		allocs float64
	}{
		{`1234567`, 0},
		{`-9223372036854775808`, 0},
		{`1.0`, 0},
		{`1234567.000000000000000000000000000000e0`, 0},
		{`1.5`, 1},
		{`1e400`, 1},
		{`123456789012345678901234567890123456789`, 1},
	}
	for _, tt := range numbers {
		n := json.Number(tt.in)
		if got := testing.AllocsPerRun(100, func() { sinkID, sinkErr = rpcid.FromAny(n) }); got != tt.allocs {
			t.Errorf("FromAny(json.Number(%q)): %v allocs, want %v", tt.in, got, tt.allocs)
		}
		if sinkErr != nil {
			t.Fatalf("FromAny(json.Number(%q)) = %v", tt.in, sinkErr)
		}
	}

	ids := []rpcid.ID{
		{}, rpcid.Null(), rpcid.Int(-7), rpcid.String("7"), rpcid.String(long),
		rpcid.String("a\tb\"c" + long), rpcid.MustParse(`1.50`), rpcid.MustParse(`1e400`),
	}
	buf := make([]byte, 0, 1024)
	for _, id := range ids {
		if got := testing.AllocsPerRun(100, func() { sinkKey = id.Key() }); got != 0 {
			t.Errorf("%v.Key(): %v allocs, want 0", id, got)
		}
		if got := testing.AllocsPerRun(100, func() { sinkBool = rpcid.Equal(id, rpcid.String("7")) }); got != 0 {
			t.Errorf("Equal(%v, \"7\"): %v allocs, want 0", id, got)
		}
		if got := testing.AllocsPerRun(100, func() { sinkBytes = id.AppendJSON(buf[:0]) }); got != 0 {
			t.Errorf("%v.AppendJSON into a buffer with room: %v allocs, want 0", id, got)
		}
	}

	// Pending.TakeJSON: nothing for integers, canonical integer strings,
	// unescaped strings (up to and beyond 64 bytes) and numbers with short keys.
	takes := []struct {
		sent     rpcid.ID
		received string
	}{
		{rpcid.Int(1234567), `1234567`},
		{rpcid.Int(1234567), `"1234567"`},
		{rpcid.Int(1234567), ` 1234567.0 `},
		{rpcid.String("1234567"), `1234567`},
		{rpcid.String("req-1"), `"req-1"`},
		{rpcid.String(long), `"` + long + `"`},
		{rpcid.String(long + long), `"` + long + long + `"`},
		{rpcid.MustParse(`1.5`), `15e-1`},
		{rpcid.MustParse(`1e400`), `10e399`},
		{rpcid.Int(141), `"141"`}, // fillPending holds 41
		{rpcid.Int(1234567), strings.Repeat(" ", 40) + `"1234567"`},
		{rpcid.MustParse(`1.5`), `1.5000000000000000000000000000000000000`},
	}
	for _, tt := range takes {
		var p rpcid.Pending[int]
		fillPending(&p)
		raw := []byte(tt.received)
		got := testing.AllocsPerRun(100, func() {
			if err := p.Add(tt.sent, 1); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := p.TakeJSON(raw); !ok {
				t.Fatalf("TakeJSON(%s) did not find %v", raw, tt.sent)
			}
		})
		if got != 0 {
			t.Errorf("Add(%v)+TakeJSON(%s): %v allocs, want 0", tt.sent, raw, got)
		}
		// Converted at the call, as p.TakeJSON([]byte(`"41"`)).
		s := tt.received
		got = testing.AllocsPerRun(100, func() {
			if err := p.Add(tt.sent, 1); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := p.TakeJSON([]byte(s)); !ok {
				t.Fatalf("TakeJSON(%s) did not find %v", s, tt.sent)
			}
		})
		if got != 0 {
			t.Errorf("Add(%v)+TakeJSON([]byte(%q)): %v allocs, want 0", tt.sent, s, got)
		}
		// No match: nothing either.
		got = testing.AllocsPerRun(100, func() {
			if _, _, ok := p.TakeJSON([]byte(s)); ok {
				t.Fatalf("TakeJSON(%s) found a request that was taken", s)
			}
		})
		if got != 0 {
			t.Errorf("TakeJSON([]byte(%q)) matching nothing: %v allocs, want 0", s, got)
		}
		// TakeJSONMatch: the same, for MatchTaken and MatchNotPending.
		got = testing.AllocsPerRun(100, func() {
			if err := p.Add(tt.sent, 1); err != nil {
				t.Fatal(err)
			}
			if _, _, m, _ := p.TakeJSONMatch([]byte(s)); m != rpcid.MatchTaken {
				t.Fatalf("TakeJSONMatch(%s) = %v, want taken", s, m)
			}
		})
		if got != 0 {
			t.Errorf("Add(%v)+TakeJSONMatch([]byte(%q)): %v allocs, want 0", tt.sent, s, got)
		}
		got = testing.AllocsPerRun(100, func() {
			if _, _, m, _ := p.TakeJSONMatch([]byte(s)); m != rpcid.MatchNotPending {
				t.Fatalf("TakeJSONMatch(%s) = %v, want not pending", s, m)
			}
		})
		if got != 0 {
			t.Errorf("TakeJSONMatch([]byte(%q)) matching nothing: %v allocs, want 0", s, got)
		}
	}
	var p rpcid.Pending[int]
	fillPending(&p)
	for _, s := range []string{`null`, " null\n", strings.Repeat(" ", 40) + `null`} {
		got := testing.AllocsPerRun(100, func() {
			if _, _, m, _ := p.TakeJSONMatch([]byte(s)); m != rpcid.MatchNullID {
				t.Fatalf("TakeJSONMatch(%s) = %v, want null id", s, m)
			}
		})
		if got != 0 {
			t.Errorf("TakeJSONMatch([]byte(%q)): %v allocs, want 0", s, got)
		}
	}
}
